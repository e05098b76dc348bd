/* The protocol's messages as the library keeps them, and their parser (message.c). Internal. */
#ifndef ROTATIOND_MESSAGE_H
#define ROTATIOND_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line of protocol 1, not counting its newline. */
#define RTD_MAX_LINE 4096
/* The most cameras a state may list; the service sends at most 6. */
#define RTD_MAX_CAMERAS 16
/* A string member that is null or absent. */
#define RTD_NONE UINT16_MAX

/* The panel a camera sits on: `lid` (also when absent or null, from an older service), `base`, or a name this
 * library does not know. */
enum rtd_panel { RTD_PANEL_LID, RTD_PANEL_BASE, RTD_PANEL_OTHER };

/* One camera; each string is an offset into its list's blob, or RTD_NONE. */
struct rtd_camera {
    uint16_t name, facing, device, libcamera, bus_path;
    /* The capture nodes, `node_count` NUL-terminated strings one after the other from offset `nodes`. */
    uint16_t nodes, node_count;
    int16_t mount;
    /* An enum rtd_panel value. */
    uint16_t panel;
    /* Whether it sees infrared only (false when absent, from an older service). */
    bool infrared;
};

/* A camera list, shared by the states that carry the same one; freed with its last reference. */
struct rtd_cameras {
    unsigned refs;
    /* Different for every list made, so that a cache can tell a list from one allocated at the same address. */
    uint64_t serial;
    unsigned count;
    struct rtd_camera camera[RTD_MAX_CAMERAS];
    size_t blob_len;
    char blob[];
};

enum rtd_sensor { RTD_SENSOR_OTHER, RTD_SENSOR_OK, RTD_SENSOR_LOST, RTD_SENSOR_NONE, RTD_SENSOR_IDLE };

/* A `state` message. */
struct rtd_state {
    uint64_t seq;
    /* `t` in nanoseconds; has_t is false for null. */
    int64_t t;
    bool has_t;
    /* 0, 90, 180, 270, or -1 for null. */
    int rotation;
    /* An enum rotationd_tilt value: ROTATIOND_TILT_UNKNOWN for null, absent or a name this library does not know. */
    int tilt;
    bool flat;
    uint64_t missed;
    enum rtd_sensor sensor;
    /* An enum rotationd_posture value: ROTATIOND_POSTURE_UNKNOWN for null, absent or a name this library does not know. */
    int posture;
    /* 0 to 360, or -1 for null or absent. */
    int hinge;
    /* 0, 90, 180, 270, or -1 when absent. */
    int base_rotation;
    struct rtd_cameras *cameras;
    /* Per camera: capture angle (or -1) and EXIF Orientation (or -1). */
    int16_t capture[RTD_MAX_CAMERAS];
    int16_t exif[RTD_MAX_CAMERAS];
    /* Per camera: an enum rotationd_direction value, ROTATIOND_DIRECTION_UNKNOWN for null, absent or a name this
     * library does not know. */
    int8_t direction[RTD_MAX_CAMERAS];
    /* The index of the camera `preferred` names, or -1 (null, absent, or a name not in the list). */
    int preferred;
};

enum rtd_kind { RTD_MESSAGE_OTHER, RTD_MESSAGE_HELLO, RTD_MESSAGE_STATE };

/* A line from the service, decoded. */
struct rtd_message {
    enum rtd_kind kind;
    /* hello: the protocol version. */
    int64_t protocol;
    /* state: the state; it owns a reference to its cameras. */
    struct rtd_state state;
};

/* Decodes one line (without its newline). Returns 0, or -EBADMSG with a reason in `why` when the line is not
 * a message this library can use: not one JSON object, or a hello or state whose members have wrong types or
 * values. Other message types decode as RTD_MESSAGE_OTHER. Never reads past `len`. */
int rtd_parse_line(const char *line, size_t len, struct rtd_message *message, char *why, size_t why_len);

/* Releases what a decoded message holds. */
void rtd_message_clear(struct rtd_message *message);

struct rtd_cameras *rtd_cameras_ref(struct rtd_cameras *cameras);
void rtd_cameras_unref(struct rtd_cameras *cameras);
bool rtd_cameras_equal(const struct rtd_cameras *a, const struct rtd_cameras *b);

/* A camera's string member, or NULL. */
static inline const char *rtd_string(const struct rtd_cameras *list, uint16_t offset) {
    return offset == RTD_NONE ? NULL : list->blob + offset;
}

/* The camera `key` names in `list`, by RotationClient's CameraLookup rules: its name, then its libcamera id,
 * then its device or a capture node, then the same through realpath() for a path, then its bus path. -1 when
 * none. */
int rtd_find_camera(const struct rtd_cameras *list, const char *key);

/* The states received, oldest first, with increasing t, at most RTD_HISTORY of them. */
#define RTD_HISTORY 256

struct rtd_entry {
    struct rtd_state state;
    /* Changes may have been missed between the previous entry and this one. */
    bool gap_before;
};

struct rtd_history {
    struct rtd_entry entry[RTD_HISTORY];
    unsigned first, count;
};

/* Records a state (taking a reference to its cameras), as RotationClient's StateHistory does: a state without t
 * is not kept; the same seq and t again is kept once; an earlier t starts the history again; the first state on
 * a new connection, or one that says it missed changes, opens a gap before it. */
void rtd_history_record(struct rtd_history *history, const struct rtd_state *state, bool new_connection);

/* The entry in force at `t` (nanoseconds on the service's clock): the last with entry t <= t. NULL when there is
 * none, or when the next one has a gap before it; *gap tells which. */
const struct rtd_entry *rtd_history_at(const struct rtd_history *history, int64_t t, bool *gap);

/* The latest entry, or NULL. */
const struct rtd_entry *rtd_history_last(const struct rtd_history *history);

void rtd_history_clear(struct rtd_history *history);

#endif
