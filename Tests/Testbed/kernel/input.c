/*
 * input.c: input devices as the desktop's libinput finds them through udev and evdev.
 *
 * udev's database: libudev counts a device as set up by udev ("initialized") only when it has an entry in
 * /run/udev/data (c13:N for /dev/input/eventN), which udevd writes after running its rules; libinput skips a
 * device without one ("skip unconfigured input device"). umockdev emulates /sys and /dev, not /run: an open of
 * /run/udev/data/... goes to the same path under the testbed root, where the driver writes the entries of the
 * input devices udev would have set up (the emulated keyboard, a device made through the emulated uinput). A
 * device without an entry there has none, as on a machine where udevd has not seen it. The open wrappers (fds.c,
 * and fopen's in sysfs.c) map the path.
 *
 * fstat of an evdev node: libinput checks that the node it opened is the device udev named, by the device
 * number fstat gives. umockdev's node is a PTY, and umockdev answers stat(), not fstat(), with the emulated
 * device's number: fstat of a descriptor opened on /dev/input/eventN answers as stat of that path.
 *
 * A device gone: evdev hands a reader nothing once its device is unregistered, whatever was queued for it
 * (evdev_read fails with -ENODEV while !evdev->exist, before it looks at the queue). read() of a descriptor
 * opened on /dev/input/eventN fails with ENODEV once the device is gone from the testbed (its
 * /sys/class/input/eventN no longer leads anywhere).
 */
#include "kernel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UDEV_DATA "/run/udev/data/"

/* For each descriptor opened on /dev/input/eventN: the node's name (eventN), else empty. */
static char input_nodes[MAX_FDS][16];

const char *udev_data_path(const char *path, char *buf, size_t n) {
    if (!root() || !path || strncmp(path, UDEV_DATA, strlen(UDEV_DATA))) return path;
    snprintf(buf, n, "%s%s", root(), path);
    return buf;
}

void note_input(int fd, const char *path) {
    if (fd < 0 || fd >= MAX_FDS) return;
    input_nodes[fd][0] = 0;
    if (root() && path && !strncmp(path, "/dev/input/event", 16) && strlen(path + 11) < sizeof(input_nodes[0]))
        snprintf(input_nodes[fd], sizeof(input_nodes[0]), "%s", path + 11);
}

void input_forget(int fd) {
    if (fd >= 0 && fd < MAX_FDS) input_nodes[fd][0] = 0;
}

int input_gone(int fd) {
    if (fd < 0 || fd >= MAX_FDS || !input_nodes[fd][0]) return 0;
    char path[1024];
    struct stat st;
    snprintf(path, sizeof(path), "%s/sys/class/input/%s", root(), input_nodes[fd]);
    return syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0;
}

#define FSTAT_WRAPPER(name, type)                                                 \
    int name(int fd, struct type *st) {                                           \
        static int (*next)(int, struct type *);                                   \
        if (!next) next = dlsym(RTLD_NEXT, #name);                                \
        if (fd >= 0 && fd < MAX_FDS && input_nodes[fd][0]) {                      \
            char path[32];                                                        \
            snprintf(path, sizeof(path), "/dev/input/%s", input_nodes[fd]);       \
            return stat(path, (struct stat *)st);                                 \
        }                                                                         \
        return next(fd, st);                                                      \
    }
FSTAT_WRAPPER(fstat, stat)
FSTAT_WRAPPER(fstat64, stat64)
