/*
 * kernel.h: the emulated kernel's shared declarations, and its overview.
 *
 * umockdev's sysfs is a directory of plain files: any write succeeds and any name can be created. This library
 * (iio-kernel.so, built from every .c file in this folder) is loaded in front of umockdev's own
 * (LD_PRELOAD="iio-kernel.so libumockdev-preload.so.0") into the program under test (and the programs a test runs
 * beside it: iio-sensor-proxy, a raw poller), and makes writes under /sys/bus/iio/devices/iio:deviceN/ (or the
 * same directory reached as /sys/devices/.../iio:deviceN/) behave as the IIO core and the driver would: a write
 * the kernel refuses fails with the kernel's errno and leaves the file as it was; an accepted one replaces the
 * value, with the core's side effects. It also answers raw reads, device node opens, event descriptors, clocks
 * and sleeps as the kernel does.
 *
 * Modules, each with a comment of its own on what it emulates and which kernel behaviour it copies:
 *   testbed.c   the testbed's files: attribute paths, reading and replacing attribute text, the kernel log
 *   core.c      the IIO core's own attributes (buffer/, scan_elements/, trigger/) and which files are writable
 *   rules.c     the driver rules of IIO_KERNEL_RULES: one table of rule kinds, each with its handler
 *   sysfs.c     fopen and fopen64 of attributes: each write decided, applied and logged
 *   fds.c       open, open64, openat and close: what each module keeps per descriptor
 *   nodes.c     /dev/iio:deviceN, held by one open file at a time
 *   events.c    IIO_GET_EVENT_FD_IOCTL: motion event descriptors
 *   reads.c     read(): slow and busy raw reads; the slow open of /proc/self/smaps
 *   clocks.c    suspend: CLOCK_MONOTONIC held back by the time slept; waits that last their time across it
 *   timerfd.c   suspend: timerfds armed again, or cancelled, at a resume
 *
 * Interposed libc calls (the library's only exported symbols): fopen, fopen64 (sysfs.c); open, open64, openat,
 * close (fds.c); ioctl (events.c); read (reads.c); clock_gettime, __clock_gettime, poll, ppoll, epoll_wait,
 * epoll_pwait, nanosleep, usleep, clock_nanosleep (clocks.c); timerfd_create, timerfd_settime (timerfd.c).
 * Everything else is static or declared here with hidden visibility.
 *
 * Rule kinds (IIO_KERNEL_RULES, one rule a line, "KIND DEV WORDS..."; rules.c says what each does):
 *   driver DEV                        DEV follows these rules (otherwise umockdev's leniency)
 *   writable DEV ATTR...              attributes the driver has a store function for
 *   values DEV ATTR V...              one of these numbers, else EINVAL
 *   values-up DEV ATTR V...           rounded up to the next of these numbers; above the last EINVAL
 *   range DEV ATTR MIN MAX            within [MIN, MAX], else EINVAL
 *   int-range DEV ATTR MIN MAX        an integer within [MIN, MAX], else EINVAL
 *   busy DEV ATTR...                  EBUSY while the buffer is enabled
 *   trigger-required DEV              the buffer is triggered only
 *   own-trigger DEV                   only triggers of the same parent device, else EINVAL
 *   equal-on-enable DEV ATTR1 ATTR2   enabling the buffer is EINVAL unless both hold the same number
 *   raw-busy DEV                      reading in_*_raw while the buffer is enabled is EBUSY
 *   raw-delay DEV MILLISECONDS [N]    each (or each of the first N) read of in_*_raw takes this long
 *   raw-periods DEV N ATTR            each read of in_*_raw takes N periods of the frequency in ATTR
 *   shared DEV ATTR...                one value behind several files
 *   armed-busy DEV ATTR...            EBUSY while any events/..._en of DEV reads 1
 *   enable-resets DEV EN ATTR TEXT    a write taken by EN stores TEXT in ATTR
 *   buffer-powers DEV                 the part samples only while its buffer (or an event) is enabled
 *
 * Environment:
 *   UMOCKDEV_DIR            the testbed root (umockdev's); without it nothing is emulated
 *   IIO_KERNEL_RULES        the file of driver rules (rules.c)
 *   IIO_KERNEL_LOG          the file every write, refusal, slow read and resume is logged to (testbed.c)
 *   IIO_KERNEL_SMAPS_DELAY  milliseconds each open of /proc/self/smaps takes (reads.c)
 *   IIO_KERNEL_SLEEP        the file of the seconds slept so far, for suspend and resume (clocks.c, timerfd.c)
 *
 * The log, one line each (umockdev-driver.py parses these):
 *   write iio:device0 buffer/watermark "13" ok                                        (sysfs.c)
 *   write iio:device0 buffer/watermark "13" EINVAL watermark above buffer/length 4    (sysfs.c)
 *   write iio:device0 name EACCES read-only attribute                                 (sysfs.c, at the open)
 *   write iio:device0 foo EACCES no such attribute                                    (sysfs.c, at the open)
 *   read iio:device0 in_accel_y_raw slept 3.6 ms at 14895.123456                      (reads.c)
 *   write iio:device0 dev/iio:device0 "IIO_GET_EVENT_FD_IOCTL" ok                     (events.c)
 *   write iio:device0 dev/iio:device0 "IIO_GET_EVENT_FD_IOCTL" EBUSY another event descriptor is open
 *   open iio:device0 dev/iio:device0 EBUSY another descriptor has the node open (pid 1234)   (nodes.c)
 *   resume timerfd 9 CLOCK_REALTIME TFD_TIMER_CANCEL_ON_SET cancelled, after 3.001 s asleep (timerfd.c)
 *   resume FIFO PATH cannot be opened: REASON                                         (timerfd.c)
 */
#ifndef IIO_KERNEL_H
#define IIO_KERNEL_H

#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define HIDDEN __attribute__((visibility("hidden")))

#define PREFIX "/sys/bus/iio/devices/"
#define MAX_FDS 4096
#define MAX_DEVS 64

/* testbed.c: plain system calls, so that nothing here goes through umockdev's wrappers or our own. */
HIDDEN int sys_open(const char *path, int flags, mode_t mode);
HIDDEN ssize_t sys_read(int fd, void *buf, size_t n);
HIDDEN ssize_t sys_write(int fd, const void *buf, size_t n);
HIDDEN int sys_close(int fd);

/* testbed.c: the testbed and its attributes. */
HIDDEN extern pthread_mutex_t kernel_lock;   /* recursive; guards the descriptor tables and every decided write */
HIDDEN const char *root(void);
HIDDEN void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
HIDDEN int split(const char *path, char *dev, size_t devlen, char *attr, size_t attrlen);
HIDDEN void testbed_path(char *out, size_t n, const char *dev, const char *attr);
HIDDEN int state(const char *dev, const char *attr, char *buf, size_t n);
HIDDEN long state_number(const char *dev, const char *attr);
HIDDEN int enabled(const char *dev);
HIDDEN int store(const char *dev, const char *attr, const char *value);
HIDDEN int store_number(const char *dev, const char *attr, double v);
HIDDEN int enabled_in(const char *dev, const char *subdir);
HIDDEN int for_each_entry(const char *dir, int (*visit)(const char *name, void *ctx), void *ctx);
HIDDEN int ends_with(const char *s, const char *suffix);
HIDDEN int starts_with(const char *s, const char *prefix);
HIDDEN int parse_uint(const char *s, unsigned long *out);
HIDDEN int parse_fixed(const char *s, double *out);
HIDDEN int same_number(double a, double b);
HIDDEN void sleep_ms(double ms);

/* rules.c: the driver rules. */
#define RULE_WORDS 40

struct rule {
    char kind[24];
    char dev[48];
    int nwords;
    char words[RULE_WORDS][64];
};

/* When a kind's handler runs (rules.c's table). */
enum stage {
    STAGE_NONE,          /* a list the other kinds and the core consult */
    STAGE_REFUSE,        /* any write, before its value is looked at */
    STAGE_DRIVER_REFUSE, /* a write to a driver attribute (not the core's), before its value is looked at */
    STAGE_DRIVER_VALUE,  /* a write to a driver attribute: the first kind that has a rule takes the value */
    STAGE_ENABLE,        /* the buffer is being enabled, once the core found a scan element enabled */
    STAGE_TRIGGER,       /* a trigger is being attached */
    STAGE_AFTER,         /* a write was taken: its side effects */
    STAGE_READ_DELAY,    /* the first read of an open in_*_raw file: how long it takes */
    STAGE_READ_REFUSE,   /* the same read, once it took that long */
};

/* One write or raw read being decided, as the handlers see it. */
struct request {
    const char *dev, *attr, *value;   /* attr: the attribute written or read; value: the text written */
    char *why;                        /* the reason logged beside a refusal */
    size_t whylen;
    int buffer_before;                /* the buffer's state before the write */
    int events_before;                /* how many events were enabled before it (buffer-powers devices) */
    const char *trigger_id;           /* STAGE_TRIGGER: the trigger's id (trigger0) */
    const char *trigger_name;         /* STAGE_TRIGGER: its name */
    int raw_dev;                      /* STAGE_READ_*: the device's index among the raw devices (reads.c) */
    double ms;                        /* STAGE_READ_DELAY: how long the read takes */
};

#define RULE_PASS (-1)   /* a handler's answer: not decided here, go on */

HIDDEN const struct rule *find_rule(const char *kind, const char *dev, const char *attr);
HIDDEN int has_rule_in(enum stage stage, const char *dev);
HIDDEN int run_stage(enum stage stage, struct request *q);

/* core.c: the IIO core's attributes. */
HIDDEN int core_writable(const char *attr);
HIDDEN int core_readonly(const char *attr);
HIDDEN int writable(const char *dev, const char *attr);
HIDDEN int core_store(struct request *q);
HIDDEN int trigger_named(const char *name, char *id, size_t n);
HIDDEN int parent_of(const char *id, char *out, size_t n);

/* nodes.c: device nodes. */
HIDDEN extern int node_fds[MAX_FDS];
HIDDEN extern char node_devs[MAX_DEVS][48];
HIDDEN int claim_node(int fd, const char *path);
HIDDEN int note_node(int fd, const char *path);
HIDDEN void node_forget(int fd);
HIDDEN void discard_queued_scans(const char *dev);

/* events.c: event descriptors. */
HIDDEN void events_dir(char *out, size_t n);
HIDDEN void event_new_dev(int i);
HIDDEN void event_forget(int fd);

/* reads.c: raw reads and the smaps delay. */
HIDDEN void note_raw(int fd, const char *path);
HIDDEN void raw_forget(int fd);
HIDDEN void slow_smaps(const char *path);

/* clocks.c: the time slept. */
HIDDEN extern const volatile char *slept_page;   /* the IIO_KERNEL_SLEEP file, mapped; NULL: no emulation */
HIDDEN extern char slept_dir[1024];
HIDDEN int64_t slept_ns(void);
HIDDEN int64_t ts_ns(const struct timespec *t);
HIDDEN struct timespec ns_ts(int64_t ns);
HIDDEN int kernel_clock(clockid_t c, struct timespec *ts);
HIDDEN int64_t program_now(void);

/* input.c: udev's database under the testbed root, fstat of an evdev node, a read of one whose device is gone. */
HIDDEN const char *udev_data_path(const char *path, char *buf, size_t n);
HIDDEN void note_input(int fd, const char *path);
HIDDEN void input_forget(int fd);
HIDDEN int input_gone(int fd);

/* timerfd.c: timerfds across a resume. */
HIDDEN void timerfd_forget(int fd);
HIDDEN int timerfd_cancel_pending(int fd);
HIDDEN ssize_t timerfd_read_cancelled(int fd, ssize_t got);

#endif
