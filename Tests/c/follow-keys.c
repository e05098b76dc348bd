/* A capture program's view of rotationd through librotationd, for the tests: built only with
 * `pkg-config --cflags --libs rotationd`, it follows the service in a poll loop and prints, as one JSON object
 * per line, what the library answers for each camera key it is given.
 *
 *     follow-keys --socket PATH [--once | --seconds S] KEY...
 *
 * --once waits (up to 5 s) for a state with a rotation, prints the answers and exits; --seconds follows for S
 * seconds and prints after each state received: {"state":{...}} with, for every key, the answer now and at the
 * nanosecond before the state began (the state before it), and {"connected":BOOL,"message":...} at each change of
 * connection. Exit status 0, or 2 when --once got no state. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <rotationd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* `s` as a JSON string. */
static void put_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* One answer: {"key":K,"capture":C,...} or {"key":K,"error":-E,"message":M}. */
static void put_answer(rotationd *r, const char *key, int64_t when) {
    struct rotationd_angle a;
    int rc = rotationd_camera_angle(r, key, when, &a);
    printf("{\"key\":");
    put_string(key);
    if (rc == 0)
        printf(",\"capture\":%d,\"exif\":%d,\"mount\":%d,\"turn\":%d,\"rotation\":%d,\"since\":%lld,\"seq\":%llu}", a.capture, a.exif, a.mount,
               a.turn, a.rotation, (long long)a.since, (unsigned long long)a.seq);
    else {
        printf(",\"error\":%d,\"message\":", rc);
        put_string(rotationd_error_message(r));
        putchar('}');
    }
}

/* The answers for every key now, and just before the current state began. */
static void put_state(rotationd *r, char **keys, int count) {
    int degrees = -1;
    int rc = rotationd_rotation(r, ROTATIOND_NOW, &degrees);
    /* When the current state began: the first key's answer says, else nothing before it is asked. */
    struct rotationd_angle first;
    int64_t since = count && rotationd_camera_angle(r, keys[0], ROTATIOND_NOW, &first) == 0 ? first.since : -1;
    printf("{\"state\":{\"rotation\":%d,\"since\":%lld,\"now\":[", rc == 0 ? degrees : rc, (long long)since);
    for (int i = 0; i < count; i++) {
        if (i) putchar(',');
        put_answer(r, keys[i], ROTATIOND_NOW);
    }
    printf("],\"before\":[");
    for (int i = 0; since > 0 && i < count; i++) {
        if (i) putchar(',');
        put_answer(r, keys[i], since - 1);
    }
    printf("]}}\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *socket = NULL;
    double seconds = 0;
    int once = 0, first_key = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) socket = argv[++i];
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--once") == 0) once = 1;
        else {
            first_key = i;
            break;
        }
    }
    char **keys = argv + first_key;
    int count = argc - first_key;
    rotationd *r;
    int rc = rotationd_open(&r, socket);
    if (rc < 0) {
        fprintf(stderr, "follow-keys: %s\n", strerror(-rc));
        return 1;
    }
    int64_t deadline = now_ns() + (int64_t)((once ? 5 : seconds) * 1e9);
    int connected = -1;
    struct pollfd p = {.fd = rotationd_fd(r), .events = POLLIN};
    while (now_ns() < deadline) {
        int left = (int)((deadline - now_ns()) / 1000000) + 1;
        if (poll(&p, 1, left < 100 ? left : 100) < 0 && errno != EINTR) break;
        int states = rotationd_dispatch(r);
        if (rotationd_is_connected(r) != connected) {
            connected = rotationd_is_connected(r);
            struct rotationd_angle a;
            if (!connected) rotationd_camera_angle(r, count ? keys[0] : "x", ROTATIOND_NOW, &a);
            printf("{\"connected\":%s,\"message\":", connected ? "true" : "false");
            put_string(connected ? "" : rotationd_error_message(r));
            printf("}\n");
            fflush(stdout);
        }
        if (states <= 0) continue;
        int degrees;
        if (once && rotationd_rotation(r, ROTATIOND_NOW, &degrees) != 0) continue;
        put_state(r, keys, count);
        if (once) {
            rotationd_close(r);
            return 0;
        }
    }
    rotationd_close(r);
    return once ? 2 : 0;
}
