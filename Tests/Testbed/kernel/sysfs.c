/*
 * sysfs.c: writes to the attributes of emulated IIO devices, taken or refused as the kernel takes them.
 *
 * fopen and fopen64 of a file under /sys/bus/iio/devices/iio:deviceN/ (or /sys/devices/.../iio:deviceN/) for
 * writing answer as kernfs_fop_open does: a file that does not exist cannot be created, and a read-only
 * attribute cannot be opened for writing (EACCES). An open that succeeds hands back a stream whose every write
 * is decided as the attribute's store function decides it (core.c for the core's attributes, the driver rules
 * of rules.c for the rest): a write the kernel refuses fails with the kernel's errno and leaves the file as it
 * was; an accepted one replaces the value, with the core's and the driver's side effects.
 *
 * Every write is logged, one line each, with the reason for a refusal:
 *   write iio:device0 buffer/watermark "13" ok
 *   write iio:device0 buffer/watermark "13" EINVAL watermark above buffer/length 4
 * and so is every open refused:
 *   write iio:device0 name EACCES read-only attribute
 *   write iio:device0 foo EACCES no such attribute
 * Any other fopen goes on as it was asked, an open of udev's database under the testbed root (input.c).
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A driver attribute's plain store: the text, without its trailing newline. */
static int store_text(struct request *q) {
    char text[512];
    snprintf(text, sizeof(text), "%s", q->value);
    size_t len = strlen(text);
    if (len && text[len - 1] == '\n') text[len - 1] = 0;
    return store(q->dev, q->attr, text);
}

/* The write itself, by the core's and the driver's rules. */
static int decide_value(struct request *q) {
    int e = core_store(q);
    if (e != RULE_PASS) return e;
    e = run_stage(STAGE_DRIVER_REFUSE, q);
    if (e != RULE_PASS) return e;
    e = run_stage(STAGE_DRIVER_VALUE, q);
    if (e != RULE_PASS) return e;
    return store_text(q);
}

/* Decides a write of `value` (already cut at its NUL) to DEV/ATTR; applies it when accepted, with the driver's
 * side effects (shared, enable-resets, buffer-powers). Returns 0 or the errno, and a reason for the log. */
static int decide(const char *dev, const char *attr, const char *value, char *why, size_t whylen) {
    struct request q = {.dev = dev, .attr = attr, .value = value, .why = why, .whylen = whylen};
    why[0] = 0;
    int e = run_stage(STAGE_REFUSE, &q);
    if (e != RULE_PASS) return e;
    q.events_before = find_rule("buffer-powers", dev, NULL) ? enabled_in(dev, "events") : 0;
    q.buffer_before = enabled(dev);
    e = decide_value(&q);
    if (e) return e;
    if (!strcmp(attr, "buffer/enable") && !q.buffer_before && enabled(dev)) discard_queued_scans(dev);
    run_stage(STAGE_AFTER, &q);
    return 0;
}

static const char *errname(int e) {
    switch (e) {
    case 0: return "ok";
    case EINVAL: return "EINVAL";
    case EBUSY: return "EBUSY";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    default: return strerror(e);
    }
}

struct writer {
    char dev[48];
    char attr[256];
};

static ssize_t writer_write(void *cookie, const char *data, size_t n) {
    struct writer *w = cookie;
    char value[512];
    size_t len = n < sizeof(value) - 1 ? n : sizeof(value) - 1;
    memcpy(value, data, len);
    value[len] = 0;          /* the store sees the bytes up to the first NUL: libiio writes one */
    char why[320];
    pthread_mutex_lock(&kernel_lock);
    int e = decide(w->dev, w->attr, value, why, sizeof(why));
    pthread_mutex_unlock(&kernel_lock);
    char shown[512];
    snprintf(shown, sizeof(shown), "%s", value);
    size_t sl = strlen(shown);
    if (sl && shown[sl - 1] == '\n') shown[sl - 1] = 0;
    logf_("write %s %s \"%s\" %s%s%s", w->dev, w->attr, shown, errname(e), why[0] ? " " : "", why);
    if (e) {
        errno = e;
        return -1;
    }
    return (ssize_t)n;
}

static int writer_close(void *cookie) {
    free(cookie);
    return 0;
}

/* The open of an attribute for writing: EACCES as kernfs_fop_open answers, else a stream of decided writes. */
static FILE *open_governed(const char *path, const char *mode, FILE *(*next)(const char *, const char *)) {
    char dev[48], attr[256];
    int writing = strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+');
    char data[1024];
    if (!writing || !root() || !split(path, dev, sizeof(dev), attr, sizeof(attr))) return next(udev_data_path(path, data, sizeof(data)), mode);
    char real[1200];
    testbed_path(real, sizeof(real), dev, attr);
    if (syscall(SYS_faccessat, AT_FDCWD, real, F_OK, 0) != 0) {
        logf_("write %s %s EACCES no such attribute", dev, attr);
        errno = EACCES;
        return NULL;
    }
    if (!writable(dev, attr) && (core_readonly(attr) || !find_rule("driver", dev, NULL))) {
        logf_("write %s %s EACCES read-only attribute", dev, attr);
        errno = EACCES;
        return NULL;
    }
    /* The file's own permissions still apply to a program that is not root. */
    if (syscall(SYS_faccessat, AT_FDCWD, real, W_OK, 0) != 0) return next(path, mode);
    struct writer *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    snprintf(w->dev, sizeof(w->dev), "%s", dev);
    snprintf(w->attr, sizeof(w->attr), "%s", attr);
    cookie_io_functions_t io = {.read = NULL, .write = writer_write, .seek = NULL, .close = writer_close};
    FILE *f = fopencookie(w, "w", io);
    if (!f) free(w);
    return f;
}

FILE *fopen(const char *path, const char *mode) {
    static FILE *(*next)(const char *, const char *);
    if (!next) next = dlsym(RTLD_NEXT, "fopen");
    return open_governed(path, mode, next);
}

FILE *fopen64(const char *path, const char *mode) {
    static FILE *(*next)(const char *, const char *);
    if (!next) next = dlsym(RTLD_NEXT, "fopen64");
    return open_governed(path, mode, next);
}
