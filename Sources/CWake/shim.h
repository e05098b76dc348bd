#ifndef ROTATIOND_CWAKE_SHIM_H
#define ROTATIOND_CWAKE_SHIM_H
/* Learning that the system resumed from suspend, without D-Bus: a CLOCK_REALTIME timerfd armed with
 * TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET is cancelled whenever the realtime clock is set, which the kernel
 * does on every resume (timerfd_resume(), Linux 5.15; clock_was_set() before): it becomes readable and read()
 * fails with ECANCELED. Glibc's Swift module does not import <sys/timerfd.h>, so the calls live here. */
#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Arms `fd` ten years ahead: only its cancellation matters. 0, or -1 with errno. */
static inline int rotationd_wake_timer_arm(int fd) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return -1;
    struct itimerspec spec = {{0, 0}, {now.tv_sec + 10 * 365 * 86400L, 0}};
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

/* Disarms `fd`: clock changes no longer cancel it. */
static inline int rotationd_wake_timer_disarm(int fd) {
    struct itimerspec spec = {{0, 0}, {0, 0}};
    return timerfd_settime(fd, 0, &spec, NULL);
}

/* A new armed timer (non-blocking, close-on-exec), or -1 with errno. */
static inline int rotationd_wake_timer(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return -1;
    if (rotationd_wake_timer_arm(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Reads the timer: 1 when it was cancelled (the clock was set: a resume, or a change of the time), 0 when
 * nothing is waiting, -1 with errno on another error. */
static inline int rotationd_wake_timer_read(int fd) {
    uint64_t expirations;
    if (read(fd, &expirations, sizeof expirations) >= 0) return 0;
    if (errno == ECANCELED) return 1;
    return errno == EAGAIN ? 0 : -1;
}
#endif
