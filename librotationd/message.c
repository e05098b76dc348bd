/* Decoding the service's lines with json-c, and the history of states received. */
#define _DEFAULT_SOURCE
#include "message.h"
#include "rotationd.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for a state (object, cameras array, camera, nodes array or source object) and a little more. */
#define RTD_JSON_DEPTH 8

static _Atomic uint64_t next_serial = 1;

static int refuse(char *why, size_t why_len, const char *format, ...) {
    if (why && why_len) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, why_len, format, args);
        va_end(args);
    }
    return -EBADMSG;
}

struct rtd_cameras *rtd_cameras_ref(struct rtd_cameras *cameras) {
    if (cameras) cameras->refs++;
    return cameras;
}

void rtd_cameras_unref(struct rtd_cameras *cameras) {
    if (cameras && --cameras->refs == 0) free(cameras);
}

bool rtd_cameras_equal(const struct rtd_cameras *a, const struct rtd_cameras *b) {
    if (a == b) return true;
    if (!a || !b || a->count != b->count || a->blob_len != b->blob_len) return false;
    return memcmp(a->camera, b->camera, sizeof a->camera[0] * a->count) == 0 && memcmp(a->blob, b->blob, a->blob_len) == 0;
}

/* A member of `object` of one of the given types, or NULL (also when absent or null, which `*present` tells). */
static struct json_object *member(struct json_object *object, const char *key, bool *present) {
    struct json_object *value = NULL;
    bool found = json_object_object_get_ex(object, key, &value);
    if (present) *present = found && value != NULL;
    return found ? value : NULL;
}

/* A string without NUL bytes inside, or NULL. */
static const char *plain_string(struct json_object *value, size_t *len) {
    if (!json_object_is_type(value, json_type_string)) return NULL;
    const char *s = json_object_get_string(value);
    size_t n = (size_t)json_object_get_string_len(value);
    if (!s || strlen(s) != n) return NULL;
    *len = n;
    return s;
}

/* The largest integer the protocol's numbers carry exactly (JSON's interoperable range). */
#define RTD_MAX_INTEGER (INT64_C(1) << 53)

static bool integer(struct json_object *value, int64_t *out) {
    if (!json_object_is_type(value, json_type_int)) return false;
    /* json-c keeps an integer beyond int64 as the nearest limit: such a value, as any beyond 2^53, is refused. */
    int64_t v = json_object_get_int64(value);
    if (v > RTD_MAX_INTEGER || v < -RTD_MAX_INTEGER) return false;
    *out = v;
    return true;
}

static bool quarter(int64_t v) { return v == 0 || v == 90 || v == 180 || v == 270; }

static int exif_for(int capture) {
    switch (capture) {
    case 0: return 1;
    case 90: return 6;
    case 180: return 3;
    case 270: return 8;
    default: return -1;
    }
}

/* The blob being filled while a camera list is decoded. */
struct blob {
    char data[RTD_MAX_LINE + RTD_MAX_CAMERAS];
    size_t len;
};

static bool blob_add(struct blob *b, const char *s, size_t n, uint16_t *offset) {
    if (b->len + n + 1 > sizeof b->data) return false;
    memcpy(b->data + b->len, s, n);
    b->data[b->len + n] = '\0';
    *offset = (uint16_t)b->len;
    b->len += n + 1;
    return true;
}

/* An optional string member: a string, null, or absent. */
static int optional_string(struct json_object *camera, const char *key, struct blob *b, uint16_t *offset, char *why, size_t why_len) {
    bool present;
    struct json_object *v = member(camera, key, &present);
    *offset = RTD_NONE;
    if (!present) return 0;
    size_t n;
    const char *s = plain_string(v, &n);
    if (!s) return refuse(why, why_len, "a camera's \"%s\" is not a string", key);
    if (!blob_add(b, s, n, offset)) return refuse(why, why_len, "the camera list is too long");
    return 0;
}

/* An optional name member of `object`: a string, null, or absent. Sets *value to 1 + the name's place in `names`
 * (the enum's order), or to 0 (unknown) for null, absence or a name of a later protocol; false for another type. */
static bool optional_name(struct json_object *object, const char *key, const char *const *names, size_t count, int *value) {
    bool present;
    struct json_object *v = member(object, key, &present);
    size_t n;
    const char *s = plain_string(v, &n);
    *value = 0;
    if (!present) return true;
    if (!s) return false;
    for (size_t i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0) *value = (int)i + 1;
    return true;
}

/* Decodes the "cameras" array of a hello or state into a new list (and, for a state, each capture, exif and
 * direction). */
static int decode_cameras(struct json_object *root, bool with_angles, struct rtd_state *state, char *why, size_t why_len) {
    bool present;
    struct json_object *array = member(root, "cameras", &present);
    size_t count = 0;
    if (present) {
        if (!json_object_is_type(array, json_type_array)) return refuse(why, why_len, "\"cameras\" is not an array");
        count = json_object_array_length(array);
        if (count > RTD_MAX_CAMERAS) return refuse(why, why_len, "%zu cameras, more than %d", count, RTD_MAX_CAMERAS);
    }
    struct blob *b = malloc(sizeof *b);
    if (!b) return refuse(why, why_len, "out of memory");
    b->len = 0;
    struct rtd_camera cams[RTD_MAX_CAMERAS];
    memset(cams, 0, sizeof cams);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        struct json_object *c = json_object_array_get_idx(array, i);
        struct rtd_camera *cam = &cams[i];
        if (!json_object_is_type(c, json_type_object)) {
            rc = refuse(why, why_len, "camera %zu is not an object", i);
            break;
        }
        size_t n;
        const char *name = plain_string(member(c, "name", NULL), &n);
        if (!name) {
            rc = refuse(why, why_len, "camera %zu has no string \"name\"", i);
            break;
        }
        if (!blob_add(b, name, n, &cam->name)) {
            rc = refuse(why, why_len, "the camera list is too long");
            break;
        }
        int64_t mount;
        if (!integer(member(c, "mount", NULL), &mount) || mount < 0 || mount >= 360) {
            rc = refuse(why, why_len, "camera %zu has no \"mount\" from 0 to 359", i);
            break;
        }
        cam->mount = (int16_t)mount;
        if ((rc = optional_string(c, "facing", b, &cam->facing, why, why_len)) ||
            (rc = optional_string(c, "device", b, &cam->device, why, why_len)) ||
            (rc = optional_string(c, "libcamera", b, &cam->libcamera, why, why_len)) ||
            (rc = optional_string(c, "bus_path", b, &cam->bus_path, why, why_len)))
            break;
        const char *panel = plain_string(member(c, "panel", &present), &n);
        if (present && !panel) {
            rc = refuse(why, why_len, "camera %zu: \"panel\" is not a name or null", i);
            break;
        }
        /* A service older than "panel" has every camera on the lid. */
        cam->panel = !panel || strcmp(panel, "lid") == 0 ? RTD_PANEL_LID : strcmp(panel, "base") == 0 ? RTD_PANEL_BASE : RTD_PANEL_OTHER;
        struct json_object *infrared = member(c, "infrared", &present);
        if (present && !json_object_is_type(infrared, json_type_boolean)) {
            rc = refuse(why, why_len, "camera %zu: \"infrared\" is not true, false or null", i);
            break;
        }
        cam->infrared = present && json_object_get_boolean(infrared);
        struct json_object *nodes = member(c, "nodes", &present);
        cam->nodes = RTD_NONE;
        if (present) {
            if (!json_object_is_type(nodes, json_type_array)) {
                rc = refuse(why, why_len, "camera %zu: \"nodes\" is not an array", i);
                break;
            }
            size_t k = json_object_array_length(nodes);
            for (size_t j = 0; j < k; j++) {
                uint16_t at;
                const char *node = plain_string(json_object_array_get_idx(nodes, j), &n);
                if (!node) {
                    rc = refuse(why, why_len, "camera %zu: a node is not a string", i);
                    break;
                }
                if (!blob_add(b, node, n, &at)) {
                    rc = refuse(why, why_len, "the camera list is too long");
                    break;
                }
                if (j == 0) cam->nodes = at;
                cam->node_count++;
            }
            if (rc) break;
        }
        if (with_angles) {
            int64_t capture = -1, exif = -1;
            struct json_object *v = member(c, "capture", &present);
            if (present && (!integer(v, &capture) || !quarter(capture))) {
                rc = refuse(why, why_len, "camera %zu: \"capture\" is not 0, 90, 180, 270 or null", i);
                break;
            }
            v = member(c, "exif", &present);
            if (present) {
                if (!integer(v, &exif) || (exif != 1 && exif != 3 && exif != 6 && exif != 8)) {
                    rc = refuse(why, why_len, "camera %zu: \"exif\" is not 1, 3, 6, 8 or null", i);
                    break;
                }
            } else if (capture >= 0) {
                /* A service older than "exif": it follows from "capture". */
                exif = exif_for((int)capture);
            }
            if ((capture < 0) != (exif < 0) || (capture >= 0 && exif_for((int)capture) != exif)) {
                rc = refuse(why, why_len, "camera %zu: \"exif\" %lld does not go with \"capture\" %lld", i, (long long)exif,
                            (long long)capture);
                break;
            }
            state->capture[i] = (int16_t)capture;
            state->exif[i] = (int16_t)exif;
            /* In the order of enum rotationd_direction. */
            static const char *const directions[] = {"forward", "backward", "sideways", "covered"};
            int direction;
            if (!optional_name(c, "direction", directions, sizeof directions / sizeof directions[0], &direction)) {
                rc = refuse(why, why_len, "camera %zu: \"direction\" is not a name or null", i);
                break;
            }
            state->direction[i] = (int8_t)direction;
        }
    }
    if (rc == 0) {
        struct rtd_cameras *list = calloc(1, sizeof *list + b->len);
        if (!list) {
            rc = refuse(why, why_len, "out of memory");
        } else {
            list->refs = 1;
            list->serial = atomic_fetch_add(&next_serial, 1);
            list->count = (unsigned)count;
            memcpy(list->camera, cams, sizeof cams);
            list->blob_len = b->len;
            memcpy(list->blob, b->data, b->len);
            state->cameras = list;
        }
    }
    free(b);
    return rc;
}

static enum rtd_sensor sensor_status(const char *s) {
    if (!s) return RTD_SENSOR_OTHER;
    if (strcmp(s, "ok") == 0) return RTD_SENSOR_OK;
    if (strcmp(s, "lost") == 0) return RTD_SENSOR_LOST;
    if (strcmp(s, "none") == 0) return RTD_SENSOR_NONE;
    if (strcmp(s, "idle") == 0) return RTD_SENSOR_IDLE;
    return RTD_SENSOR_OTHER;
}

/* The tilt's name as an enum rotationd_tilt value; a name of a later protocol is not known, not an error. */
static int tilt_class(const char *s) {
    static const char *const names[] = {"vertical", "tilted-up", "tilted-down", "face-up", "face-down"};
    static const int values[] = {ROTATIOND_TILT_VERTICAL, ROTATIOND_TILT_TILTED_UP, ROTATIOND_TILT_TILTED_DOWN, ROTATIOND_TILT_FACE_UP,
                                 ROTATIOND_TILT_FACE_DOWN};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0) return values[i];
    return ROTATIOND_TILT_UNKNOWN;
}

static int decode_state(struct json_object *root, struct rtd_state *state, char *why, size_t why_len) {
    int64_t v;
    bool present;
    if (!integer(member(root, "seq", NULL), &v) || v < 0) return refuse(why, why_len, "a state without a \"seq\" of 0 or more");
    state->seq = (uint64_t)v;
    struct json_object *t = member(root, "t", &present);
    if (present) {
        if (!json_object_is_type(t, json_type_double) && !json_object_is_type(t, json_type_int))
            return refuse(why, why_len, "\"t\" is not a number or null");
        double seconds = json_object_get_double(t);
        /* Nanoseconds in an int64_t reach 292 years either way. */
        if (!isfinite(seconds) || fabs(seconds) > 9.2e9) return refuse(why, why_len, "\"t\" is out of range");
        state->t = llround(seconds * 1e9);
        state->has_t = true;
    }
    struct json_object *rotation = member(root, "rotation", &present);
    state->rotation = -1;
    if (present) {
        if (!integer(rotation, &v) || !quarter(v)) return refuse(why, why_len, "\"rotation\" is not 0, 90, 180, 270 or null");
        state->rotation = (int)v;
    }
    struct json_object *tilt = member(root, "tilt", &present);
    size_t tilt_len;
    const char *tilt_name = plain_string(tilt, &tilt_len);
    if (present && !tilt_name) return refuse(why, why_len, "\"tilt\" is not a name or null");
    state->tilt = tilt_class(tilt_name);
    struct json_object *flat = member(root, "flat", &present);
    if (present && !json_object_is_type(flat, json_type_boolean)) return refuse(why, why_len, "\"flat\" is not true or false");
    state->flat = present && json_object_get_boolean(flat);
    struct json_object *missed = member(root, "missed", &present);
    if (present) {
        if (!integer(missed, &v) || v < 0) return refuse(why, why_len, "\"missed\" is not a count");
        state->missed = (uint64_t)v;
    }
    size_t n;
    state->sensor = sensor_status(plain_string(member(root, "sensor", NULL), &n));
    /* In the order of enum rotationd_posture. */
    static const char *const postures[] = {"closed", "laptop", "stand", "tent", "tablet"};
    if (!optional_name(root, "posture", postures, sizeof postures / sizeof postures[0], &state->posture))
        return refuse(why, why_len, "\"posture\" is not a name or null");
    struct json_object *hinge = member(root, "hinge", &present);
    state->hinge = -1;
    if (present) {
        if (!integer(hinge, &v) || v < 0 || v > 360) return refuse(why, why_len, "\"hinge\" is not 0 to 360 degrees or null");
        state->hinge = (int)v;
    }
    struct json_object *base = member(root, "base_rotation", &present);
    state->base_rotation = -1;
    if (present) {
        if (!integer(base, &v) || !quarter(v)) return refuse(why, why_len, "\"base_rotation\" is not 0, 90, 180 or 270");
        state->base_rotation = (int)v;
    }
    for (int i = 0; i < RTD_MAX_CAMERAS; i++) state->capture[i] = state->exif[i] = -1;
    int rc = decode_cameras(root, true, state, why, why_len);
    if (rc) return rc;
    /* The camera recommended to this user: a name of the list, or null (absent from an older service). */
    struct json_object *preferred = member(root, "preferred", &present);
    const char *name = plain_string(preferred, &n);
    if (present && !name) return refuse(why, why_len, "\"preferred\" is not a camera's name or null");
    state->preferred = -1;
    for (unsigned i = 0; name && state->cameras && i < state->cameras->count; i++)
        if (strcmp(rtd_string(state->cameras, state->cameras->camera[i].name), name) == 0) state->preferred = (int)i;
    return 0;
}

int rtd_parse_line(const char *line, size_t len, struct rtd_message *message, char *why, size_t why_len) {
    memset(message, 0, sizeof *message);
    message->state.rotation = -1;
    message->state.preferred = -1;
    if (why && why_len) why[0] = '\0';
    if (!line || len == 0) return refuse(why, why_len, "an empty line");
    if (len > RTD_MAX_LINE) return refuse(why, why_len, "a line longer than %d bytes", RTD_MAX_LINE);
    if (memchr(line, '\0', len)) return refuse(why, why_len, "a NUL byte in the line");
    struct json_tokener *tok = json_tokener_new_ex(RTD_JSON_DEPTH);
    if (!tok) return refuse(why, why_len, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *root = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error error = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int rc = 0;
    if (!root || error != json_tokener_success) {
        rc = refuse(why, why_len, "not JSON (%s)", error == json_tokener_continue ? "unfinished" : json_tokener_error_desc(error));
    } else if (end != len) {
        rc = refuse(why, why_len, "more after the JSON value");
    } else if (!json_object_is_type(root, json_type_object)) {
        rc = refuse(why, why_len, "not a JSON object");
    } else {
        size_t n;
        const char *type = plain_string(member(root, "type", NULL), &n);
        if (!type) {
            rc = refuse(why, why_len, "no string \"type\"");
        } else if (strcmp(type, "hello") == 0) {
            message->kind = RTD_MESSAGE_HELLO;
            if (!integer(member(root, "protocol", NULL), &message->protocol)) rc = refuse(why, why_len, "a hello without an integer \"protocol\"");
        } else if (strcmp(type, "state") == 0) {
            message->kind = RTD_MESSAGE_STATE;
            rc = decode_state(root, &message->state, why, why_len);
        } else {
            message->kind = RTD_MESSAGE_OTHER;
        }
    }
    json_object_put(root);
    if (rc) rtd_message_clear(message);
    return rc;
}

void rtd_message_clear(struct rtd_message *message) {
    rtd_cameras_unref(message->state.cameras);
    message->state.cameras = NULL;
}

/* ---- cameras by key ---- */

static bool has_node(const struct rtd_cameras *list, const struct rtd_camera *c, const char *path) {
    const char *device = rtd_string(list, c->device);
    if (device && strcmp(device, path) == 0) return true;
    const char *node = rtd_string(list, c->nodes);
    for (unsigned i = 0; node && i < c->node_count; i++, node += strlen(node) + 1)
        if (strcmp(node, path) == 0) return true;
    return false;
}

int rtd_find_camera(const struct rtd_cameras *list, const char *key) {
    for (unsigned i = 0; i < list->count; i++)
        if (strcmp(rtd_string(list, list->camera[i].name), key) == 0) return (int)i;
    for (unsigned i = 0; i < list->count; i++) {
        const char *id = rtd_string(list, list->camera[i].libcamera);
        if (id && strcmp(id, key) == 0) return (int)i;
    }
    for (unsigned i = 0; i < list->count; i++)
        if (has_node(list, &list->camera[i], key)) return (int)i;
    char real[PATH_MAX];
    if (key[0] == '/' && realpath(key, real)) {
        for (unsigned i = 0; i < list->count; i++)
            if (has_node(list, &list->camera[i], real)) return (int)i;
    }
    for (unsigned i = 0; i < list->count; i++) {
        const char *bus = rtd_string(list, list->camera[i].bus_path);
        if (bus && strcmp(bus, key) == 0) return (int)i;
    }
    return -1;
}

/* ---- history ---- */

static struct rtd_entry *slot(struct rtd_history *h, unsigned i) { return &h->entry[(h->first + i) % RTD_HISTORY]; }
static const struct rtd_entry *cslot(const struct rtd_history *h, unsigned i) { return &h->entry[(h->first + i) % RTD_HISTORY]; }

void rtd_history_clear(struct rtd_history *h) {
    for (unsigned i = 0; i < h->count; i++) {
        rtd_cameras_unref(slot(h, i)->state.cameras);
        slot(h, i)->state.cameras = NULL;
    }
    h->first = h->count = 0;
}

const struct rtd_entry *rtd_history_last(const struct rtd_history *h) { return h->count ? cslot(h, h->count - 1) : NULL; }

void rtd_history_record(struct rtd_history *h, const struct rtd_state *state, bool new_connection) {
    if (!state->has_t) return;
    const struct rtd_entry *last = rtd_history_last(h);
    if (last) {
        if (last->state.seq == state->seq && last->state.t == state->t) return;
        if (state->t < last->state.t) rtd_history_clear(h);
    }
    bool gap = state->missed > 0 || (new_connection && h->count > 0);
    if (h->count == RTD_HISTORY) {
        rtd_cameras_unref(slot(h, 0)->state.cameras);
        slot(h, 0)->state.cameras = NULL;
        h->first = (h->first + 1) % RTD_HISTORY;
        h->count--;
    }
    struct rtd_entry *e = slot(h, h->count++);
    e->state = *state;
    rtd_cameras_ref(e->state.cameras);
    e->gap_before = gap;
}

const struct rtd_entry *rtd_history_at(const struct rtd_history *h, int64_t t, bool *gap) {
    *gap = false;
    unsigned low = 0, high = h->count;
    while (low < high) {
        unsigned mid = low + (high - low) / 2;
        if (cslot(h, mid)->state.t <= t) low = mid + 1;
        else high = mid;
    }
    if (low == 0) return NULL;
    if (low < h->count && cslot(h, low)->gap_before) {
        *gap = true;
        return NULL;
    }
    return cslot(h, low - 1);
}
