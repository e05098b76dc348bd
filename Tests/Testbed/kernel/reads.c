/*
 * reads.c: reads that take the kernel's time: the raw values of a driver's channels, and /proc/self/smaps.
 *
 * Descriptors opened on in_<channel>_raw of a device with a raw-delay, raw-periods or raw-busy rule (rules.c)
 * are remembered, so that read() answers as the driver's read_raw would: the first read of an open takes the
 * time the rule says (a driver that asks a hub, or powers the part up and waits for it to settle), once per
 * open, as sysfs calls the driver's show once and a later read gets the text it buffered, or the end of the
 * file; while the buffer is enabled, a device with raw-busy fails it with EBUSY (iio_device_claim_direct_mode).
 * Every raw read that sleeps is logged with the time it ended (the program's CLOCK_MONOTONIC, s):
 *   read iio:device0 in_accel_y_raw slept 3.6 ms at 14895.123456
 *
 * IIO_KERNEL_SMAPS_DELAY, when set, is how many milliseconds each open of /proc/self/smaps takes: the kernel walks
 * every mapping's page tables to write it, which for a large process on a loaded machine takes that long.
 *
 * read() also ends the read of a timerfd a resume cancelled (timerfd.c), and fails with ENODEV on an evdev node
 * whose device is gone (input.c).
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* For each descriptor opened on an in_*_raw file: 1 + the index of its device's name in raw_devs, else 0; and
 * whether it was read already (sysfs calls the driver's show once per open: a later read gets the text it
 * buffered, or the end of the file). */
static int raw_fds[MAX_FDS];
static char raw_shown[MAX_FDS];
/* For each such descriptor, the attribute it was opened on (in_accel_x_raw), for the log. */
static char raw_attrs[MAX_FDS][40];
static char raw_devs[MAX_DEVS][48];
static int nraw_devs;

void raw_forget(int fd) {
    raw_fds[fd] = 0;
    raw_shown[fd] = 0;
}

/* Remembers FD when PATH is an in_*_raw file of a device whose raw reads have rules. */
void note_raw(int fd, const char *path) {
    char dev[48], attr[256];
    if (!root() || !split(path, dev, sizeof(dev), attr, sizeof(attr))) return;
    if (!starts_with(attr, "in_") || !ends_with(attr, "_raw")) return;
    if (!has_rule_in(STAGE_READ_DELAY, dev) && !has_rule_in(STAGE_READ_REFUSE, dev)) return;
    pthread_mutex_lock(&kernel_lock);
    int i;
    for (i = 0; i < nraw_devs && strcmp(raw_devs[i], dev); i++) {}
    if (i == nraw_devs && nraw_devs < MAX_DEVS) snprintf(raw_devs[nraw_devs++], sizeof(raw_devs[0]), "%s", dev);
    if (i < nraw_devs) raw_fds[fd] = i + 1;
    snprintf(raw_attrs[fd], sizeof(raw_attrs[0]), "%.*s", (int)sizeof(raw_attrs[0]) - 1, attr);
    pthread_mutex_unlock(&kernel_lock);
}

/* Opening /proc/self/smaps takes IIO_KERNEL_SMAPS_DELAY milliseconds. */
void slow_smaps(const char *path) {
    const char *delay = getenv("IIO_KERNEL_SMAPS_DELAY");
    if (!delay || !path || strcmp(path, "/proc/self/smaps")) return;
    double ms = strtod(delay, NULL);
    if (ms <= 0) return;
    sleep_ms(ms);
}

/* The first read of a raw descriptor: the driver's time, then its refusal. 0, or -1 with errno. */
static int raw_read(int fd) {
    raw_shown[fd] = 1;
    struct request q = {.dev = raw_devs[raw_fds[fd] - 1], .attr = raw_attrs[fd], .raw_dev = raw_fds[fd] - 1};
    run_stage(STAGE_READ_DELAY, &q);
    if (q.ms > 0) {
        sleep_ms(q.ms);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        logf_("read %s %s slept %.1f ms at %.6f", q.dev, raw_attrs[fd], q.ms, now.tv_sec + now.tv_nsec / 1e9);
    }
    int e = run_stage(STAGE_READ_REFUSE, &q);
    if (e == RULE_PASS) return 0;
    errno = e;
    return -1;
}

ssize_t read(int fd, void *buf, size_t n) {
    static ssize_t (*next)(int, void *, size_t);
    if (!next) next = dlsym(RTLD_NEXT, "read");
    if (timerfd_cancel_pending(fd)) return timerfd_read_cancelled(fd, 0);
    if (input_gone(fd)) {
        errno = ENODEV;
        return -1;
    }
    if (fd >= 0 && fd < MAX_FDS && raw_fds[fd] && !raw_shown[fd] && raw_read(fd) < 0) return -1;
    ssize_t got = next(fd, buf, n);
    /* A resume while this read waited on a cancellable timerfd: its wake-up was the cancel, not an expiry. */
    if (timerfd_cancel_pending(fd)) return timerfd_read_cancelled(fd, got);
    return got;
}
