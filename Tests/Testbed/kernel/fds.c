/*
 * fds.c: open, open64, openat and close, where the modules learn of the descriptors they answer for.
 *
 * An open of udev's database goes under the testbed root, an open of /dev/input/eventN is remembered (input.c).
 * An open of /proc/self/smaps takes its time (reads.c); an open of /dev/iio:deviceN claims the node or fails
 * with EBUSY (nodes.c); the descriptor is then remembered as a node's (nodes.c) or as an in_*_raw file's
 * (reads.c). A close forgets it everywhere: raw file, node, timerfd (timerfd.c) and event descriptor (events.c),
 * before the close goes on to umockdev's wrapper and the kernel.
 */
#include "kernel.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

/* What the modules keep for FD, just opened on PATH. */
static int opened(int fd, const char *path) {
    fd = claim_node(fd, path);
    if (fd < 0 || fd >= MAX_FDS) return fd;
    raw_forget(fd);
    node_forget(fd);
    note_input(fd, path);
    if (!note_node(fd, path)) note_raw(fd, path);
    return fd;
}

#define OPEN_WRAPPER(name)                                                        \
    int name(const char *path, int flags, ...) {                                  \
        static int (*next)(const char *, int, ...);                               \
        if (!next) next = dlsym(RTLD_NEXT, #name);                                \
        mode_t mode = 0;                                                          \
        if (flags & (O_CREAT | O_TMPFILE)) {                                      \
            va_list ap;                                                           \
            va_start(ap, flags);                                                  \
            mode = va_arg(ap, mode_t);                                            \
            va_end(ap);                                                           \
        }                                                                         \
        slow_smaps(path);                                                         \
        char buf[1024];                                                           \
        return opened(next(udev_data_path(path, buf, sizeof(buf)), flags, mode), path); \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

int openat(int dirfd, const char *path, int flags, ...) {
    static int (*next)(int, const char *, int, ...);
    if (!next) next = dlsym(RTLD_NEXT, "openat");
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    slow_smaps(path);
    char buf[1024];
    return opened(next(dirfd, udev_data_path(path, buf, sizeof(buf)), flags, mode), path);
}

int close(int fd) {
    static int (*next)(int);
    if (!next) next = dlsym(RTLD_NEXT, "close");
    if (fd >= 0 && fd < MAX_FDS) {
        raw_forget(fd);
        node_forget(fd);
        timerfd_forget(fd);
        event_forget(fd);
        input_forget(fd);
    }
    return next(fd);
}
