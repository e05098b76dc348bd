/* librotationd's own tests: the parser, the history, and the client against a fake service in this process (a
 * real Unix socket this test listens on and writes to), including a service that goes away, comes back and
 * sends garbage. Built with the library's sources, so that the parser and the history are tested directly.
 *
 *     test-client SCRATCH_DIR
 *
 * Each test prints "ok - NAME" or "FAIL - NAME: what", and the run ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "message.h"
#include "rotationd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;
static const char *current_test;
static bool current_failed;
static char scratch[64];

static void check_at(bool ok, const char *file, int line, const char *format, ...) {
    if (ok) return;
    va_list args;
    va_start(args, format);
    fprintf(stdout, "FAIL - %s: %s:%d: ", current_test, file, line);
    vfprintf(stdout, format, args);
    fputc('\n', stdout);
    va_end(args);
    current_failed = true;
}
#define CHECK(cond, ...) check_at((cond), __FILE__, __LINE__, __VA_ARGS__)

static void begin(const char *name) {
    current_test = name;
    current_failed = false;
}

static void end(void) {
    if (current_failed) failed++;
    else {
        passed++;
        printf("ok - %s\n", current_test);
    }
    fflush(stdout);
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- a fake service on a real socket ---- */

struct service {
    char path[108];
    int listener;
    int conn;
};

static void service_listen(struct service *s, const char *name) {
    snprintf(s->path, sizeof s->path, "%s/%s", scratch, name);
    unlink(s->path);
    s->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, s->path);
    if (bind(s->listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s->listener, 8) != 0) {
        printf("FAIL - cannot listen on %s: %s\n", s->path, strerror(errno));
        exit(1);
    }
    s->conn = -1;
}

static void service_close_conn(struct service *s) {
    if (s->conn >= 0) close(s->conn);
    s->conn = -1;
}

static void service_stop(struct service *s) {
    service_close_conn(s);
    if (s->listener >= 0) close(s->listener);
    s->listener = -1;
    unlink(s->path);
}

/* Dispatches `r` and accepts its connection, for up to `seconds` (the client may be waiting out a backoff). */
static bool service_accept(struct service *s, rotationd *r, double seconds) {
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    while (now_ns() < deadline) {
        rotationd_wait(r, 20);
        int fd = accept4(s->listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            s->conn = fd;
            return true;
        }
    }
    return false;
}

static void service_send(struct service *s, const char *format, ...) {
    char line[16384];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof line) n = sizeof line - 1;
    for (int off = 0; off < n;) {
        ssize_t w = send(s->conn, line + off, (size_t)(n - off), MSG_NOSIGNAL);
        if (w <= 0) return;
        off += (int)w;
    }
}

/* Waits and dispatches until `states` states arrived (or the time runs out); returns how many did. */
static int pump(rotationd *r, int states, double seconds) {
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    int got = 0;
    while (got < states && now_ns() < deadline) {
        int n = rotationd_wait(r, 20);
        if (n > 0) got += n;
    }
    return got;
}

/* Dispatches for `seconds` whatever comes. */
static void settle(rotationd *r, double seconds) {
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    while (now_ns() < deadline) rotationd_wait(r, 10);
}

static const char *HELLO =
    "{\"type\":\"hello\",\"protocol\":1,\"service\":\"rotationd\",\"version\":\"0.1.0\",\"sensor\":\"replay:t.csv\",\"cameras\":[],"
    "\"events\":[\"state\"],\"samples\":false}\n";

/* A back camera (mount 90) on a sensor with two capture nodes, and a front one (mount 270) on one node. */
static void send_state(struct service *s, int seq, double t, int rotation, const char *extra) {
    int back = (90 + rotation) % 360, front = (270 - rotation + 360) % 360;
    static const int exif[4] = {1, 6, 3, 8};
    service_send(s,
                 "{\"type\":\"state\",\"seq\":%d,\"t\":%.4f,\"rotation\":%d,\"orientation\":\"normal\",\"tilt\":\"vertical\","
                 "\"flat\":false,\"inputs\":\"accel\",\"sensor\":\"ok\",\"cameras\":["
                 "{\"name\":\"back\",\"facing\":\"back\",\"mount\":90,\"device\":\"/dev/v4l-subdev2\",\"model\":null,"
                 "\"source\":{\"facing\":\"sensor\",\"mount\":\"sensor\"},\"libcamera\":\"\\\\_SB_.PCI0.I2C3.CAM1\","
                 "\"bus_path\":\"pci-0000:00:15.3-platform-i2c_designware.3\",\"nodes\":[\"/dev/video5\",\"%s/video6\"],"
                 "\"capture\":%d,\"exif\":%d},"
                 "{\"name\":\"front\",\"facing\":\"front\",\"mount\":270,\"device\":\"/dev/video1\",\"model\":\"Integrated\","
                 "\"source\":{\"facing\":\"udev\",\"mount\":\"config\"},\"libcamera\":null,\"bus_path\":null,\"nodes\":[\"/dev/video1\"],"
                 "\"capture\":%d,\"exif\":%d}]%s}\n",
                 seq, t, rotation, scratch, back, exif[back / 90], front, exif[front / 90], extra ? extra : "");
}

static int64_t ns(double seconds) { return (int64_t)(seconds * 1e9 + 0.5); }

/* ---- the tests ---- */

static int parse(const char *line, struct rtd_message *m) {
    char why[200];
    return rtd_parse_line(line, strlen(line), m, why, sizeof why);
}

static void test_parser_accepts(void) {
    begin("the parser reads a hello, a full state, and a state from an older service without exif, source or ids");
    struct rtd_message m;
    CHECK(parse("{\"type\":\"hello\",\"protocol\":1,\"cameras\":[]}", &m) == 0 && m.kind == RTD_MESSAGE_HELLO && m.protocol == 1, "hello");
    rtd_message_clear(&m);
    const char *full = "{\"type\":\"state\",\"seq\":3,\"t\":4.5953,\"rotation\":90,\"sensor\":\"ok\",\"future\":[1,{\"x\":2}],\"cameras\":["
                       "{\"name\":\"front\",\"facing\":\"front\",\"mount\":0,\"device\":\"/dev/video0\",\"libcamera\":\"\\\\_SB_.X\","
                       "\"bus_path\":\"pci-1\",\"nodes\":[\"/dev/video0\",\"/dev/video9\"],\"capture\":270,\"exif\":8}]}";
    CHECK(parse(full, &m) == 0, "full state");
    CHECK(m.kind == RTD_MESSAGE_STATE && m.state.seq == 3 && m.state.has_t && m.state.t == 4595300000 && m.state.rotation == 90,
          "members: seq %llu t %lld rotation %d", (unsigned long long)m.state.seq, (long long)m.state.t, m.state.rotation);
    CHECK(m.state.cameras && m.state.cameras->count == 1 && m.state.capture[0] == 270 && m.state.exif[0] == 8, "camera angles");
    if (m.state.cameras) {
        const struct rtd_cameras *c = m.state.cameras;
        CHECK(strcmp(rtd_string(c, c->camera[0].libcamera), "\\_SB_.X") == 0, "the libcamera id unescaped");
        CHECK(c->camera[0].node_count == 2 && strcmp(rtd_string(c, c->camera[0].nodes) + strlen("/dev/video0") + 1, "/dev/video9") == 0,
              "nodes");
    }
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"t\":2,\"rotation\":180,\"cameras\":[{\"name\":\"e\",\"mount\":0,\"capture\":0}]}", &m) == 0 &&
              m.state.exif[0] == 1 && m.state.cameras->camera[0].device == RTD_NONE && m.state.t == 2000000000,
          "older service: exif follows from capture");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":0,\"t\":null,\"rotation\":null,\"sensor\":\"idle\",\"cameras\":[{\"name\":\"e\",\"mount\":90,"
                "\"capture\":null,\"exif\":null}]}", &m) == 0 && !m.state.has_t && m.state.rotation == -1 && m.state.capture[0] == -1 &&
              m.state.sensor == RTD_SENSOR_IDLE, "an idle state");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":4,\"tilt\":\"face-up\",\"flat\":true}", &m) == 0 && m.state.tilt == ROTATIOND_TILT_FACE_UP &&
              m.state.flat, "tilt and flat");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":4,\"tilt\":\"sideways\",\"flat\":false}", &m) == 0 && m.state.tilt == ROTATIOND_TILT_UNKNOWN &&
              !m.state.flat, "a tilt class of a later protocol is not known");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"subscribed\",\"events\":[]}", &m) == 0 && m.kind == RTD_MESSAGE_OTHER, "another type is skipped as OTHER");
    end();
}

static void test_parser_refuses(void) {
    begin("the parser refuses lines that are not one JSON object, and hellos and states with wrong members, naming the fault");
    static const char *const bad[] = {
        "", "   ", "not json", "[1,2]", "\"state\"", "{\"type\":\"state\",\"seq\":1} x", "{\"type\":5}", "{\"seq\":1}",
        "{\"type\":\"hello\"}", "{\"type\":\"hello\",\"protocol\":\"1\"}", "{'type':'state'}", "{\"type\":\"state\",\"seq\":1,}",
        "{\"type\":\"state\",\"seq\":-1}", "{\"type\":\"state\",\"seq\":1.5}", "{\"type\":\"state\",\"seq\":99999999999999999999999}",
        "{\"type\":\"state\",\"seq\":1,\"t\":\"now\"}", "{\"type\":\"state\",\"seq\":1,\"t\":1e300}",
        "{\"type\":\"state\",\"seq\":1,\"rotation\":45}", "{\"type\":\"state\",\"seq\":1,\"rotation\":\"90\"}",
        "{\"type\":\"state\",\"seq\":1,\"missed\":-3}", "{\"type\":\"state\",\"seq\":1,\"tilt\":5}",
        "{\"type\":\"state\",\"seq\":1,\"flat\":\"yes\"}", "{\"type\":\"state\",\"seq\":1,\"cameras\":{}}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[1]}", "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"mount\":0}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":360}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"device\":7}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"nodes\":\"/dev/video0\"}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"nodes\":[null]}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"capture\":45}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"capture\":90,\"exif\":1}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"capture\":null,\"exif\":6}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\\u0000b\",\"mount\":0}]}",
        "{\"type\":\"state\",\"seq\":1,\"x\":[[[[[[[[[[[[1]]]]]]]]]]]]}",
        "{\"type\":\"st\xff\xfe\",\"seq\":1}",
        "{\"type\":\"state\",\"seq\":1,\"posture\":7}", "{\"type\":\"state\",\"seq\":1,\"posture\":[\"tent\"]}",
        "{\"type\":\"state\",\"seq\":1,\"hinge\":\"x\"}", "{\"type\":\"state\",\"seq\":1,\"hinge\":290.5}",
        "{\"type\":\"state\",\"seq\":1,\"hinge\":-5}", "{\"type\":\"state\",\"seq\":1,\"hinge\":361}",
        "{\"type\":\"state\",\"seq\":1,\"base_rotation\":45}", "{\"type\":\"state\",\"seq\":1,\"base_rotation\":\"0\"}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"panel\":7}]}",
        "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"direction\":true}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct rtd_message m;
        char why[200] = "";
        int rc = rtd_parse_line(bad[i], strlen(bad[i]), &m, why, sizeof why);
        CHECK(rc == -EBADMSG && why[0], "accepted %s", bad[i]);
        CHECK(m.state.cameras == NULL, "a refused line holds nothing: %s", bad[i]);
    }
    struct rtd_message m;
    char why[200];
    const char with_nul[] = "{\"type\":\"hello\",\0\"protocol\":1}";
    CHECK(rtd_parse_line(with_nul, sizeof with_nul - 1, &m, why, sizeof why) == -EBADMSG, "a NUL byte inside the line");
    char cameras[4200];
    int n = snprintf(cameras, sizeof cameras, "{\"type\":\"state\",\"seq\":1,\"cameras\":[");
    for (int i = 0; i < 17; i++) n += snprintf(cameras + n, sizeof cameras - (size_t)n, "%s{\"name\":\"c%d\",\"mount\":0}", i ? "," : "", i);
    snprintf(cameras + n, sizeof cameras - (size_t)n, "]}");
    CHECK(parse(cameras, &m) == -EBADMSG, "17 cameras");
    /* The parser reads only `len` bytes: a line cut in the middle of a value is unfinished, not read beyond. */
    const char *state = "{\"type\":\"state\",\"seq\":12,\"t\":1.5}";
    CHECK(rtd_parse_line(state, strlen(state) - 3, &m, why, sizeof why) == -EBADMSG, "a cut line");
    char *heap = malloc(strlen(state));
    memcpy(heap, state, strlen(state));
    CHECK(rtd_parse_line(heap, strlen(state), &m, why, sizeof why) == 0 && m.state.seq == 12, "a line without a terminating NUL");
    rtd_message_clear(&m);
    free(heap);
    end();
}

/* A convertible in a tent: a front camera on the lid, turned with the display, and a world-facing one on the base's
 * top face, which looks sideways and turns with the base (the example of Docs/protocol.md's state). */
static const char *TENT =
    "{\"type\":\"state\",\"seq\":3,\"t\":3,\"rotation\":180,\"orientation\":\"bottom-up\",\"tilt\":\"vertical\",\"flat\":false,"
    "\"inputs\":\"accel\",\"sensor\":\"ok\",\"posture\":\"tent\",\"hinge\":290,\"base_rotation\":0,\"cameras\":["
    "{\"name\":\"front\",\"facing\":\"front\",\"mount\":0,\"device\":null,\"model\":null,\"source\":{\"facing\":\"config\","
    "\"mount\":\"config\"},\"libcamera\":null,\"bus_path\":null,\"nodes\":[],\"panel\":\"lid\",\"capture\":180,\"exif\":3,"
    "\"direction\":\"forward\"},"
    "{\"name\":\"world\",\"facing\":\"front\",\"mount\":0,\"device\":\"/dev/video4\",\"model\":null,\"source\":{\"facing\":\"config\","
    "\"mount\":\"config\"},\"libcamera\":null,\"bus_path\":null,\"nodes\":[],\"panel\":\"base\",\"capture\":0,\"exif\":1,"
    "\"direction\":\"sideways\"}]}";

/* The same folded back into a tablet and turned to left-up: the base's camera now sees the scene. */
static const char *TABLET =
    "{\"type\":\"state\",\"seq\":4,\"t\":5,\"rotation\":90,\"orientation\":\"left-up\",\"tilt\":\"vertical\",\"flat\":false,"
    "\"inputs\":\"accel\",\"sensor\":\"ok\",\"posture\":\"tablet\",\"hinge\":360,\"base_rotation\":270,\"cameras\":["
    "{\"name\":\"front\",\"facing\":\"front\",\"mount\":0,\"device\":null,\"nodes\":[],\"panel\":\"lid\",\"capture\":270,"
    "\"exif\":8,\"direction\":\"forward\"},"
    "{\"name\":\"world\",\"facing\":\"front\",\"mount\":0,\"device\":\"/dev/video4\",\"nodes\":[],\"panel\":\"base\","
    "\"capture\":90,\"exif\":6,\"direction\":\"backward\"}]}";

static void test_parser_posture(void) {
    begin("the parser reads a posture, hinge and base rotation, and each camera's panel and direction; absent, they are unknown and the lid");
    struct rtd_message m;
    CHECK(parse(TENT, &m) == 0 && m.kind == RTD_MESSAGE_STATE, "the tent line");
    CHECK(m.state.posture == ROTATIOND_POSTURE_TENT && m.state.hinge == 290 && m.state.base_rotation == 0, "posture %d hinge %d base %d",
          m.state.posture, m.state.hinge, m.state.base_rotation);
    CHECK(m.state.cameras && m.state.cameras->count == 2 && m.state.cameras->camera[0].panel == RTD_PANEL_LID &&
              m.state.cameras->camera[1].panel == RTD_PANEL_BASE, "panels");
    CHECK(m.state.direction[0] == ROTATIOND_DIRECTION_FORWARD && m.state.direction[1] == ROTATIOND_DIRECTION_SIDEWAYS, "directions %d %d",
          m.state.direction[0], m.state.direction[1]);
    rtd_message_clear(&m);
    CHECK(parse(TABLET, &m) == 0 && m.state.posture == ROTATIOND_POSTURE_TABLET && m.state.hinge == 360 && m.state.base_rotation == 270 &&
              m.state.direction[1] == ROTATIOND_DIRECTION_BACKWARD && m.state.capture[1] == 90, "the tablet line");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"t\":2,\"rotation\":0,\"cameras\":[{\"name\":\"e\",\"mount\":0,\"capture\":0}]}", &m) == 0 &&
              m.state.posture == ROTATIOND_POSTURE_UNKNOWN && m.state.hinge == -1 && m.state.base_rotation == -1 &&
              m.state.cameras->camera[0].panel == RTD_PANEL_LID && m.state.direction[0] == ROTATIOND_DIRECTION_UNKNOWN,
          "an older service: no posture, no hinge, every camera on the lid, no direction");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"posture\":null,\"hinge\":null,\"base_rotation\":null,\"cameras\":[{\"name\":\"e\","
                "\"facing\":\"external\",\"mount\":0,\"panel\":null,\"direction\":null}]}", &m) == 0 &&
              m.state.posture == ROTATIOND_POSTURE_UNKNOWN && m.state.hinge == -1 && m.state.base_rotation == -1 &&
              m.state.cameras->camera[0].panel == RTD_PANEL_LID && m.state.direction[0] == ROTATIOND_DIRECTION_UNKNOWN,
          "a plain tablet and an external camera: null");
    rtd_message_clear(&m);
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"posture\":\"folded\",\"hinge\":0,\"cameras\":[{\"name\":\"e\",\"mount\":0,"
                "\"panel\":\"hinge\",\"direction\":\"up\"}]}", &m) == 0 &&
              m.state.posture == ROTATIOND_POSTURE_UNKNOWN && m.state.hinge == 0 && m.state.cameras->camera[0].panel == RTD_PANEL_OTHER &&
              m.state.direction[0] == ROTATIOND_DIRECTION_UNKNOWN, "names of a later protocol are not known, as a tilt's");
    rtd_message_clear(&m);
    static const char *const postures[] = {"closed", "laptop", "stand", "tent", "tablet"};
    for (int i = 0; i < 5; i++) {
        char line[120];
        snprintf(line, sizeof line, "{\"type\":\"state\",\"seq\":1,\"posture\":\"%s\"}", postures[i]);
        CHECK(parse(line, &m) == 0 && m.state.posture == ROTATIOND_POSTURE_CLOSED + i, "%s: %d", postures[i], m.state.posture);
        rtd_message_clear(&m);
    }
    static const char *const directions[] = {"forward", "backward", "sideways", "covered"};
    for (int i = 0; i < 4; i++) {
        char line[160];
        snprintf(line, sizeof line, "{\"type\":\"state\",\"seq\":1,\"cameras\":[{\"name\":\"e\",\"mount\":0,\"direction\":\"%s\"}]}",
                 directions[i]);
        CHECK(parse(line, &m) == 0 && m.state.direction[0] == ROTATIOND_DIRECTION_FORWARD + i, "%s: %d", directions[i], m.state.direction[0]);
        rtd_message_clear(&m);
    }
    end();
}

static struct rtd_state mkstate(uint64_t seq, double t, int rotation, uint64_t missed) {
    struct rtd_state s = {.seq = seq, .t = ns(t), .has_t = true, .rotation = rotation, .missed = missed};
    return s;
}

static void test_history(void) {
    begin("a state holds from its t until the next one's; before the first, and where changes may have been missed, there is no answer");
    struct rtd_history *h = calloc(1, sizeof *h);
    bool gap;
    struct rtd_state s1 = mkstate(1, 10, 0, 0), s2 = mkstate(2, 12, 90, 0), s3 = mkstate(3, 15, 180, 0);
    rtd_history_record(h, &s1, true);
    rtd_history_record(h, &s2, false);
    rtd_history_record(h, &s3, false);
    CHECK(!rtd_history_at(h, ns(9.99), &gap) && !gap, "before the first");
    CHECK(rtd_history_at(h, ns(10), &gap)->state.seq == 1 && rtd_history_at(h, ns(11.999), &gap)->state.seq == 1, "the first");
    CHECK(rtd_history_at(h, ns(12), &gap)->state.seq == 2 && rtd_history_at(h, ns(14.5), &gap)->state.seq == 2, "the second");
    CHECK(rtd_history_at(h, ns(100), &gap)->state.seq == 3, "after the latest, the latest");
    rtd_history_record(h, &s3, false);
    CHECK(h->count == 3, "the same state again is kept once");
    struct rtd_state s9 = mkstate(9, 20, 270, 5);
    rtd_history_record(h, &s9, false);
    CHECK(!rtd_history_at(h, ns(17), &gap) && gap, "missed changes: unknown before");
    CHECK(rtd_history_at(h, ns(14), &gap)->state.seq == 2 && rtd_history_at(h, ns(20), &gap)->state.seq == 9, "around the gap");
    struct rtd_state s10 = mkstate(10, 25, 0, 0);
    rtd_history_record(h, &s10, true);
    CHECK(!rtd_history_at(h, ns(22), &gap) && gap && rtd_history_at(h, ns(26), &gap)->state.seq == 10, "a new connection opens a gap");
    struct rtd_state untimed = {.seq = 0, .has_t = false, .rotation = -1};
    rtd_history_record(h, &untimed, false);
    CHECK(h->count == 5, "a state without t is not kept");
    struct rtd_state again = mkstate(1, 0.5, 90, 0);
    rtd_history_record(h, &again, true);
    CHECK(h->count == 1 && rtd_history_at(h, ns(1), &gap)->state.seq == 1 && !rtd_history_at(h, ns(0.4), &gap), "an earlier t starts again");
    for (int i = 1; i <= RTD_HISTORY + 10; i++) {
        struct rtd_state s = mkstate((uint64_t)i + 1, 1 + i, (i % 4) * 90, 0);
        rtd_history_record(h, &s, false);
    }
    CHECK(h->count == RTD_HISTORY && rtd_history_last(h)->state.seq == RTD_HISTORY + 11, "bounded to the latest %d", RTD_HISTORY);
    CHECK(!rtd_history_at(h, ns(11.5), &gap) && rtd_history_at(h, ns(12.5), &gap)->state.seq == 12, "the oldest dropped: %u", h->first);
    rtd_history_clear(h);
    free(h);
    end();
}

static void test_no_service(void) {
    begin("without a service the handle opens, answers -ENOTCONN with a message naming the socket and the fix, and never blocks");
    char path[160];
    snprintf(path, sizeof path, "%s/nobody.sock", scratch);
    rotationd *r = NULL;
    CHECK(rotationd_open(&r, path) == 0 && r, "open");
    CHECK(!rotationd_is_connected(r), "not connected");
    struct rotationd_angle a;
    int rc = rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(rc == -ENOTCONN, "now: %d", rc);
    const char *msg = rotationd_error_message(r);
    CHECK(strstr(msg, path) && strstr(msg, "not running") && strstr(msg, "no such socket") && strstr(msg, "start"), "message: %s", msg);
    int degrees;
    CHECK(rotationd_rotation(r, now_ns(), &degrees) == -ENOTCONN, "at a time");
    int64_t before = now_ns();
    for (int i = 0; i < 1000; i++) rotationd_dispatch(r);
    CHECK(now_ns() - before < 2000000000LL, "1000 dispatches took %lld ms", (long long)((now_ns() - before) / 1000000));
    CHECK(rotationd_wait(r, 0) >= 0, "a wait of 0 returns");
    rotationd_close(r);
    char long_path[200];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    CHECK(rotationd_open(&r, long_path) == -ENAMETOOLONG && r == NULL, "a path longer than a Unix socket's");
    CHECK(rotationd_open(NULL, path) == -EINVAL, "NULL");
    CHECK(rotationd_dispatch(NULL) == -EINVAL && rotationd_wait(NULL, 0) == -EINVAL && rotationd_camera_angle(NULL, "x", 0, &a) == -EINVAL,
          "NULL handles");
    rotationd_close(NULL);
    end();
}

static void test_socket_lookup(void) {
    begin("the socket is the one given, else ROTATIOND_SOCKET, else the per-user one when it exists (not for root), else the system one");
    rotationd *r;
    char *saved = getenv("ROTATIOND_SOCKET") ? strdup(getenv("ROTATIOND_SOCKET")) : NULL;
    setenv("ROTATIOND_SOCKET", "/tmp/from-env.sock", 1);
    rotationd_open(&r, "/tmp/given.sock");
    CHECK(strcmp(rotationd_socket_path(r), "/tmp/given.sock") == 0, "given: %s", rotationd_socket_path(r));
    rotationd_close(r);
    rotationd_open(&r, NULL);
    CHECK(strcmp(rotationd_socket_path(r), "/tmp/from-env.sock") == 0, "env: %s", rotationd_socket_path(r));
    rotationd_close(r);
    unsetenv("ROTATIOND_SOCKET");
    char runtime[160], user[200];
    snprintf(runtime, sizeof runtime, "%s/run", scratch);
    mkdir(runtime, 0700);
    snprintf(user, sizeof user, "%s/rotationd.sock", runtime);
    close(open(user, O_CREAT | O_WRONLY, 0600));
    setenv("XDG_RUNTIME_DIR", runtime, 1);
    rotationd_open(&r, "");
    const char *expected = geteuid() == 0 ? "/run/rotationd/rotationd.sock" : user;
    CHECK(strcmp(rotationd_socket_path(r), expected) == 0, "runtime dir: %s, expected %s", rotationd_socket_path(r), expected);
    rotationd_close(r);
    unlink(user);
    rotationd_open(&r, NULL);
    CHECK(strcmp(rotationd_socket_path(r), "/run/rotationd/rotationd.sock") == 0, "no per-user socket: %s", rotationd_socket_path(r));
    rotationd_close(r);
    if (saved) setenv("ROTATIOND_SOCKET", saved, 1);
    free(saved);
    end();
}

static void test_lookup_and_times(void) {
    begin("a camera is found by its name, libcamera id, device, capture node, a symlink to one, or bus path; each state answers from its t on");
    struct service s;
    service_listen(&s, "keys.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    int fd = rotationd_fd(r);
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "%s", HELLO);
    send_state(&s, 1, 10, 0, NULL);
    send_state(&s, 2, 12, 90, NULL);
    CHECK(pump(r, 2, 3) == 2, "two states");
    CHECK(rotationd_is_connected(r), "connected after the greeting");
    char node[160], link_path[160];
    snprintf(node, sizeof node, "%s/video6", scratch);
    close(open(node, O_CREAT | O_WRONLY, 0600));
    snprintf(link_path, sizeof link_path, "%s/by-id-cam", scratch);
    unlink(link_path);
    CHECK(symlink(node, link_path) == 0, "symlink");
    const char *keys[] = {"back", "\\_SB_.PCI0.I2C3.CAM1", "/dev/v4l-subdev2", "/dev/video5", node, link_path,
                          "pci-0000:00:15.3-platform-i2c_designware.3"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        struct rotationd_angle a;
        int rc = rotationd_camera_angle(r, keys[i], ROTATIOND_NOW, &a);
        /* back, mount 90, at left-up (90): 180, EXIF 3; the device's turn alone 90. */
        CHECK(rc == 0 && a.capture == 180 && a.exif == 3 && a.mount == 90 && a.turn == 90 && a.rotation == 90 && a.seq == 2 &&
                  a.since == ns(12), "%s: rc %d capture %d exif %d turn %d", keys[i], rc, a.capture, a.exif, a.turn);
        rc = rotationd_camera_angle(r, keys[i], ns(11), &a);
        CHECK(rc == 0 && a.capture == 90 && a.exif == 6 && a.turn == 0 && a.seq == 1, "%s at 11 s: %d %d", keys[i], rc, a.capture);
    }
    struct rotationd_angle a;
    CHECK(rotationd_camera_angle(r, "/dev/video1", ns(12.5), &a) == 0 && a.capture == 180 && a.turn == 270, "front at left-up");
    int rc = rotationd_camera_angle(r, "/dev/video7", ROTATIOND_NOW, &a);
    const char *msg = rotationd_error_message(r);
    CHECK(rc == -ENODEV && strstr(msg, "\"/dev/video7\"") && strstr(msg, "back (/dev/v4l-subdev2)") && strstr(msg, "front (/dev/video1)"),
          "unknown camera: %d %s", rc, msg);
    rc = rotationd_camera_angle(r, "back", ns(9), &a);
    CHECK(rc == -ENODATA && strstr(rotationd_error_message(r), "before the first state"), "before: %d %s", rc, rotationd_error_message(r));
    CHECK(rotationd_camera_angle(r, "", ROTATIOND_NOW, &a) == -EINVAL && rotationd_camera_angle(r, NULL, 0, &a) == -EINVAL &&
              rotationd_camera_angle(r, "back", 0, NULL) == -EINVAL, "bad arguments");
    int degrees;
    CHECK(rotationd_rotation(r, ns(11), &degrees) == 0 && degrees == 0 && rotationd_rotation(r, ROTATIOND_NOW, &degrees) == 0 &&
              degrees == 90, "rotation");
    struct rotationd_state st;
    CHECK(rotationd_state(r, ns(11), &st) == 0 && st.rotation == 0 && st.tilt == ROTATIOND_TILT_VERTICAL && !st.flat && st.seq == 1 &&
              st.since == ns(10), "the state at 11 s: rotation %d tilt %d since %lld", st.rotation, st.tilt, (long long)st.since);
    CHECK(rotationd_state(r, ns(9), &st) == -ENODATA && rotationd_state(r, ROTATIOND_NOW, NULL) == -EINVAL, "state: no answer, bad argument");
    /* A state that has not decided the rotation, lying flat face down. */
    service_send(&s, "{\"type\":\"state\",\"seq\":3,\"t\":13,\"rotation\":null,\"tilt\":\"face-down\",\"flat\":true,\"sensor\":\"lost\","
                     "\"cameras\":[{\"name\":\"back\",\"mount\":90,\"capture\":null,\"exif\":null}]}\n");
    CHECK(pump(r, 1, 2) == 1, "third state");
    CHECK(rotationd_state(r, ROTATIOND_NOW, &st) == 0 && st.rotation == -1 && st.tilt == ROTATIOND_TILT_FACE_DOWN && st.flat == 1 &&
              st.seq == 3 && st.since == ns(13), "an undecided state is no error: rotation %d tilt %d flat %d", st.rotation, st.tilt, st.flat);
    rc = rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(rc == -ENODATA && strstr(rotationd_error_message(r), "not decided"), "undecided: %d %s", rc, rotationd_error_message(r));
    CHECK(rotationd_rotation(r, ROTATIOND_NOW, &degrees) == -ENODATA && strstr(rotationd_error_message(r), "lost"), "%s",
          rotationd_error_message(r));
    CHECK(rotationd_fd(r) == fd, "the descriptor stays the same");
    rotationd_close(r);
    service_stop(&s);
    end();
}

static void test_restart(void) {
    begin("when the service goes away the past stays answered, now and later are -ENOTCONN, and a restarted service is reconnected to with a gap before it");
    struct service s;
    service_listen(&s, "restart.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    int fd = rotationd_fd(r);
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "%s", HELLO);
    int64_t t0 = now_ns();
    send_state(&s, 1, t0 / 1e9 - 2, 0, NULL);
    send_state(&s, 2, t0 / 1e9 - 1, 90, NULL);
    CHECK(pump(r, 2, 2) == 2, "two states");
    service_stop(&s);
    settle(r, 0.05);
    CHECK(!rotationd_is_connected(r), "the loss is noticed");
    struct rotationd_angle a;
    int rc = rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(rc == -ENOTCONN && strstr(rotationd_error_message(r), "reconnecting"), "now: %d %s", rc, rotationd_error_message(r));
    CHECK(rotationd_camera_angle(r, "back", t0 - 500000000, &a) == 0 && a.capture == 180, "before the loss: still known");
    CHECK(rotationd_camera_angle(r, "back", now_ns(), &a) == -ENOTCONN, "after the loss: not known");
    settle(r, 0.3);
    service_listen(&s, "restart.sock");
    CHECK(service_accept(&s, r, 3), "reconnected after a restart");
    service_send(&s, "%s", HELLO);
    send_state(&s, 1, now_ns() / 1e9, 180, NULL);
    CHECK(pump(r, 1, 2) == 1, "the new service's state");
    CHECK(rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a) == 0 && a.capture == 270, "now from the new service");
    /* As RotationClient's history: changes may have been missed from the last state before the outage on. */
    rc = rotationd_camera_angle(r, "back", t0 + 1000000, &a);
    CHECK(rc == -ENODATA && strstr(rotationd_error_message(r), "missed"), "the outage is a gap: %d %s", rc, rotationd_error_message(r));
    CHECK(rotationd_camera_angle(r, "back", t0 - 1500000000, &a) == 0 && a.capture == 90, "the states before that: still known");
    CHECK(rotationd_fd(r) == fd, "the same descriptor throughout");
    rotationd_close(r);
    service_stop(&s);
    end();
}

static void test_garbage(void) {
    begin("garbage from the service is skipped or ends the connection, never the program: binary junk, a line over 4096 bytes, a wrong greeting, protocol 2");
    struct service s;
    service_listen(&s, "garbage.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    /* Not a greeting first. */
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "\x01\x02\xff garbage\n");
    settle(r, 0.05);
    CHECK(!rotationd_is_connected(r) && strstr(rotationd_error_message(r), "") != NULL, "dropped");
    struct rotationd_angle a;
    rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(strstr(rotationd_error_message(r), "not a rotationd greeting"), "says why: %s", rotationd_error_message(r));
    service_close_conn(&s);
    /* Protocol 2. */
    CHECK(service_accept(&s, r, 3), "reconnected");
    service_send(&s, "{\"type\":\"hello\",\"protocol\":2}\n");
    settle(r, 0.05);
    rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(!rotationd_is_connected(r) && strstr(rotationd_error_message(r), "protocol 2"), "protocol: %s", rotationd_error_message(r));
    service_close_conn(&s);
    /* A good greeting, then junk between good states, then a line that never ends. */
    CHECK(service_accept(&s, r, 3), "reconnected again");
    service_send(&s, "%s", HELLO);
    send_state(&s, 1, 5, 0, NULL);
    service_send(&s, "{\"type\":\"state\",\"seq\":2,\"rotation\":45}\n\n{]\n\x80\x81\x82\n{\"type\":\"state\",\"seq\":\"x\"}\nnull\n");
    send_state(&s, 2, 6, 270, NULL);
    CHECK(pump(r, 2, 2) == 2, "the two good states arrive around the junk");
    CHECK(rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a) == 0 && a.capture == 0 && a.seq == 2, "the latest good one");
    char big[6000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    service_send(&s, "{\"type\":\"state\",\"x\":\"%s", big);
    settle(r, 0.1);
    rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    CHECK(!rotationd_is_connected(r) && strstr(rotationd_error_message(r), "longer than 4096"), "a long line: %s", rotationd_error_message(r));
    CHECK(rotationd_camera_angle(r, "back", ns(5.5), &a) == 0 && a.capture == 90, "what was received stays");
    service_close_conn(&s);
    /* A service that accepts and says nothing: no call waits for it. */
    CHECK(service_accept(&s, r, 3), "a silent service");
    int64_t before = now_ns();
    for (int i = 0; i < 200; i++) {
        rotationd_dispatch(r);
        rotationd_camera_angle(r, "back", ROTATIOND_NOW, &a);
    }
    CHECK(now_ns() - before < 2000000000LL, "200 dispatches and lookups took %lld ms", (long long)((now_ns() - before) / 1000000));
    CHECK(!rotationd_is_connected(r), "not greeted, so not connected");
    /* Half a line, then silence. */
    service_send(&s, "{\"type\":\"hel");
    settle(r, 0.05);
    service_send(&s, "lo\",\"protocol\":1}\n");
    settle(r, 0.05);
    CHECK(rotationd_is_connected(r), "a greeting in two pieces");
    service_close_conn(&s);
    rotationd_close(r);
    service_stop(&s);
    end();
}

static void test_missed(void) {
    begin("a state that says changes were missed leaves the span before it unanswered");
    struct service s;
    service_listen(&s, "missed.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "%s", HELLO);
    send_state(&s, 1, 1, 0, NULL);
    send_state(&s, 9, 5, 180, ",\"missed\":7");
    CHECK(pump(r, 2, 2) == 2, "states");
    struct rotationd_angle a;
    CHECK(rotationd_camera_angle(r, "front", ns(3), &a) == -ENODATA, "inside the gap");
    CHECK(rotationd_camera_angle(r, "front", ns(5), &a) == 0 && a.capture == 90, "from the state after it");
    rotationd_close(r);
    service_stop(&s);
    end();
}

static void test_posture_and_directions(void) {
    begin("a convertible's posture, hinge and each camera's direction, now and at a time, and the cameras facing one way, by any camera key");
    struct service s;
    service_listen(&s, "posture.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    struct rotationd_fold f;
    int direction;
    const char *names[4] = {NULL, NULL, NULL, NULL};
    CHECK(rotationd_fold(r, ROTATIOND_NOW, &f) == -ENOTCONN && rotationd_camera_direction(r, "front", ROTATIOND_NOW, &direction) == -ENOTCONN &&
              rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ROTATIOND_NOW, names, 4) == -ENOTCONN, "no service yet");
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "%s", HELLO);
    service_send(&s, "%s\n%s\n", TENT, TABLET);
    CHECK(pump(r, 2, 3) == 2, "two states");
    /* In the tent. */
    CHECK(rotationd_fold(r, ns(4), &f) == 0 && f.posture == ROTATIOND_POSTURE_TENT && f.hinge == 290 && f.base_rotation == 0 &&
              f.since == ns(3) && f.seq == 3, "the fold at 4 s: posture %d hinge %d base %d", f.posture, f.hinge, f.base_rotation);
    CHECK(rotationd_camera_direction(r, "world", ns(4), &direction) == 0 && direction == ROTATIOND_DIRECTION_SIDEWAYS, "world at 4 s: %d",
          direction);
    CHECK(rotationd_camera_direction(r, "front", ns(4), &direction) == 0 && direction == ROTATIOND_DIRECTION_FORWARD, "front at 4 s: %d",
          direction);
    int n = rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ns(4), names, 4);
    CHECK(n == 1 && strcmp(names[0], "front") == 0 && names[1] == NULL, "facing forward at 4 s: %d", n);
    /* Folded back into a tablet. */
    CHECK(rotationd_fold(r, ROTATIOND_NOW, &f) == 0 && f.posture == ROTATIOND_POSTURE_TABLET && f.hinge == 360 && f.base_rotation == 270 &&
              f.seq == 4, "the fold now: posture %d hinge %d", f.posture, f.hinge);
    CHECK(rotationd_camera_direction(r, "/dev/video4", ROTATIOND_NOW, &direction) == 0 && direction == ROTATIOND_DIRECTION_BACKWARD,
          "world by its node now: %d", direction);
    n = rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_BACKWARD, ROTATIOND_NOW, names, 4);
    struct rotationd_angle a;
    CHECK(n == 1 && strcmp(names[0], "world") == 0, "facing backward now: %d", n);
    CHECK(n == 1 && rotationd_camera_angle(r, names[0], ROTATIOND_NOW, &a) == 0 && a.capture == 90 && a.exif == 6,
          "a listed name is a key for its angle, which turns with the base");
    CHECK(rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ROTATIOND_NOW, names, 4) == 1 && strcmp(names[0], "front") == 0,
          "facing forward now");
    CHECK(rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_COVERED, ROTATIOND_NOW, names, 4) == 0 &&
              rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ROTATIOND_NOW, NULL, 0) == 1, "none covered; a count alone");
    /* A service older than postures: nothing known, every camera on the lid, and no error. */
    send_state(&s, 5, 7, 0, NULL);
    CHECK(pump(r, 1, 2) == 1, "an older service's state");
    CHECK(rotationd_fold(r, ROTATIOND_NOW, &f) == 0 && f.posture == ROTATIOND_POSTURE_UNKNOWN && f.hinge == -1 && f.base_rotation == -1 &&
              f.since == ns(7), "no posture: %d %d", f.posture, f.hinge);
    CHECK(rotationd_camera_direction(r, "/dev/video1", ROTATIOND_NOW, &direction) == 0 && direction == ROTATIOND_DIRECTION_UNKNOWN,
          "no direction: %d", direction);
    names[1] = NULL;
    n = rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_UNKNOWN, ROTATIOND_NOW, names, 1);
    CHECK(n == 2 && strcmp(names[0], "back") == 0 && names[1] == NULL, "two without a direction, the first stored: %d", n);
    CHECK(rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ROTATIOND_NOW, names, 4) == 0, "none forward");
    /* What is not known, and bad arguments. */
    int rc = rotationd_camera_direction(r, "world", ROTATIOND_NOW, &direction);
    CHECK(rc == -ENODEV && strstr(rotationd_error_message(r), "\"world\""), "a camera gone: %d %s", rc, rotationd_error_message(r));
    CHECK(rotationd_fold(r, ns(2), &f) == -ENODATA && rotationd_camera_direction(r, "front", ns(2), &direction) == -ENODATA &&
              rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ns(2), names, 4) == -ENODATA, "before the first state");
    CHECK(rotationd_fold(r, ROTATIOND_NOW, NULL) == -EINVAL && rotationd_camera_direction(r, "front", ROTATIOND_NOW, NULL) == -EINVAL &&
              rotationd_camera_direction(r, "", ROTATIOND_NOW, &direction) == -EINVAL &&
              rotationd_cameras_by_direction(r, ROTATIOND_DIRECTION_FORWARD, ROTATIOND_NOW, NULL, 2) == -EINVAL, "bad arguments");
    rc = rotationd_cameras_by_direction(r, 9, ROTATIOND_NOW, names, 4);
    CHECK(rc == -EINVAL && strstr(rotationd_error_message(r), "enum rotationd_direction"), "not a direction: %d %s", rc,
          rotationd_error_message(r));
    CHECK(rotationd_fold(NULL, 0, &f) == -EINVAL && rotationd_camera_direction(NULL, "x", 0, &direction) == -EINVAL &&
              rotationd_cameras_by_direction(NULL, 0, 0, names, 4) == -EINVAL, "NULL handles");
    rotationd_close(r);
    service_stop(&s);
    end();
}

/* Reads what the client sent on the fake service's side, for up to `seconds`; the bytes end with a NUL. */
static size_t service_read(struct service *s, char *buf, size_t len, double seconds) {
    size_t got = 0;
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    while (got + 1 < len && now_ns() < deadline && !memchr(buf, '\n', got)) {
        struct pollfd p = {.fd = s->conn, .events = POLLIN};
        if (poll(&p, 1, 20) <= 0) continue;
        ssize_t n = recv(s->conn, buf + got, len - 1 - got, MSG_DONTWAIT);
        if (n <= 0) break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

static void test_preferred_camera(void) {
    begin("the camera to open: the state's preferred camera and its node, and prefer sending the command for a known key only");
    struct service s;
    service_listen(&s, "prefer.sock");
    rotationd *r;
    rotationd_open(&r, s.path);
    const char *name = NULL, *device = NULL;
    CHECK(rotationd_preferred_camera(r, &name, &device) == -ENOTCONN && rotationd_prefer(r, "front") == -ENOTCONN, "no service yet");
    CHECK(service_accept(&s, r, 2), "connected");
    service_send(&s, "%s", HELLO);
    settle(r, 0.1);
    CHECK(rotationd_preferred_camera(r, &name, &device) == -ENODATA && rotationd_prefer(r, "front") == -ENODATA, "no state yet");
    send_state(&s, 1, 1, 0, ",\"preferred\":\"front\"");
    CHECK(pump(r, 1, 2) == 1, "a state");
    CHECK(rotationd_preferred_camera(r, &name, &device) == 0 && strcmp(name, "front") == 0 && device && strcmp(device, "/dev/video1") == 0,
          "front on /dev/video1: %s", rotationd_error_message(r));
    CHECK(rotationd_preferred_camera(r, &name, NULL) == 0 && strcmp(name, "front") == 0, "the name alone");
    /* prefer, by node: the command on the wire, the key as JSON. */
    CHECK(rotationd_prefer(r, "/dev/v4l-subdev2") == 0, "prefer the back camera: %s", rotationd_error_message(r));
    char sent[512];
    service_read(&s, sent, sizeof sent, 2);
    CHECK(strcmp(sent, "{\"cmd\":\"prefer\",\"camera\":\"\\/dev\\/v4l-subdev2\"}\n") == 0 ||
              strcmp(sent, "{\"cmd\":\"prefer\",\"camera\":\"/dev/v4l-subdev2\"}\n") == 0, "sent: %s", sent);
    send_state(&s, 2, 1, 0, ",\"preferred\":\"back\"");
    CHECK(pump(r, 1, 2) == 1 && rotationd_preferred_camera(r, &name, &device) == 0 && strcmp(name, "back") == 0 &&
              strcmp(device, "/dev/v4l-subdev2") == 0, "the answer recommends back");
    /* Forgetting sends null; an unknown key sends nothing. */
    CHECK(rotationd_prefer(r, NULL) == 0, "forget");
    service_read(&s, sent, sizeof sent, 2);
    CHECK(strcmp(sent, "{\"cmd\":\"prefer\",\"camera\":null}\n") == 0, "sent: %s", sent);
    int rc = rotationd_prefer(r, "/dev/video9");
    CHECK(rc == -ENODEV && strstr(rotationd_error_message(r), "\"/dev/video9\""), "unknown key: %d %s", rc, rotationd_error_message(r));
    CHECK(service_read(&s, sent, sizeof sent, 0.3) == 0, "nothing sent for it: %s", sent);
    CHECK(rotationd_prefer(r, "") == -EINVAL && rotationd_preferred_camera(r, NULL, NULL) == -EINVAL &&
              rotationd_preferred_camera(NULL, &name, NULL) == -EINVAL && rotationd_prefer(NULL, "x") == -EINVAL, "bad arguments");
    /* No camera recommended (null), and a service older than preferred cameras (absent). */
    send_state(&s, 3, 2, 0, ",\"preferred\":null");
    CHECK(pump(r, 1, 2) == 1 && rotationd_preferred_camera(r, &name, &device) == -ENODEV, "null: none recommended");
    send_state(&s, 4, 3, 0, NULL);
    CHECK(pump(r, 1, 2) == 1 && rotationd_preferred_camera(r, &name, &device) == -ENODEV &&
              strstr(rotationd_error_message(r), "recommends no camera"), "absent: %s", rotationd_error_message(r));
    /* A name that is not in the list, or not a string, is not taken as a camera. */
    send_state(&s, 5, 4, 0, ",\"preferred\":\"world\"");
    CHECK(pump(r, 1, 2) == 1 && rotationd_preferred_camera(r, &name, &device) == -ENODEV, "a name not listed");
    rotationd_close(r);
    service_stop(&s);
    struct rtd_message m;
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"t\":1,\"rotation\":0,\"cameras\":[],\"preferred\":5}", &m) == -EBADMSG,
          "a number is refused");
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"t\":1,\"rotation\":0,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"infrared\":1}]}", &m) ==
              -EBADMSG, "an infrared that is not a boolean is refused");
    CHECK(parse("{\"type\":\"state\",\"seq\":1,\"t\":1,\"rotation\":0,\"cameras\":[{\"name\":\"a\",\"mount\":0,\"infrared\":true}]}", &m) == 0 &&
              m.state.cameras->camera[0].infrared, "infrared read");
    rtd_message_clear(&m);
    end();
}

static void test_boottime(void) {
    begin("a CLOCK_BOOTTIME timestamp converts to CLOCK_MONOTONIC by the time spent suspended");
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    int64_t mono = now_ns();
    int64_t converted = rotationd_monotonic_from_boottime((int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec);
    CHECK(llabs(converted - mono) < 10000000, "converted %lld, monotonic %lld", (long long)converted, (long long)mono);
    end();
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test-client SCRATCH_DIR\n");
        return 2;
    }
    if (strlen(argv[1]) >= sizeof scratch) {
        fprintf(stderr, "test-client: %s is too long for socket paths inside it; use a directory under /tmp\n", argv[1]);
        return 2;
    }
    snprintf(scratch, sizeof scratch, "%s", argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_parser_accepts();
    test_parser_refuses();
    test_parser_posture();
    test_history();
    test_no_service();
    test_socket_lookup();
    test_lookup_and_times();
    test_restart();
    test_garbage();
    test_missed();
    test_posture_and_directions();
    test_preferred_camera();
    test_boottime();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
