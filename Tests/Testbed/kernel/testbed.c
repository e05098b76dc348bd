/*
 * testbed.c: the testbed's files, as the other modules read and replace them.
 *
 * The emulated sysfs is umockdev's: a tree of plain files under UMOCKDEV_DIR. Attributes are read and replaced
 * here with plain system calls (never through umockdev's wrappers or this library's own), the way a driver's
 * show and store functions see their values: text without its trailing newline, numbers printed as the show
 * function prints them.
 *
 * The log: every write, refusal, slow read and resume is appended to the file named by IIO_KERNEL_LOG, one line
 * each (kernel.h lists the formats; umockdev-driver.py parses them).
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

pthread_mutex_t kernel_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int sys_open(const char *path, int flags, mode_t mode) { return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode); }
ssize_t sys_read(int fd, void *buf, size_t n) { return syscall(SYS_read, fd, buf, n); }
ssize_t sys_write(int fd, const void *buf, size_t n) { return syscall(SYS_write, fd, buf, n); }
int sys_close(int fd) { return (int)syscall(SYS_close, fd); }

const char *root(void) { return getenv("UMOCKDEV_DIR"); }

void logf_(const char *fmt, ...) {
    const char *path = getenv("IIO_KERNEL_LOG");
    if (!path) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof(line) - 2) n = sizeof(line) - 2;
    line[n++] = '\n';
    int fd = sys_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return;
    (void)sys_write(fd, line, n);
    sys_close(fd);
}

/* Splits "/sys/bus/iio/devices/iio:device0/buffer/length" into its device and attribute; only IIO devices
 * (not triggers) are governed. The same files reached through the device's own directory, as udev names it
 * ("/sys/devices/.../iio:device0/buffer/length", the path iio-sensor-proxy writes through), are the same
 * attributes. */
int split(const char *path, char *dev, size_t devlen, char *attr, size_t attrlen) {
    if (!path) return 0;
    const char *d;
    if (!strncmp(path, PREFIX, strlen(PREFIX))) {
        d = path + strlen(PREFIX);
    } else if (!strncmp(path, "/sys/devices/", 13)) {
        d = strstr(path, "/iio:device");
        if (!d) return 0;
        d++;
    } else {
        return 0;
    }
    if (strncmp(d, "iio:device", 10)) return 0;
    const char *slash = strchr(d, '/');
    if (!slash || !slash[1] || (size_t)(slash - d) >= devlen) return 0;
    memcpy(dev, d, slash - d);
    dev[slash - d] = 0;
    snprintf(attr, attrlen, "%s", slash + 1);
    return 1;
}

void testbed_path(char *out, size_t n, const char *dev, const char *attr) {
    snprintf(out, n, "%s/sys/bus/iio/devices/%s/%s", root(), dev, attr);
}

/* An attribute's current text, without its trailing newline or NUL; "" when absent. */
int state(const char *dev, const char *attr, char *buf, size_t n) {
    char path[1024];
    testbed_path(path, sizeof(path), dev, attr);
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    buf[0] = 0;
    if (fd < 0) return -1;
    ssize_t r = sys_read(fd, buf, n - 1);
    sys_close(fd);
    if (r < 0) r = 0;
    buf[r] = 0;
    while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == 0 || buf[r - 1] == ' ')) buf[--r] = 0;
    return 0;
}

long state_number(const char *dev, const char *attr) {
    char buf[64];
    if (state(dev, attr, buf, sizeof(buf)) < 0) return -1;
    return strtol(buf, NULL, 10);
}

int enabled(const char *dev) { return state_number(dev, "buffer/enable") == 1; }

/* Replaces an attribute's value atomically, keeping the file's mode and owner; in place when the directory
 * is not ours to write (a test running the program as another user). */
int store(const char *dev, const char *attr, const char *value) {
    char path[1024], tmp[1100];
    testbed_path(path, sizeof(path), dev, attr);
    char text[512];
    int n = snprintf(text, sizeof(text), "%s\n", value);
    struct stat st;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0) return errno;
    snprintf(tmp, sizeof(tmp), "%s.kernel-%d", path, (int)syscall(SYS_gettid));
    int fd = sys_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777);
    if (fd >= 0) {
        (void)sys_write(fd, text, n);
        (void)syscall(SYS_fchmod, fd, st.st_mode & 07777);
        (void)syscall(SYS_fchown, fd, st.st_uid, st.st_gid);
        sys_close(fd);
        if (syscall(SYS_renameat, AT_FDCWD, tmp, AT_FDCWD, path) == 0) return 0;
        (void)syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
    }
    fd = sys_open(path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
    if (fd < 0) return errno;
    (void)sys_write(fd, text, n);
    sys_close(fd);
    return 0;
}

/* Stores a number as the driver's show function prints it: with as many decimals as the value it replaces
 * (IIO_VAL_INT_PLUS_MICRO prints six, IIO_VAL_INT none). */
int store_number(const char *dev, const char *attr, double v) {
    char now[64], text[64];
    state(dev, attr, now, sizeof(now));
    const char *point = strchr(now, '.');
    int decimals = point ? (int)strlen(point + 1) : 0;
    snprintf(text, sizeof(text), "%.*f", decimals, v);
    return store(dev, attr, text);
}

/* Calls VISIT with each entry's name in DIR until it returns nonzero; that answer, or 0. The directory is read
 * with getdents64 to stay below umockdev's wrappers. */
int for_each_entry(const char *dir, int (*visit)(const char *name, void *ctx), void *ctx) {
    int fd = sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return 0;
    char buf[8192];
    int answer = 0;
    while (!answer) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
        if (n <= 0) break;
        for (long off = 0; off < n && !answer;) {
            unsigned short reclen = *(unsigned short *)(buf + off + 16);
            answer = visit(buf + off + 19, ctx);
            off += reclen;
        }
    }
    sys_close(fd);
    return answer;
}

struct enables {
    const char *dev, *subdir;
    int count;
};

static int count_enable(const char *name, void *ctx) {
    struct enables *e = ctx;
    if (ends_with(name, "_en")) {
        char attr[300];
        snprintf(attr, sizeof(attr), "%s/%s", e->subdir, name);
        if (state_number(e->dev, attr) == 1) e->count++;
    }
    return 0;
}

/* How many of the enables in SUBDIR of DEV (files ending in _en) read 1. */
int enabled_in(const char *dev, const char *subdir) {
    char dir[1024];
    testbed_path(dir, sizeof(dir), dev, subdir);
    struct enables e = {dev, subdir, 0};
    for_each_entry(dir, count_enable, &e);
    return e.count;
}

int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

int starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* kstrtouint as sysfs stores use it: digits, then at most one newline. */
int parse_uint(const char *s, unsigned long *out) {
    if (!*s) return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *s == '-' || *s == '+' || *s == ' ') return 0;
    if (*end == '\n') end++;
    if (*end) return 0;
    *out = v;
    return 1;
}

/* iio_str_to_fixpoint followed by a comparison: a decimal number, compared to 6 decimal places. */
int parse_fixed(const char *s, double *out) {
    char *end;
    if (!*s) return 0;
    double v = strtod(s, &end);
    if (end == s) return 0;
    if (*end == '\n') end++;
    if (*end) return 0;
    *out = v;
    return 1;
}

int same_number(double a, double b) { return fabs(a - b) < 0.5e-6 * (1 + fabs(a)); }

/* Sleeps MS milliseconds on the program's clock (through the interposed nanosleep), signals or not. */
void sleep_ms(double ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}
