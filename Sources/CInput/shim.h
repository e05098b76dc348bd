#ifndef ROTATIOND_CINPUT_SHIM_H
#define ROTATIOND_CINPUT_SHIM_H
/* The kernel's input devices: the tablet-mode and lid switches read through evdev, one readiness descriptor
 * over several of them, and a tablet-mode switch of rotationd's own made through uinput. EVIOCGSW is a
 * function-like macro, ioctl is variadic and <sys/epoll.h> is not in Glibc's Swift module, so the calls live
 * here. */
#include <stddef.h>
#include <string.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The switch states of the evdev node `fd` into `bits` (`size` bytes, bit N for switch code N): the ioctl's
 * result, -1 with errno on failure. */
static inline int rotationd_input_switch_states(int fd, unsigned char *bits, unsigned size) {
    return ioctl(fd, EVIOCGSW(size), bits);
}

/* A new epoll descriptor (close-on-exec), or -1 with errno. */
static inline int rotationd_readiness_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* Adds `fd` to `ep` for input: 0, or -1 with errno. */
static inline int rotationd_readiness_add(int ep, int fd) {
    struct epoll_event ev = {.events = EPOLLIN, .data = {.fd = fd}};
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Removes `fd` from `ep`: 0, or -1 with errno. */
static inline int rotationd_readiness_remove(int ep, int fd) { return epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL); }

/* Declares the uinput device being set up on `fd` (an open /dev/uinput) as reporting the one switch `code`
 * (EV_SW), named `name` on the virtual bus: 0, or -1 with errno from the ioctl that failed, which `*failed`
 * then gives as 0 (UI_SET_EVBIT), 1 (UI_SET_SWBIT) or 2 (UI_DEV_SETUP). */
static inline int rotationd_uinput_setup_switch(int fd, const char *name, int code, int *failed) {
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    *failed = 0;
    if (ioctl(fd, UI_SET_EVBIT, EV_SW) < 0) return -1;
    *failed = 1;
    if (ioctl(fd, UI_SET_SWBIT, code) < 0) return -1;
    *failed = 2;
    return ioctl(fd, UI_DEV_SETUP, &setup);
}

/* Registers the input device set up on `fd` (UI_DEV_CREATE): 0, or -1 with errno. */
static inline int rotationd_uinput_create(int fd) { return ioctl(fd, UI_DEV_CREATE); }

/* Unregisters it (UI_DEV_DESTROY): 0, or -1 with errno. */
static inline int rotationd_uinput_destroy(int fd) { return ioctl(fd, UI_DEV_DESTROY); }

/* Writes switch `code`'s new `value` and the report that ends it (EV_SW, then EV_SYN SYN_REPORT) to the uinput
 * device `fd` in one write, as evdev hands the pair to its readers: the bytes written, or -1 with errno. */
static inline long rotationd_uinput_report_switch(int fd, int code, int value) {
    struct input_event events[2];
    memset(events, 0, sizeof events);
    events[0].type = EV_SW;
    events[0].code = (unsigned short)code;
    events[0].value = value;
    events[1].type = EV_SYN;
    events[1].code = SYN_REPORT;
    return write(fd, events, sizeof events);
}
#endif
