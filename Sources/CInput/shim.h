#ifndef ROTATIOND_CINPUT_SHIM_H
#define ROTATIOND_CINPUT_SHIM_H
/* The kernel's input devices: the tablet-mode and lid switches read through evdev, and one readiness descriptor
 * over several of them. EVIOCGSW is a function-like macro and <sys/epoll.h> is not in Glibc's Swift module, so
 * the calls live here. */
#include <stddef.h>
#include <linux/input.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>

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
#endif
