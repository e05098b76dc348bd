/*
 * nodes.c: /dev/iio:deviceN, held by one open file at a time.
 *
 * The node is held by one open file at a time, across every process that loads this library, as
 * iio_chrdev_open allows (drivers/iio/industrialio-core.c: test_and_set_bit(IIO_BUSY_BIT_POS) or -EBUSY): an
 * open while another descriptor (of this process or another, dup()ed or inherited ones counting as the same
 * open) has the node open fails with EBUSY; the node is free again when the last descriptor of that open goes.
 * The emulated node is the slave side of the testbed's PTY: an open takes flock(LOCK_EX | LOCK_NB) on it, which
 * goes with the last close; the feeder writes on the master side, a file of its own, and is never refused. Each
 * refusal is logged, with the pid of the program refused:
 *   open iio:device0 dev/iio:device0 EBUSY another descriptor has the node open (pid 1234)
 *
 * Enabling a buffer starts it empty: the core resets the kfifo when it sets the buffer up for the new scan
 * (iio_request_update_kfifo, kfifo_reset_out), so scans from before are never read. The emulated node is a PTY
 * that keeps whatever the feeder wrote while the buffer was off: discard_queued_scans drops it.
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

/* For each descriptor opened on /dev/iio:deviceN: 1 + the index of its device's name in node_devs, else 0. */
int node_fds[MAX_FDS];
char node_devs[MAX_DEVS][48];
static int nnode_devs;

/* The index of DEV in node_devs, added when new; -1 when full. Called with the lock held. */
static int node_index(const char *dev) {
    int i;
    for (i = 0; i < nnode_devs && strcmp(node_devs[i], dev); i++) {}
    if (i == nnode_devs) {
        if (nnode_devs == MAX_DEVS) return -1;
        snprintf(node_devs[nnode_devs], sizeof(node_devs[0]), "%s", dev);
        event_new_dev(nnode_devs);
        nnode_devs++;
    }
    return i;
}

/* Remembers FD as open on PATH's node when PATH is /dev/iio:deviceN; whether it is. */
int note_node(int fd, const char *path) {
    if (!root() || !path || strncmp(path, "/dev/iio:device", 15) || strlen(path + 5) >= sizeof(node_devs[0])) return 0;
    pthread_mutex_lock(&kernel_lock);
    int i = node_index(path + 5);
    if (i >= 0) node_fds[fd] = i + 1;
    pthread_mutex_unlock(&kernel_lock);
    return 1;
}

void node_forget(int fd) { node_fds[fd] = 0; }

/* The open of /dev/iio:deviceN that gave FD: the node's one open file, or, when another open file holds the
 * node, EBUSY (FD closed again, through the wrappers after ours so that umockdev forgets it too). Returns FD or
 * -1 with errno. */
int claim_node(int fd, const char *path) {
    if (fd < 0 || !root() || !path || strncmp(path, "/dev/iio:device", 15) || strchr(path + 5, '/')) return fd;
    if (syscall(SYS_flock, fd, LOCK_EX | LOCK_NB) == 0) return fd;
    int e = errno;
    if (e != EWOULDBLOCK) return fd;     /* a file that cannot be locked: leave it as umockdev made it */
    static int (*next_close)(int);
    if (!next_close) next_close = dlsym(RTLD_NEXT, "close");
    if (fd < MAX_FDS) {
        raw_forget(fd);
        node_forget(fd);
    }
    next_close(fd);
    logf_("open %s dev/%s EBUSY another descriptor has the node open (pid %d)", path + 5, path + 5, (int)getpid());
    errno = EBUSY;
    return -1;
}

/* Drops what the feeder queued on DEV's node from every descriptor this process has open on it. */
void discard_queued_scans(const char *dev) {
    pthread_mutex_lock(&kernel_lock);
    int i;
    for (i = 0; i < nnode_devs && strcmp(node_devs[i], dev); i++) {}
    for (int fd = 0; i < nnode_devs && fd < MAX_FDS; fd++) {
        if (node_fds[fd] != i + 1) continue;
        long flags = syscall(SYS_fcntl, fd, F_GETFL);
        if (flags < 0) continue;
        syscall(SYS_fcntl, fd, F_SETFL, flags | O_NONBLOCK);
        char scratch[4096];
        while (sys_read(fd, scratch, sizeof(scratch)) > 0) {}
        syscall(SYS_fcntl, fd, F_SETFL, flags);
    }
    pthread_mutex_unlock(&kernel_lock);
}
