#ifndef ROTATIOND_CFAILSAFE_SHIM_H
#define ROTATIOND_CFAILSAFE_SHIM_H
/* The tablet-mode switch's last word when rotationd dies of a signal: an async-signal-safe handler that turns
 * the switch off (SW_TABLET_MODE 0 and its SYN_REPORT, pre-built, one write() to the uinput descriptor) and
 * waits for the desktop to read it before the process goes on to die as it would have.
 *
 * libinput suspends the internal keyboard while a tablet-mode switch reads 1 and resumes it only on that
 * switch's own 0 event: a switch that disappears reading 1 leaves the keyboard dead (Docs/posture.md). The
 * kernel's evdev hands a reader no event once the device is gone (evdev_read fails with ENODEV as soon as the
 * device is unregistered), so the 0 must be read while the device is still there: the handler keeps it for a
 * grace period, with the descriptor the other threads write through pointed at /dev/null meanwhile, so that
 * none turns the switch back on.
 *
 * The state below is static (each with an initializer, so that Swift's importer emits it) and read by the
 * handler without locks: include this header from one Swift file only (FailSafeSignals.swift), so that there is
 * one copy of it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The size of each alternate signal stack, enough for the handler and the one it hands the signal on to. */
#define ROTATIOND_FAILSAFE_STACK_SIZE (128 * 1024)
#define ROTATIOND_FAILSAFE_SIGNALS 65

/* What the handler reads without locks: the uinput descriptor of the switch, or -1; whether the switch may read
 * 1; the journal's descriptor and the line recording the 0; /dev/null, put in the uinput descriptor's place while
 * the handler waits; how long it waits; the 0 and its report; the actions it replaced. */
struct rotationd_failsafe {
    int uinput;
    int on;
    int journal;
    char line[512];
    size_t line_size;
    int null;
    long grace_ns;
    struct input_event off[2];
    struct sigaction previous[ROTATIOND_FAILSAFE_SIGNALS];
    pthread_key_t stack_key;
};

/* The one state (a function's static, which Swift's importer emits with the function). */
static inline struct rotationd_failsafe *rotationd_failsafe_state(void) {
    static struct rotationd_failsafe state = {.uinput = -1, .journal = -1, .null = -1};
    return &state;
}

/* Turns the switch off (once, whichever thread gets here first), then hands the signal on to the handler that
 * was there before (the Swift runtime's backtracer, which prints the crash's backtrace; a sanitizer's report),
 * called as the kernel would have called it, and last to the default action: raised again, blocked until this
 * handler returns, it then ends the process, with its core, as systemd expects of a crash (the backtracer alone
 * lets a process sent SIGSEGV by kill() run on). */
static inline void rotationd_failsafe_handler(int sig, siginfo_t *info, void *context) {
    int saved = errno;
    struct rotationd_failsafe *f = rotationd_failsafe_state();
    int fd = __atomic_load_n(&f->uinput, __ATOMIC_ACQUIRE);
    if (fd >= 0 && __atomic_exchange_n(&f->on, 0, __ATOMIC_ACQ_REL)) {
        (void)!write(fd, f->off, sizeof f->off);
        int journal = __atomic_load_n(&f->journal, __ATOMIC_ACQUIRE);
        if (journal >= 0) (void)!write(journal, f->line, f->line_size);
        /* The device stays while this copy is open (close-on-exec: not handed to a backtracer the handler
         * before spawns); the threads still running write to /dev/null. */
        if (fcntl(fd, F_DUPFD_CLOEXEC, 0) >= 0 && f->null >= 0) (void)dup3(f->null, fd, O_CLOEXEC);
        struct timespec grace = {f->grace_ns / 1000000000L, f->grace_ns % 1000000000L};
        while (nanosleep(&grace, &grace) != 0 && errno == EINTR) {}
    }
    struct sigaction previous = f->previous[sig];
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
        else previous.sa_handler(sig);
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, NULL);
    raise(sig);
    errno = saved;
}

/* Frees a thread's alternate signal stack as it ends. */
static inline void rotationd_failsafe_free_stack(void *stack) {
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    munmap(stack, ROTATIOND_FAILSAFE_STACK_SIZE);
}

/* Gives the calling thread an alternate signal stack unless it has one (a sanitizer's, the Swift runtime's), so
 * that a stack overflow is handled too: 0, or -1 with errno. */
static inline int rotationd_failsafe_thread_stack(void) {
    struct rotationd_failsafe *f = rotationd_failsafe_state();
    stack_t current;
    if (sigaltstack(NULL, &current) != 0) return -1;
    if (!(current.ss_flags & SS_DISABLE)) return 0;
    void *stack = mmap(NULL, ROTATIOND_FAILSAFE_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) return -1;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = stack;
    ss.ss_size = ROTATIOND_FAILSAFE_STACK_SIZE;
    if (sigaltstack(&ss, NULL) != 0) {
        int e = errno;
        munmap(stack, ROTATIOND_FAILSAFE_STACK_SIZE);
        errno = e;
        return -1;
    }
    pthread_setspecific(f->stack_key, stack);
    return 0;
}

/* Installs the handler for the `count` signals in `signals` (SA_SIGINFO | SA_ONSTACK | SA_RESETHAND), keeping
 * the actions it replaces, and gives the calling thread an alternate stack; `grace_ns` is how long the handler
 * keeps the device after its 0. 0, or -1 with errno from the step that failed. Call once. */
static inline int rotationd_failsafe_install(const int *signals, int count, long grace_ns) {
    struct rotationd_failsafe *f = rotationd_failsafe_state();
    memset(f->off, 0, sizeof f->off);
    f->off[0].type = EV_SW;
    f->off[0].code = SW_TABLET_MODE;
    f->off[0].value = 0;
    f->off[1].type = EV_SYN;
    f->off[1].code = SYN_REPORT;
    f->grace_ns = grace_ns;
    f->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (pthread_key_create(&f->stack_key, rotationd_failsafe_free_stack) != 0) return -1;
    if (rotationd_failsafe_thread_stack() != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = rotationd_failsafe_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) {
        if (signals[i] <= 0 || signals[i] >= ROTATIOND_FAILSAFE_SIGNALS) continue;
        if (sigaction(signals[i], &action, &f->previous[signals[i]]) != 0) return -1;
    }
    return 0;
}

/* Unblocks the `count` signals in `signals` in the calling thread (and the threads it starts after): a crash
 * signal that a parent left blocked would be held off by kill(), and a fault's would bypass the handler. */
static inline int rotationd_failsafe_unblock(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Arms the handler for the switch on the uinput descriptor `fd`, and the journal's descriptor with the `size`
 * bytes of `line` recording its 0 (`journal` -1 for none); `fd` -1 disarms it. */
static inline void rotationd_failsafe_arm(int fd, int journal, const char *line, size_t size) {
    struct rotationd_failsafe *f = rotationd_failsafe_state();
    __atomic_store_n(&f->uinput, -1, __ATOMIC_RELEASE);
    __atomic_store_n(&f->journal, -1, __ATOMIC_RELEASE);
    if (size > sizeof f->line) size = 0;
    if (line && size) memcpy(f->line, line, size);
    f->line_size = size;
    __atomic_store_n(&f->journal, journal, __ATOMIC_RELEASE);
    __atomic_store_n(&f->uinput, fd, __ATOMIC_RELEASE);
}

/* Tells the handler whether the switch may read 1: set before a 1 is written, cleared after a 0 is. */
static inline void rotationd_failsafe_set_on(int on) {
    __atomic_store_n(&rotationd_failsafe_state()->on, on ? 1 : 0, __ATOMIC_RELEASE);
}
#endif
