/*
 * timerfd.c: timerfds across an emulated suspend (clocks.c says how the time slept is kept), and the resume.
 *
 * While the IIO_KERNEL_SLEEP file holds D:
 *   - timerfd_settime of a CLOCK_MONOTONIC timerfd with TFD_TIMER_ABSTIME arms it at the program's time + D;
 *     at a resume, an armed CLOCK_MONOTONIC timerfd that had not expired before the stop is armed again at its
 *     deadline on the program's clock (the kernel's expired during the stop);
 *   - a CLOCK_REALTIME timerfd armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET is cancelled at a resume,
 *     as the kernel's timerfd_resume() cancels it: it becomes readable (poll, epoll) and the next read() fails
 *     with ECANCELED, once; the timer stays armed as it was (timerfd_settime clears a pending cancel). The
 *     kernel's timer is armed without TFD_TIMER_CANCEL_ON_SET: the emulated tablet sets no clock, and the steps
 *     of the machine the tests run on (a virtual machine may set its realtime clock ten times a second) are
 *     not its own.
 * The resume itself reaches the program through a FIFO, resume-PID beside the slept file, which the library
 * creates and reads from a thread of its own (named iio-kernel-rsm) started with the first such timerfd; the
 * driver writes a byte into every resume-* FIFO before SIGCONT. Each cancellation is logged:
 *   resume timerfd 9 CLOCK_REALTIME TFD_TIMER_CANCEL_ON_SET cancelled, after 3.001 s asleep
 * and so is a FIFO that cannot be opened:
 *   resume FIFO PATH cannot be opened: REASON
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

static int (*real_timerfd_settime)(int, int, const struct itimerspec *, struct itimerspec *);
static pthread_mutex_t tlock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_once_t resume_once = PTHREAD_ONCE_INIT;
/* Per descriptor created by timerfd_create: 1 + its clock; whether it is armed to be cancelled at a resume, and
 * how (to arm it again as it was once the cancel is read); whether a cancel is pending; for a CLOCK_MONOTONIC one,
 * its deadline on the program's clock (ns, 0 when disarmed) and interval. */
static unsigned char tfd_clock[MAX_FDS];
static unsigned char tfd_cancel[MAX_FDS];
static volatile unsigned char tfd_cancelled[MAX_FDS];
static int tfd_flags[MAX_FDS];
static struct itimerspec tfd_spec[MAX_FDS];
static int64_t tfd_deadline[MAX_FDS];
static int64_t tfd_interval[MAX_FDS];

static int kernel_settime(int fd, int flags, const struct itimerspec *v, struct itimerspec *old) {
    if (!real_timerfd_settime) real_timerfd_settime = dlsym(RTLD_NEXT, "timerfd_settime");
    return real_timerfd_settime(fd, flags, v, old);
}

/* Timerfd FD at a resume: the stop, on the kernel's clock, began at STOPPED; slept BEFORE before it, AFTER after. */
static void resume_timer(int fd, int64_t before, int64_t after, int64_t stopped) {
    if (tfd_cancel[fd]) {
        /* Readable now: an expiry in 1 ns, which the read that follows takes for the cancel. */
        struct itimerspec soon = {{0, 0}, {0, 1}};
        tfd_cancelled[fd] = 1;
        kernel_settime(fd, 0, &soon, NULL);
        logf_("resume timerfd %d CLOCK_REALTIME TFD_TIMER_CANCEL_ON_SET cancelled, after %.3f s asleep", fd,
              (after - before) / 1e9);
    } else if (tfd_clock[fd] - 1 == CLOCK_MONOTONIC && tfd_deadline[fd]) {
        int64_t deadline = tfd_deadline[fd];
        if (deadline + before <= stopped && !tfd_interval[fd]) return;  /* expired before the stop */
        while (tfd_interval[fd] && deadline + before <= stopped) deadline += tfd_interval[fd];
        tfd_deadline[fd] = deadline;
        struct itimerspec again = {ns_ts(tfd_interval[fd]), ns_ts(deadline + after)};
        kernel_settime(fd, TFD_TIMER_ABSTIME, &again, NULL);
    }
}

static void resume(int64_t before, int64_t after) {
    struct timespec k;
    kernel_clock(CLOCK_MONOTONIC, &k);
    /* When the stop began, on the kernel's clock: the time slept grew by the stop's length. */
    int64_t stopped = ts_ns(&k) - (after - before);
    pthread_mutex_lock(&tlock);
    for (int fd = 0; fd < MAX_FDS; fd++)
        if (tfd_clock[fd]) resume_timer(fd, before, after, stopped);
    pthread_mutex_unlock(&tlock);
}

/* The thread that hears of resumes: reads the FIFO resume-PID, written by the driver before SIGCONT. */
static void *resume_watch(void *arg) {
    int fd = (int)(long)arg;
    (void)prctl(PR_SET_NAME, "iio-kernel-rsm", 0, 0, 0);
    int64_t before = slept_ns();
    char bytes[64];
    for (;;) {
        ssize_t n = sys_read(fd, bytes, sizeof(bytes));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return NULL;
        int64_t after = slept_ns();
        resume(before, after);
        before = after;
    }
}

static void start_resume_watch(void) {
    char path[1200];
    snprintf(path, sizeof(path), "%s/resume-%d", slept_dir, (int)getpid());
    (void)syscall(SYS_mknodat, AT_FDCWD, path, S_IFIFO | 0666, 0);
    (void)syscall(SYS_fchmodat, AT_FDCWD, path, 0666, 0);
    /* Read and write: the FIFO never reads an end of file, and the driver's writes never find it without a reader. */
    int fd = sys_open(path, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        logf_("resume FIFO %s cannot be opened: %s", path, strerror(errno));
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    if (pthread_create(&t, NULL, resume_watch, (void *)(long)fd) == 0) pthread_detach(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int timerfd_create(int c, int flags) {
    static int (*next)(int, int);
    if (!next) next = dlsym(RTLD_NEXT, "timerfd_create");
    int fd = next(c, flags);
    if (fd >= 0 && fd < MAX_FDS) {
        pthread_mutex_lock(&tlock);
        tfd_clock[fd] = (unsigned char)(c + 1);
        tfd_cancel[fd] = tfd_cancelled[fd] = 0;
        tfd_deadline[fd] = tfd_interval[fd] = 0;
        pthread_mutex_unlock(&tlock);
    }
    return fd;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *v, struct itimerspec *old) {
    if (!slept_page || fd < 0 || fd >= MAX_FDS || !tfd_clock[fd] || !v) return kernel_settime(fd, flags, v, old);
    clockid_t c = tfd_clock[fd] - 1;
    struct itimerspec armed = *v;
    int on = v->it_value.tv_sec || v->it_value.tv_nsec;
    int watch = 0;
    pthread_mutex_lock(&tlock);
    tfd_cancelled[fd] = 0;
    tfd_cancel[fd] = c == CLOCK_REALTIME && (flags & TFD_TIMER_ABSTIME) && (flags & TFD_TIMER_CANCEL_ON_SET);
    if (tfd_cancel[fd]) {
        tfd_flags[fd] = flags;
        tfd_spec[fd] = *v;
        watch = 1;
    }
    if (c == CLOCK_MONOTONIC) {
        tfd_deadline[fd] = on ? ((flags & TFD_TIMER_ABSTIME) ? ts_ns(&v->it_value) : program_now() + ts_ns(&v->it_value)) : 0;
        tfd_interval[fd] = ts_ns(&v->it_interval);
        if (on && (flags & TFD_TIMER_ABSTIME)) armed.it_value = ns_ts(tfd_deadline[fd] + slept_ns());
        watch = on;
    }
    /* The machine's own clock steps do not reach the emulated tablet: some virtual machines set the realtime
     * clock ten times a second, which a tablet does not, and each step would cancel the timer. Only the emulated
     * resume cancels it. */
    int r = kernel_settime(fd, tfd_cancel[fd] ? flags & ~TFD_TIMER_CANCEL_ON_SET : flags, &armed, old);
    pthread_mutex_unlock(&tlock);
    if (watch) pthread_once(&resume_once, start_resume_watch);
    return r;
}

void timerfd_forget(int fd) {
    if (!tfd_clock[fd]) return;
    pthread_mutex_lock(&tlock);
    tfd_clock[fd] = tfd_cancel[fd] = tfd_cancelled[fd] = 0;
    tfd_deadline[fd] = tfd_interval[fd] = 0;
    pthread_mutex_unlock(&tlock);
}

int timerfd_cancel_pending(int fd) { return fd >= 0 && fd < MAX_FDS && tfd_cancelled[fd]; }

/* A read of a timerfd a resume cancelled: takes the 1 ns expiry that made it readable (unless the read already
 * did, GOT > 0), arms the timer again as the program armed it, and fails with ECANCELED. */
ssize_t timerfd_read_cancelled(int fd, ssize_t got) {
    pthread_mutex_lock(&tlock);
    if (!tfd_cancelled[fd]) {
        pthread_mutex_unlock(&tlock);
        return got;
    }
    tfd_cancelled[fd] = 0;
    if (got <= 0) {
        struct pollfd p = {fd, POLLIN, 0};
        struct timespec wait = {0, 100000000};
        if (syscall(SYS_ppoll, &p, 1, &wait, NULL, 0) > 0) {
            uint64_t ticks;
            (void)sys_read(fd, &ticks, sizeof(ticks));
        }
    }
    kernel_settime(fd, tfd_flags[fd] & ~TFD_TIMER_CANCEL_ON_SET, &tfd_spec[fd], NULL);
    pthread_mutex_unlock(&tlock);
    errno = ECANCELED;
    return -1;
}
