/*
 * clocks.c: the program's clocks across an emulated suspend, and waits that last their time across it.
 *
 * Suspend and resume, when IIO_KERNEL_SLEEP names a file (umockdev-driver.py sets it to iio-kernel/slept under the
 * testbed root when its steps include "suspend"). The file holds the seconds the system has slept so far, as
 * fixed-width text ("%20.9f\n"); the driver rewrites it in place only while the program is stopped (SIGSTOP),
 * and the library maps it once, so reading it costs a few dozen instructions. While it holds D:
 *   - clock_gettime (and __clock_gettime) of CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW and CLOCK_MONOTONIC_COARSE
 *     reads D behind the kernel's (monotonic clocks do not count suspend); CLOCK_BOOTTIME and CLOCK_REALTIME are
 *     the kernel's, so CLOCK_BOOTTIME - CLOCK_MONOTONIC grows by the time slept. Calls inside glibc itself
 *     (time(), gettimeofday(), a condition variable's own clock) are not interposed;
 *   - waits with a CLOCK_MONOTONIC timeout last their whole time on the program's clock, as across a real
 *     suspend: poll, ppoll, epoll_wait, epoll_pwait, nanosleep, usleep and clock_nanosleep (relative, or
 *     TIMER_ABSTIME on a monotonic clock, moved by D) wait again for what is left when D grew meanwhile
 *     (the kernel ended them during the stop); select is not interposed.
 * Timerfds, and the resume that reaches the program, are timerfd.c's.
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

const volatile char *slept_page;   /* the IIO_KERNEL_SLEEP file, mapped; NULL: no emulation */
char slept_dir[1024];              /* the directory it is in, where the resume FIFOs go */
static int (*real_clock_gettime)(clockid_t, struct timespec *);

__attribute__((constructor)) static void sleep_init(void) {
    const char *path = getenv("IIO_KERNEL_SLEEP");
    if (!path || !*path) return;
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return;
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) == 0 && st.st_size > 0) {
        void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) slept_page = m;
    }
    sys_close(fd);
    snprintf(slept_dir, sizeof(slept_dir), "%s", path);
    char *slash = strrchr(slept_dir, '/');
    if (slash) *slash = 0;
    else snprintf(slept_dir, sizeof(slept_dir), ".");
}

/* The nanoseconds slept so far: the file's text, parsed by hand (no locale). */
int64_t slept_ns(void) {
    const volatile char *p = slept_page;
    if (!p) return 0;
    int64_t sec = 0, ns = 0;
    int i = 0, digits = 0;
    while (i < 40 && p[i] == ' ') i++;
    while (i < 40 && p[i] >= '0' && p[i] <= '9') sec = sec * 10 + (p[i++] - '0');
    if (i < 40 && p[i] == '.') {
        for (i++; i < 40 && digits < 9 && p[i] >= '0' && p[i] <= '9'; digits++) ns = ns * 10 + (p[i++] - '0');
    }
    for (; digits < 9; digits++) ns *= 10;
    return sec * 1000000000LL + ns;
}

int64_t ts_ns(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec; }

struct timespec ns_ts(int64_t ns) {
    if (ns < 0) ns = 0;
    struct timespec t = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    return t;
}

static int monotonic_clock(clockid_t c) { return c == CLOCK_MONOTONIC || c == CLOCK_MONOTONIC_RAW || c == CLOCK_MONOTONIC_COARSE; }

/* The kernel's own clock, not held back. */
int kernel_clock(clockid_t c, struct timespec *ts) {
    if (!real_clock_gettime) real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    return real_clock_gettime(c, ts);
}

int clock_gettime(clockid_t c, struct timespec *ts) {
    int r = kernel_clock(c, ts);
    if (r == 0 && slept_page && monotonic_clock(c)) {
        int64_t d = slept_ns();
        if (d) *ts = ns_ts(ts_ns(ts) - d);
    }
    return r;
}

int __clock_gettime(clockid_t c, struct timespec *ts);
int __clock_gettime(clockid_t c, struct timespec *ts) { return clock_gettime(c, ts); }

/* The program's CLOCK_MONOTONIC, ns. */
int64_t program_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_ns(&ts);
}

/* Waits with a relative timeout: WAIT(timeout) again for what is left on the program's clock while the time
 * slept grew during it (the stop ended the kernel's wait early, a real suspend does not). */
#define WAIT_AGAIN(ms_timeout, call)                                              \
    do {                                                                          \
        int64_t deadline_ = program_now() + (int64_t)(ms_timeout) * 1000000LL;    \
        int64_t slept_ = slept_ns();                                              \
        for (;;) {                                                                \
            int r_ = (call);                                                      \
            int64_t now_slept_ = slept_ns();                                      \
            if (r_ != 0 || now_slept_ == slept_) return r_;                       \
            slept_ = now_slept_;                                                  \
            int64_t left_ = deadline_ - program_now();                            \
            if (left_ <= 0) return 0;                                             \
            ms_timeout = (int)((left_ + 999999) / 1000000);                       \
        }                                                                         \
    } while (0)

int poll(struct pollfd *fds, nfds_t n, int timeout) {
    static int (*next)(struct pollfd *, nfds_t, int);
    if (!next) next = dlsym(RTLD_NEXT, "poll");
    if (!slept_page || timeout <= 0) return next(fds, n, timeout);
    WAIT_AGAIN(timeout, next(fds, n, timeout));
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout) {
    static int (*next)(int, struct epoll_event *, int, int);
    if (!next) next = dlsym(RTLD_NEXT, "epoll_wait");
    if (!slept_page || timeout <= 0) return next(epfd, events, max, timeout);
    WAIT_AGAIN(timeout, next(epfd, events, max, timeout));
}

int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout, const sigset_t *mask) {
    static int (*next)(int, struct epoll_event *, int, int, const sigset_t *);
    if (!next) next = dlsym(RTLD_NEXT, "epoll_pwait");
    if (!slept_page || timeout <= 0) return next(epfd, events, max, timeout, mask);
    WAIT_AGAIN(timeout, next(epfd, events, max, timeout, mask));
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask) {
    static int (*next)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
    if (!next) next = dlsym(RTLD_NEXT, "ppoll");
    if (!slept_page || !tmo || ts_ns(tmo) <= 0) return next(fds, n, tmo, mask);
    int64_t deadline = program_now() + ts_ns(tmo), slept = slept_ns();
    struct timespec t = *tmo;
    for (;;) {
        int r = next(fds, n, &t, mask);
        int64_t now_slept = slept_ns();
        if (r != 0 || now_slept == slept) return r;
        slept = now_slept;
        int64_t left = deadline - program_now();
        if (left <= 0) return 0;
        t = ns_ts(left);
    }
}

/* A relative sleep of `ns` on the program's clock through NEXT (nanosleep's signature). */
static int sleep_relative(int (*next)(const struct timespec *, struct timespec *), const struct timespec *req,
                          struct timespec *rem) {
    int64_t deadline = program_now() + ts_ns(req), slept = slept_ns();
    struct timespec t = *req;
    for (;;) {
        int r = next(&t, rem);
        int64_t now_slept = slept_ns();
        if (r != 0 || now_slept == slept) return r;
        slept = now_slept;
        int64_t left = deadline - program_now();
        if (left <= 0) return 0;
        t = ns_ts(left);
    }
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
    static int (*next)(const struct timespec *, struct timespec *);
    if (!next) next = dlsym(RTLD_NEXT, "nanosleep");
    if (!slept_page || !req) return next(req, rem);
    return sleep_relative(next, req, rem);
}

int usleep(useconds_t us) {
    static int (*next)(useconds_t);
    if (!next) next = dlsym(RTLD_NEXT, "usleep");
    if (!slept_page) return next(us);
    static int (*sleeper)(const struct timespec *, struct timespec *);
    if (!sleeper) sleeper = dlsym(RTLD_NEXT, "nanosleep");
    struct timespec t = ns_ts((int64_t)us * 1000);
    return sleep_relative(sleeper, &t, NULL);
}

int clock_nanosleep(clockid_t c, int flags, const struct timespec *req, struct timespec *rem) {
    static int (*next)(clockid_t, int, const struct timespec *, struct timespec *);
    if (!next) next = dlsym(RTLD_NEXT, "clock_nanosleep");
    if (!slept_page || !monotonic_clock(c) || !req) return next(c, flags, req, rem);
    int64_t deadline = (flags & TIMER_ABSTIME) ? ts_ns(req) : program_now() + ts_ns(req);
    for (;;) {
        int64_t slept = slept_ns();
        struct timespec t = ns_ts(deadline + slept);
        int r = next(c, flags | TIMER_ABSTIME, &t, NULL);
        if (r != 0) {
            if (r == EINTR && rem && !(flags & TIMER_ABSTIME)) *rem = ns_ts(deadline - program_now());
            return r;
        }
        if (slept_ns() == slept) return 0;
    }
}
