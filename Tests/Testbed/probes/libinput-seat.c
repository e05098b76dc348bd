/*
 * libinput-seat: the desktop's view of the input devices, through the real libinput on its udev backend, as a
 * compositor has it: seat0's devices added and removed as udev announces them, libinput's own debug log (its
 * tablet-mode switch pairing, and the keyboard suspended and resumed), each node libinput opens and closes (the
 * open_restricted and close_restricted a compositor gives it: libinput closes a suspended keyboard's node and
 * opens it again when it resumes it), the switches' toggles and the keys typed. One line each on stdout:
 *
 *   ready
 *   added event0 AT Translated Set 2 keyboard
 *   open /dev/input/event0
 *   close /dev/input/event0
 *   log: event0  - tablet-mode: suspending device
 *   switch event3 tablet-mode 1
 *   key event0 30 pressed
 *   removed event3 rotationd tablet-mode switch
 *
 * Runs until it is ended (SIGTERM). Built by the test bed (testbed/desktop.py) with libinput's and libudev's
 * headers; run under the emulated kernel, which gives libudev the test bed's udev database.
 */
#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <libudev.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_FDS 1024

/* The node each descriptor libinput asked for was opened on, for the close line. */
static char opened[MAX_FDS][64];

static int open_restricted(const char *path, int flags, void *data) {
    (void)data;
    int fd = open(path, flags);
    if (fd < 0) {
        printf("open %s failed: %s\n", path, strerror(errno));
        return -errno;
    }
    if (fd < MAX_FDS) snprintf(opened[fd], sizeof opened[fd], "%s", path);
    printf("open %s\n", path);
    return fd;
}

static void close_restricted(int fd, void *data) {
    (void)data;
    printf("close %s\n", fd >= 0 && fd < MAX_FDS ? opened[fd] : "?");
    close(fd);
}

static const struct libinput_interface interface = {open_restricted, close_restricted};

static void log_line(struct libinput *li, enum libinput_log_priority priority, const char *format, va_list args) {
    (void)li;
    (void)priority;
    char text[512];
    vsnprintf(text, sizeof text, format, args);
    text[strcspn(text, "\n")] = 0;
    printf("log: %s\n", text);
}

static const char *switch_name(enum libinput_switch sw) {
    return sw == LIBINPUT_SWITCH_TABLET_MODE ? "tablet-mode" : sw == LIBINPUT_SWITCH_LID ? "lid" : "other";
}

/* Prints one event of libinput's. */
static void print_event(struct libinput_event *event) {
    struct libinput_device *device = libinput_event_get_device(event);
    const char *sysname = libinput_device_get_sysname(device);
    switch (libinput_event_get_type(event)) {
    case LIBINPUT_EVENT_DEVICE_ADDED:
        printf("added %s %s\n", sysname, libinput_device_get_name(device));
        break;
    case LIBINPUT_EVENT_DEVICE_REMOVED:
        printf("removed %s %s\n", sysname, libinput_device_get_name(device));
        break;
    case LIBINPUT_EVENT_SWITCH_TOGGLE: {
        struct libinput_event_switch *sw = libinput_event_get_switch_event(event);
        printf("switch %s %s %d\n", sysname, switch_name(libinput_event_switch_get_switch(sw)),
               libinput_event_switch_get_switch_state(sw) == LIBINPUT_SWITCH_STATE_ON);
        break;
    }
    case LIBINPUT_EVENT_KEYBOARD_KEY: {
        struct libinput_event_keyboard *key = libinput_event_get_keyboard_event(event);
        printf("key %s %u %s\n", sysname, libinput_event_keyboard_get_key(key),
               libinput_event_keyboard_get_key_state(key) == LIBINPUT_KEY_STATE_PRESSED ? "pressed" : "released");
        break;
    }
    default:
        break;
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct udev *udev = udev_new();
    struct libinput *li = udev ? libinput_udev_create_context(&interface, NULL, udev) : NULL;
    if (!li) {
        fprintf(stderr, "libinput-seat: cannot make a libinput context\n");
        return 2;
    }
    libinput_log_set_handler(li, log_line);
    libinput_log_set_priority(li, LIBINPUT_LOG_PRIORITY_DEBUG);
    if (libinput_udev_assign_seat(li, "seat0") != 0) {
        fprintf(stderr, "libinput-seat: cannot assign seat0\n");
        return 2;
    }
    struct pollfd ready = {libinput_get_fd(li), POLLIN, 0};
    int announced = 0;
    for (;;) {
        libinput_dispatch(li);
        struct libinput_event *event;
        while ((event = libinput_get_event(li))) {
            print_event(event);
            libinput_event_destroy(event);
        }
        if (!announced) {
            printf("ready\n");
            announced = 1;
        }
        if (poll(&ready, 1, -1) < 0 && errno != EINTR) return 1;
    }
}
