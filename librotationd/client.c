/* The subscription: finding the socket, connecting and reconnecting, reading lines, answering questions. */
#define _GNU_SOURCE
#include "rotationd.h"
#include "message.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PUBLIC __attribute__((visibility("default")))

#define SYSTEM_SOCKET "/run/rotationd/rotationd.sock"
#define FIRST_BACKOFF_MS 100
#define MAX_BACKOFF_MS 2000
/* At most this much is read in one dispatch, so that a flood is handled a slice at a time. */
#define READ_SLICE (16 * 1024)
#define NO_TIME INT64_MIN

struct rotationd {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int epoll;
    int timer;
    int sock;
    bool greeted;
    /* The next state with a time is the first on a new connection: changes may have been missed before it. */
    bool gap_pending;
    int backoff_ms;
    /* Why the last connection attempt failed or the last connection ended. */
    char reason[200];
    /* When the connection to a service that had greeted was lost (CLOCK_MONOTONIC ns), until a state arrives
     * on a new one; NO_TIME while connected or before any connection. */
    int64_t lost_at;
    bool ever_greeted;
    /* The latest state received, and whether there is one. */
    struct rtd_state current;
    bool have_current;
    struct rtd_history history;
    /* The last camera lookup: the list's serial, the key, and the camera found (or -1). */
    uint64_t cache_serial;
    char cache_key[256];
    int cache_index;
    char message[640];
    size_t in_len;
    char in[RTD_MAX_LINE + 1 + 4096];
};

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fail(const rotationd *r, int error, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int fail(const rotationd *r, int error, const char *format, ...) {
    rotationd *m = (rotationd *)r;
    va_list args;
    va_start(args, format);
    vsnprintf(m->message, sizeof m->message, format, args);
    va_end(args);
    return -error;
}

/* Where the other clients look (SocketPath.resolveForClient): the environment, then the per-user socket when it
 * exists and this is not root, then the system one. */
static const char *default_path(char *buf, size_t len) {
    const char *env = getenv("ROTATIOND_SOCKET");
    if (env && *env) return env;
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (geteuid() != 0 && runtime && *runtime) {
        size_t n = strlen(runtime);
        int w = snprintf(buf, len, "%s%srotationd.sock", runtime, runtime[n - 1] == '/' ? "" : "/");
        if (w > 0 && (size_t)w < len && access(buf, F_OK) == 0) return buf;
    }
    return SYSTEM_SOCKET;
}

static void arm_retry(rotationd *r) {
    struct itimerspec when = {0};
    when.it_value.tv_sec = r->backoff_ms / 1000;
    when.it_value.tv_nsec = (long)(r->backoff_ms % 1000) * 1000000;
    timerfd_settime(r->timer, 0, &when, NULL);
    r->backoff_ms = r->backoff_ms * 2 > MAX_BACKOFF_MS ? MAX_BACKOFF_MS : r->backoff_ms * 2;
}

static void disconnect(rotationd *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void disconnect(rotationd *r, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(r->reason, sizeof r->reason, format, args);
    va_end(args);
    if (r->sock >= 0) {
        epoll_ctl(r->epoll, EPOLL_CTL_DEL, r->sock, NULL);
        close(r->sock);
        r->sock = -1;
    }
    if (r->greeted && r->lost_at == NO_TIME) r->lost_at = now_ns(CLOCK_MONOTONIC);
    r->greeted = false;
    r->in_len = 0;
    arm_retry(r);
}

static void try_connect(rotationd *r) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(r->reason, sizeof r->reason, "no socket: %s", strerror(errno));
        arm_retry(r);
        return;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, r->path, strlen(r->path) + 1);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        snprintf(r->reason, sizeof r->reason, "%s", e == ENOENT ? "no such socket" : e == ECONNREFUSED ? "nobody listens on it"
                 : e == EAGAIN ? "the service accepts no more connections for now" : strerror(e));
        arm_retry(r);
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (epoll_ctl(r->epoll, EPOLL_CTL_ADD, fd, &ev) != 0) {
        snprintf(r->reason, sizeof r->reason, "cannot watch the socket: %s", strerror(errno));
        close(fd);
        arm_retry(r);
        return;
    }
    r->sock = fd;
    r->greeted = false;
    r->in_len = 0;
}

PUBLIC int rotationd_open(rotationd **client, const char *socket_path) {
    if (!client) return -EINVAL;
    *client = NULL;
    char buf[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    const char *path = socket_path && *socket_path ? socket_path : default_path(buf, sizeof buf);
    rotationd *r = calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    if (strlen(path) >= sizeof r->path) {
        free(r);
        return -ENAMETOOLONG;
    }
    strcpy(r->path, path);
    r->sock = -1;
    r->lost_at = NO_TIME;
    r->backoff_ms = FIRST_BACKOFF_MS;
    r->cache_index = -1;
    r->current.rotation = -1;
    r->epoll = epoll_create1(EPOLL_CLOEXEC);
    r->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = r->timer};
    if (r->epoll < 0 || r->timer < 0 || epoll_ctl(r->epoll, EPOLL_CTL_ADD, r->timer, &ev) != 0) {
        int e = errno;
        if (r->epoll >= 0) close(r->epoll);
        if (r->timer >= 0) close(r->timer);
        free(r);
        return -(e ? e : EMFILE);
    }
    try_connect(r);
    *client = r;
    return 0;
}

PUBLIC void rotationd_close(rotationd *r) {
    if (!r) return;
    if (r->sock >= 0) close(r->sock);
    close(r->timer);
    close(r->epoll);
    rtd_history_clear(&r->history);
    rtd_cameras_unref(r->current.cameras);
    free(r);
}

PUBLIC const char *rotationd_socket_path(const rotationd *r) { return r ? r->path : ""; }

PUBLIC int rotationd_fd(const rotationd *r) { return r ? r->epoll : -EINVAL; }

PUBLIC int rotationd_is_connected(const rotationd *r) { return r && r->sock >= 0 && r->greeted; }

PUBLIC const char *rotationd_error_message(const rotationd *r) { return r ? r->message : "no rotationd handle (NULL)"; }

/* Takes in one decoded line; false when the connection must end (the reason is set). */
static bool take(rotationd *r, struct rtd_message *m, int *states) {
    if (!r->greeted) {
        if (m->kind != RTD_MESSAGE_HELLO) {
            disconnect(r, "the first line is not a rotationd greeting: is %s a rotationd socket?", r->path);
            return false;
        }
        if (m->protocol != 1) {
            disconnect(r, "the service speaks protocol %lld and this library protocol 1: use a librotationd as new as the service",
                       (long long)m->protocol);
            return false;
        }
        r->greeted = true;
        r->ever_greeted = true;
        r->gap_pending = true;
        r->backoff_ms = FIRST_BACKOFF_MS;
        return true;
    }
    if (m->kind != RTD_MESSAGE_STATE) return true;
    struct rtd_state *s = &m->state;
    /* The same camera list as the latest state's: keep one copy. */
    if (r->have_current && rtd_cameras_equal(r->current.cameras, s->cameras)) {
        rtd_cameras_unref(s->cameras);
        s->cameras = rtd_cameras_ref(r->current.cameras);
    }
    if (s->has_t) {
        rtd_history_record(&r->history, s, r->gap_pending);
        r->gap_pending = false;
        r->lost_at = NO_TIME;
    }
    rtd_cameras_unref(r->current.cameras);
    r->current = *s;
    s->cameras = NULL;
    r->have_current = true;
    (*states)++;
    return true;
}

/* Reads what the socket holds, a slice at most, and takes in each whole line. */
static void read_socket(rotationd *r, int *states) {
    size_t total = 0;
    while (r->sock >= 0 && total < READ_SLICE) {
        ssize_t n = recv(r->sock, r->in + r->in_len, sizeof r->in - r->in_len, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) disconnect(r, "reading failed: %s", strerror(errno));
            return;
        }
        if (n == 0) {
            disconnect(r, r->greeted ? "the service closed the connection" : "the service closed the connection without a greeting");
            return;
        }
        total += (size_t)n;
        r->in_len += (size_t)n;
        size_t start = 0;
        char *nl;
        while (r->sock >= 0 && (nl = memchr(r->in + start, '\n', r->in_len - start))) {
            size_t len = (size_t)(nl - (r->in + start));
            if (len > RTD_MAX_LINE) {
                disconnect(r, "the service sent a line longer than %d bytes, which protocol 1 forbids: is %s a rotationd socket?",
                           RTD_MAX_LINE, r->path);
                return;
            }
            struct rtd_message m;
            char why[160];
            if (rtd_parse_line(r->in + start, len, &m, why, sizeof why) == 0) {
                take(r, &m, states);
                rtd_message_clear(&m);
            } else if (!r->greeted) {
                disconnect(r, "the first line is not a rotationd greeting (%s): is %s a rotationd socket?", why, r->path);
            }
            /* A line this library cannot use after the greeting is skipped, as the other clients skip it. */
            start += len + 1;
        }
        if (r->sock < 0) return;
        memmove(r->in, r->in + start, r->in_len - start);
        r->in_len -= start;
        if (r->in_len > RTD_MAX_LINE) {
            disconnect(r, "the service sent a line longer than %d bytes, which protocol 1 forbids: is %s a rotationd socket?",
                       RTD_MAX_LINE, r->path);
            return;
        }
    }
}

PUBLIC int rotationd_dispatch(rotationd *r) {
    if (!r) return -EINVAL;
    struct epoll_event ev[2];
    int n = epoll_wait(r->epoll, ev, 2, 0);
    int states = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd == r->timer) {
            uint64_t expirations;
            if (read(r->timer, &expirations, sizeof expirations) > 0 && r->sock < 0) try_connect(r);
        }
    }
    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd != r->timer && ev[i].data.fd == r->sock) read_socket(r, &states);
    }
    return states;
}

PUBLIC int rotationd_wait(rotationd *r, int timeout_ms) {
    if (!r) return -EINVAL;
    struct pollfd p = {.fd = r->epoll, .events = POLLIN};
    int n = poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
    if (n < 0) return errno == EINTR ? -EINTR : fail(r, errno, "waiting failed: %s", strerror(errno));
    if (n == 0) return 0;
    return rotationd_dispatch(r);
}

/* Why there is no service to answer, as a message that names the fix. */
static int not_connected(const rotationd *r) {
    if (r->sock >= 0)
        return fail(r, ENOTCONN, "connected to %s, which has not greeted yet%s%s", r->path, r->reason[0] ? "; the connection before: " : "",
                    r->reason);
    if (!r->ever_greeted)
        return fail(r, ENOTCONN, "rotationd is not running at %s (%s): start it (systemctl start rotationd.socket), or give the "
                                 "socket it serves on; the connection is made as soon as it is there", r->path, r->reason);
    return fail(r, ENOTCONN, "not connected to rotationd at %s (%s); reconnecting on its own", r->path, r->reason);
}

/* The state in force at `when` (or now), or a negative errno with the message set. */
static int state_at(const rotationd *r, int64_t when, const struct rtd_state **out) {
    bool connected = rotationd_is_connected(r);
    if (when < 0) {
        if (!connected) return not_connected(r);
        if (!r->have_current) return fail(r, ENODATA, "rotationd at %s has sent no state yet", r->path);
        *out = &r->current;
        return 0;
    }
    if (r->lost_at != NO_TIME && when >= r->lost_at) {
        if (!connected) return not_connected(r);
        return fail(r, ENODATA, "rotationd at %s has sent no state with a time since it was reconnected to", r->path);
    }
    bool gap;
    const struct rtd_entry *e = rtd_history_at(&r->history, when, &gap);
    if (!e) {
        if (!r->ever_greeted) return not_connected(r);
        if (gap)
            return fail(r, ENODATA, "the state at %.3f s is not known: changes may have been missed then (a reconnection, or a slow reader)",
                        when / 1e9);
        const struct rtd_entry *first = r->history.count ? &r->history.entry[r->history.first] : NULL;
        if (!first) return fail(r, ENODATA, "rotationd at %s has sent no state with a time yet", r->path);
        return fail(r, ENODATA, "%.3f s is before the first state received (at %.3f s on the service's clock, CLOCK_MONOTONIC for a "
                                "live service)", when / 1e9, first->state.t / 1e9);
    }
    *out = &e->state;
    return 0;
}

PUBLIC int rotationd_rotation(rotationd *r, int64_t when, int *degrees) {
    if (!r || !degrees) return r ? fail(r, EINVAL, "rotationd_rotation: degrees is NULL") : -EINVAL;
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    if (s->rotation < 0) return fail(r, ENODATA, "the rotation was not decided then (the service's sensor: %s)",
                                     s->sensor == RTD_SENSOR_IDLE ? "idle, starting" : s->sensor == RTD_SENSOR_NONE ? "none found"
                                     : s->sensor == RTD_SENSOR_LOST ? "lost" : "starting");
    *degrees = s->rotation;
    return 0;
}

PUBLIC int rotationd_state(rotationd *r, int64_t when, struct rotationd_state *state) {
    if (!r || !state) return r ? fail(r, EINVAL, "rotationd_state: state is NULL") : -EINVAL;
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    state->rotation = s->rotation;
    state->tilt = s->tilt;
    state->flat = s->flat ? 1 : 0;
    state->since = s->has_t ? s->t : -1;
    state->seq = s->seq;
    return 0;
}

/* The index of the camera `key` names in the state's list, or -ENODEV with the message listing the cameras. */
static int find_camera(rotationd *r, const struct rtd_state *s, const char *key) {
    const struct rtd_cameras *list = s->cameras;
    int index;
    size_t key_len = strlen(key);
    if (list && list->serial == r->cache_serial && key_len < sizeof r->cache_key && strcmp(r->cache_key, key) == 0) {
        index = r->cache_index;
    } else {
        index = list ? rtd_find_camera(list, key) : -1;
        if (list && key_len < sizeof r->cache_key) {
            r->cache_serial = list->serial;
            memcpy(r->cache_key, key, key_len + 1);
            r->cache_index = index;
        }
    }
    if (index < 0) {
        char names[400] = "";
        size_t used = 0;
        for (unsigned i = 0; list && i < list->count && used < sizeof names; i++) {
            const char *device = rtd_string(list, list->camera[i].device);
            int w = snprintf(names + used, sizeof names - used, "%s%s (%s)", i ? ", " : "", rtd_string(list, list->camera[i].name),
                             device ? device : "no device");
            if (w < 0) break;
            used += (size_t)w;
        }
        return fail(r, ENODEV, "no camera answers to \"%s\"; the cameras are: %s; give one's name, node, libcamera id or bus path",
                    key, list && list->count ? names : "none");
    }
    return index;
}

PUBLIC int rotationd_camera_angle(rotationd *r, const char *key, int64_t when, struct rotationd_angle *angle) {
    if (!r) return -EINVAL;
    if (!key || !*key || !angle) return fail(r, EINVAL, "rotationd_camera_angle: %s", !angle ? "angle is NULL" : "no camera named");
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    int index = find_camera(r, s, key);
    if (index < 0) return index;
    const struct rtd_cameras *list = s->cameras;
    if (s->capture[index] < 0 || s->rotation < 0)
        return fail(r, ENODATA, "camera %s has no capture angle then: the rotation was not decided", rtd_string(list, list->camera[index].name));
    int mount = list->camera[index].mount;
    angle->capture = s->capture[index];
    angle->exif = s->exif[index];
    angle->mount = mount;
    angle->turn = ((angle->capture - mount) % 360 + 360) % 360;
    angle->rotation = s->rotation;
    angle->since = s->t;
    angle->seq = s->seq;
    return 0;
}

PUBLIC int rotationd_fold(rotationd *r, int64_t when, struct rotationd_fold *fold) {
    if (!r || !fold) return r ? fail(r, EINVAL, "rotationd_fold: fold is NULL") : -EINVAL;
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    fold->posture = s->posture;
    fold->hinge = s->hinge;
    fold->base_rotation = s->base_rotation;
    fold->since = s->has_t ? s->t : -1;
    fold->seq = s->seq;
    return 0;
}

PUBLIC int rotationd_camera_direction(rotationd *r, const char *key, int64_t when, int *direction) {
    if (!r) return -EINVAL;
    if (!key || !*key || !direction)
        return fail(r, EINVAL, "rotationd_camera_direction: %s", !direction ? "direction is NULL" : "no camera named");
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    int index = find_camera(r, s, key);
    if (index < 0) return index;
    *direction = s->direction[index];
    return 0;
}

PUBLIC int rotationd_cameras_by_direction(rotationd *r, int direction, int64_t when, const char **names, size_t max_names) {
    if (!r) return -EINVAL;
    if (!names && max_names) return fail(r, EINVAL, "rotationd_cameras_by_direction: names is NULL");
    if (direction < ROTATIOND_DIRECTION_UNKNOWN || direction > ROTATIOND_DIRECTION_COVERED)
        return fail(r, EINVAL, "rotationd_cameras_by_direction: %d is not an enum rotationd_direction value", direction);
    const struct rtd_state *s = NULL;
    int rc = state_at(r, when, &s);
    if (rc) return rc;
    const struct rtd_cameras *list = s->cameras;
    int count = 0;
    for (unsigned i = 0; list && i < list->count; i++) {
        if (s->direction[i] != direction) continue;
        if ((size_t)count < max_names) names[count] = rtd_string(list, list->camera[i].name);
        count++;
    }
    return count;
}

PUBLIC int rotationd_preferred_camera(rotationd *r, const char **name, const char **device) {
    if (!r) return -EINVAL;
    if (!name) return fail(r, EINVAL, "rotationd_preferred_camera: name is NULL");
    const struct rtd_state *s = NULL;
    int rc = state_at(r, ROTATIOND_NOW, &s);
    if (rc) return rc;
    const struct rtd_cameras *list = s->cameras;
    if (s->preferred < 0 || !list)
        return fail(r, ENODEV, "rotationd at %s recommends no camera: none of the %u cameras takes pictures, or the service is older "
                               "than preferred cameras", r->path, list ? list->count : 0);
    *name = rtd_string(list, list->camera[s->preferred].name);
    if (device) *device = rtd_string(list, list->camera[s->preferred].device);
    return 0;
}

PUBLIC int rotationd_prefer(rotationd *r, const char *key) {
    if (!r) return -EINVAL;
    if (key && !*key) return fail(r, EINVAL, "rotationd_prefer: an empty key names no camera; pass NULL to forget the choice");
    const struct rtd_state *s = NULL;
    int rc = state_at(r, ROTATIOND_NOW, &s);
    if (rc) return rc;
    if (key && (rc = find_camera(r, s, key)) < 0) return rc;
    struct json_object *command = json_object_new_object();
    if (!command) return fail(r, ENOMEM, "rotationd_prefer: out of memory");
    json_object_object_add(command, "cmd", json_object_new_string("prefer"));
    json_object_object_add(command, "camera", key ? json_object_new_string(key) : NULL);
    char line[RTD_MAX_LINE + 2];
    int n = snprintf(line, sizeof line, "%s\n", json_object_to_json_string_ext(command, JSON_C_TO_STRING_PLAIN));
    json_object_put(command);
    if (n < 0 || (size_t)n >= sizeof line) return fail(r, EINVAL, "rotationd_prefer: the key is longer than a protocol line allows");
    ssize_t sent = send(r->sock, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent == n) return 0;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return fail(r, EAGAIN, "the connection to rotationd at %s is full; dispatch, then try again", r->path);
    /* A partial line cannot be taken back: start afresh on a new connection. */
    disconnect(r, "sending to the service failed: %s", sent < 0 ? strerror(errno) : "a partial line");
    return not_connected(r);
}

PUBLIC int64_t rotationd_monotonic_from_boottime(int64_t boottime_ns) {
    int64_t before = now_ns(CLOCK_MONOTONIC);
    int64_t boot = now_ns(CLOCK_BOOTTIME);
    int64_t after = now_ns(CLOCK_MONOTONIC);
    return boottime_ns - (boot - (before + (after - before) / 2));
}
