/*
 * events.c: motion event descriptors, as iio_event_getfd hands them out (drivers/iio/industrialio-event.c).
 *
 * IIO_GET_EVENT_FD_IOCTL on a descriptor opened on /dev/iio:deviceN answers ENODEV for a device without events/,
 * EBUSY while another event descriptor of the device is open, else a new descriptor (O_RDONLY, O_CLOEXEC) from
 * which 16-byte struct iio_event_data records are read. It is the read end of the FIFO iio-events/DEV under the
 * testbed root, emptied when handed out (the kernel empties its queue); the library holds a write end of its own
 * while it is open, so reads wait instead of seeing an end of file. The feeder (umockdev-driver.py) opens the
 * FIFO to write the records the part raises; while no descriptor is open it cannot (ENXIO), as the kernel queues
 * events only while one is. Each request is logged as a write to the node:
 *   write iio:device0 dev/iio:device0 "IIO_GET_EVENT_FD_IOCTL" ok
 *   write iio:device0 dev/iio:device0 "IIO_GET_EVENT_FD_IOCTL" EBUSY another event descriptor is open
 *   write iio:device0 dev/iio:device0 "IIO_GET_EVENT_FD_IOCTL" ENODEV the device has no events
 * When the event descriptor closes, the device may hand out another, and the feeder can no longer write.
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/iio/events.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* For each event descriptor handed out: 1 + the index of its device in node_devs, else 0. */
static int event_fds[MAX_FDS];
/* Per device of node_devs: the event descriptor handed out (-1 when none) and the write end held beside it. */
static int event_reader[MAX_DEVS];
static int event_writer[MAX_DEVS];

/* The directory under the testbed root where event FIFOs and the power state live. */
void events_dir(char *out, size_t n) {
    snprintf(out, n, "%s/iio-events", root());
    (void)syscall(SYS_mkdirat, AT_FDCWD, out, 0777);
    (void)syscall(SYS_fchmodat, AT_FDCWD, out, 0777, 0);
}

/* Node device I is new: no event descriptor yet. */
void event_new_dev(int i) { event_reader[i] = event_writer[i] = -1; }

void event_forget(int fd) {
    if (!event_fds[fd]) return;
    pthread_mutex_lock(&kernel_lock);
    int i = event_fds[fd] - 1;
    event_fds[fd] = 0;
    if (event_reader[i] == fd) {
        sys_close(event_writer[i]);
        event_reader[i] = event_writer[i] = -1;
    }
    pthread_mutex_unlock(&kernel_lock);
}

/* Opens both ends of DEV's FIFO, non-blocking, into RD and WR: 0, or the errno (nothing left open). */
static int open_fifo(const char *path, int *rd, int *wr) {
    (void)syscall(SYS_mknodat, AT_FDCWD, path, S_IFIFO | 0666, 0);
    (void)syscall(SYS_fchmodat, AT_FDCWD, path, 0666, 0);
    *rd = sys_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
    *wr = *rd < 0 ? -1 : sys_open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0);
    if (*rd >= 0 && *wr >= 0 && *rd < MAX_FDS) return 0;
    int e = errno ? errno : EMFILE;
    if (*rd >= 0) sys_close(*rd);
    if (*wr >= 0) sys_close(*wr);
    return e;
}

/* IIO_GET_EVENT_FD_IOCTL for node device `i`: the event descriptor, or -1 with errno. */
static int event_fd(int i) {
    const char *dev = node_devs[i];
    char path[1200], dir[1024];
    testbed_path(path, sizeof(path), dev, "events");
    struct stat st;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0 || !S_ISDIR(st.st_mode)) {
        logf_("write %s dev/%s \"IIO_GET_EVENT_FD_IOCTL\" ENODEV the device has no events", dev, dev);
        errno = ENODEV;
        return -1;
    }
    if (event_reader[i] >= 0) {
        logf_("write %s dev/%s \"IIO_GET_EVENT_FD_IOCTL\" EBUSY another event descriptor is open", dev, dev);
        errno = EBUSY;
        return -1;
    }
    events_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/%s", dir, dev);
    int rd, wr, e = open_fifo(path, &rd, &wr);
    if (e) {
        logf_("write %s dev/%s \"IIO_GET_EVENT_FD_IOCTL\" %s the FIFO %s cannot be opened", dev, dev, strerror(e), path);
        errno = e;
        return -1;
    }
    char junk[256];
    while (sys_read(rd, junk, sizeof(junk)) > 0) {}
    long flags = syscall(SYS_fcntl, rd, F_GETFL);
    (void)syscall(SYS_fcntl, rd, F_SETFL, flags & ~O_NONBLOCK);
    event_reader[i] = rd;
    event_writer[i] = wr;
    event_fds[rd] = i + 1;
    logf_("write %s dev/%s \"IIO_GET_EVENT_FD_IOCTL\" ok", dev, dev);
    return rd;
}

int ioctl(int fd, unsigned long request, ...) {
    static int (*next)(int, unsigned long, ...);
    if (!next) next = dlsym(RTLD_NEXT, "ioctl");
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (request == IIO_GET_EVENT_FD_IOCTL && fd >= 0 && fd < MAX_FDS && node_fds[fd] && root()) {
        pthread_mutex_lock(&kernel_lock);
        int rd = event_fd(node_fds[fd] - 1);
        int e = errno;
        pthread_mutex_unlock(&kernel_lock);
        if (rd < 0) {
            errno = e;
            return -1;
        }
        *(int *)arg = rd;
        return 0;
    }
    return next(fd, request, arg);
}
