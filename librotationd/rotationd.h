/* librotationd: the C client library of rotationd, the rotation service for Linux tablets.
 *
 * A capture program asks it how each of its cameras' frames must turn to be upright, at the moment a frame
 * was taken. The library subscribes to the service's Unix socket (Docs/protocol.md), keeps the recent states
 * it published, and answers from them. It never blocks its caller except in rotationd_wait(), never raises a
 * signal, and takes nothing from the service on trust: a line it cannot read is dropped, a service that
 * misbehaves is disconnected and reconnected to later.
 *
 * The loop a program runs:
 *
 *     rotationd *r;
 *     if (rotationd_open(&r, NULL) < 0) ...;          // only fails when out of memory or file descriptors
 *     // add rotationd_fd(r) to the program's poll set (or GLib or Qt loop), for reading; when it is readable:
 *     rotationd_dispatch(r);
 *     // for a frame taken at `ns` on CLOCK_MONOTONIC by the camera the program opened:
 *     struct rotationd_angle a;
 *     if (rotationd_camera_angle(r, "/dev/video0", ns, &a) == 0) use(a.capture, a.exif);
 *     else fprintf(stderr, "%s\n", rotationd_error_message(r));
 *
 * Errors are negative errno values, and rotationd_error_message() says what failed and how to fix it. One
 * handle is used by one thread at a time; handles are independent of each other.
 */
#ifndef ROTATIOND_H
#define ROTATIOND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A subscription to rotationd: its connection, the states received, and the last error. */
typedef struct rotationd rotationd;

/** The time to pass for "now": the current state rather than the one in force at a moment. */
#define ROTATIOND_NOW INT64_C(-1)

/** A camera's angles in one state of the service. */
struct rotationd_angle {
    /** Degrees clockwise a frame from the camera must turn to be upright: 0, 90, 180 or 270. */
    int capture;
    /** The EXIF Orientation for that turn: 1, 6, 3 or 8. */
    int exif;
    /** Degrees clockwise a frame must turn while the device is in its natural orientation. */
    int mount;
    /** (capture - mount) mod 360: the device's turn alone, for a program that already applies the mount. */
    int turn;
    /** How far the device is turned clockwise from its natural orientation: 0, 90, 180 or 270. */
    int rotation;
    /** When the state began to hold: nanoseconds on CLOCK_MONOTONIC for a live or served service. */
    int64_t since;
    /** The state's sequence number in the service's run. */
    uint64_t seq;
};

/** How far the screen leans away from vertical, from the service's `tilt` (Docs/protocol.md). */
enum rotationd_tilt {
    /** Not known: no usable sample yet, or a class of a later protocol. */
    ROTATIOND_TILT_UNKNOWN = 0,
    /** The screen is near vertical. */
    ROTATIOND_TILT_VERTICAL,
    /** The screen leans back, facing up, but the device is not flat. */
    ROTATIOND_TILT_TILTED_UP,
    /** The screen leans forward, facing down, but the device is not flat. */
    ROTATIOND_TILT_TILTED_DOWN,
    /** The device lies flat, the screen to the sky. */
    ROTATIOND_TILT_FACE_UP,
    /** The device lies flat, the screen to the ground. */
    ROTATIOND_TILT_FACE_DOWN,
};

/** How the device is held in one state of the service. */
struct rotationd_state {
    /** How far the device is turned clockwise: 0, 90, 180 or 270, or -1 while the service has not decided. */
    int rotation;
    /** The tilt class, an enum rotationd_tilt value. */
    int tilt;
    /** 1 while the device lies flat (the rotation then holds), else 0. */
    int flat;
    /** When the state began to hold: nanoseconds on CLOCK_MONOTONIC for a live or served service, or -1 for a state
     *  without a time (before the service's first sample, or while it is idle). */
    int64_t since;
    /** The state's sequence number in the service's run. */
    uint64_t seq;
};

/** How a convertible is folded, from the service's `posture` (Docs/posture.md). */
enum rotationd_posture {
    /** Not known: nothing tells it (a plain tablet, or a service older than postures), or a posture of a later protocol. */
    ROTATIOND_POSTURE_UNKNOWN = 0,
    /** Closed: the hinge at most 20 degrees, the keyboard covered. */
    ROTATIOND_POSTURE_CLOSED,
    /** Opened as a laptop, up to about 200 degrees: the keyboard can be used. */
    ROTATIOND_POSTURE_LAPTOP,
    /** Folded past flat, the base face down as a foot, the display upright. */
    ROTATIOND_POSTURE_STAND,
    /** Folded past flat and stood on both edges, the display upside down. */
    ROTATIOND_POSTURE_TENT,
    /** Folded back (320 degrees and more), or a detachable without its base. */
    ROTATIOND_POSTURE_TABLET,
};

/** How a convertible is folded in one state of the service. */
struct rotationd_fold {
    /** The posture, an enum rotationd_posture value. */
    int posture;
    /** The angle between the panels in whole degrees (0 closed, 180 opened flat, 360 folded back), or -1 while it is
     *  not known (no hinge source, the hinge pointing at the ground, the base detached, or an older service). */
    int hinge;
    /** The base panel's own rotation, 0, 90, 180 or 270 degrees clockwise, which turns the frames of the cameras on
     *  it; -1 until the base has stood up from flat. */
    int base_rotation;
    /** When the state began to hold, as in struct rotationd_state: nanoseconds on CLOCK_MONOTONIC, or -1. */
    int64_t since;
    /** The state's sequence number in the service's run. */
    uint64_t seq;
};

/** Which way a camera looks relative to a person facing the display, from the service's `direction`. */
enum rotationd_direction {
    /** Not known: an external camera, a base camera while the hinge is unknown, a service older than directions, or
     *  a direction of a later protocol. */
    ROTATIOND_DIRECTION_UNKNOWN = 0,
    /** Within 45 degrees of the display's own direction: it sees the person at the display. */
    ROTATIOND_DIRECTION_FORWARD,
    /** Within 45 degrees of the opposite: it sees what that person sees. */
    ROTATIOND_DIRECTION_BACKWARD,
    /** Between the two. */
    ROTATIOND_DIRECTION_SIDEWAYS,
    /** An inner face of a closed device. */
    ROTATIOND_DIRECTION_COVERED,
};

/** Opens a subscription to the service at `socket_path`, or, when it is NULL or empty, where the other clients
 *  look: $ROTATIOND_SOCKET, else $XDG_RUNTIME_DIR/rotationd.sock when it exists (not for root), else
 *  /run/rotationd/rotationd.sock.
 *
 *  Connecting is tried at once without waiting; with no service there yet, the handle is made all the same and
 *  connects when the service appears, as it reconnects when the service restarts (after 0.1 s, doubling up to
 *  2 s). Returns 0 and sets *client, or -ENOMEM, -EMFILE, -ENAMETOOLONG (a path longer than a Unix socket's),
 *  -EINVAL (client is NULL); *client is then NULL. */
int rotationd_open(rotationd **client, const char *socket_path);

/** Closes the connection and frees the handle; NULL is ignored. */
void rotationd_close(rotationd *client);

/** The socket path the handle connects to. */
const char *rotationd_socket_path(const rotationd *client);

/** A file descriptor that becomes readable when rotationd_dispatch() has something to do: a line from the
 *  service, or a time to reconnect. It stays the same for the life of the handle, across reconnections. Poll
 *  it for POLLIN (G_IO_IN, QSocketNotifier::Read); never read it or close it. */
int rotationd_fd(const rotationd *client);

/** Does what is pending, without blocking: reads what the service sent, reconnects when it is time. Returns the
 *  number of states received (0 or more), or -EINVAL. A lost connection is not an error: it is tried again
 *  later, and rotationd_is_connected() says so. */
int rotationd_dispatch(rotationd *client);

/** Waits up to `timeout_ms` milliseconds (-1: without end) for something to do, then dispatches it. Returns
 *  what rotationd_dispatch() returns, 0 when the time ran out, or -EINTR when a signal came. The one call of
 *  the library that blocks. */
int rotationd_wait(rotationd *client, int timeout_ms);

/** 1 when connected to a service that greeted as protocol 1, else 0. */
int rotationd_is_connected(const rotationd *client);

/** The device rotation in force at `monotonic_ns` (nanoseconds on CLOCK_MONOTONIC, the clock of V4L2 frame
 *  timestamps and of GStreamer's system clock), or now with ROTATIOND_NOW: 0, 90, 180 or 270 degrees clockwise.
 *  Returns 0, -ENODATA (not known: before the first state received, in a span where changes may have been
 *  missed, or the rotation undecided then), -ENOTCONN (no service then, or not connected now), -EINVAL. */
int rotationd_rotation(rotationd *client, int64_t monotonic_ns, int *degrees);

/** How the device is held in the state in force at `monotonic_ns` (or now with ROTATIOND_NOW): its rotation, tilt
 *  and flatness. Unlike rotationd_rotation(), a rotation not decided yet is no error: state->rotation is then -1.
 *  Returns 0 and fills *state, or -ENODATA (no state known then, as for rotationd_rotation()), -ENOTCONN, -EINVAL. */
int rotationd_state(rotationd *client, int64_t monotonic_ns, struct rotationd_state *state);

/** The angles of the camera that `camera` names, in the state in force at `monotonic_ns` (or now with
 *  ROTATIOND_NOW). `camera` is anything a program knows a camera by, tried in this order: its rotationd name,
 *  its libcamera id (PipeWire's api.libcamera.path), its device or one of its capture nodes (also through a
 *  symlink such as /dev/v4l/by-id/...), its udev ID_PATH (PipeWire's device.bus-path). Returns 0 and fills
 *  *angle, or -ENODEV (no camera answers to `camera` then), -ENODATA, -ENOTCONN (as rotationd_rotation()),
 *  -EINVAL. */
int rotationd_camera_angle(rotationd *client, const char *camera, int64_t monotonic_ns, struct rotationd_angle *angle);

/** How the device is folded in the state in force at `monotonic_ns` (or now with ROTATIOND_NOW): its posture, hinge
 *  angle and base rotation. A device with no posture (a plain tablet) is no error: fold->posture is then
 *  ROTATIOND_POSTURE_UNKNOWN and fold->hinge -1. Returns 0 and fills *fold, or -ENODATA, -ENOTCONN (as
 *  rotationd_state()), -EINVAL. */
int rotationd_fold(rotationd *client, int64_t monotonic_ns, struct rotationd_fold *fold);

/** Which way the camera that `camera` names (any key rotationd_camera_angle() takes) looks in the state in force at
 *  `monotonic_ns` (or now with ROTATIOND_NOW): an enum rotationd_direction value. A direction not known is no
 *  error, nor is a rotation not decided. Returns 0 and sets *direction, or -ENODEV, -ENODATA, -ENOTCONN (as
 *  rotationd_camera_angle()), -EINVAL. */
int rotationd_camera_direction(rotationd *client, const char *camera, int64_t monotonic_ns, int *direction);

/** The cameras whose direction is `direction` (an enum rotationd_direction value) in the state in force at
 *  `monotonic_ns` (or now with ROTATIOND_NOW), in the service's order: with ROTATIOND_DIRECTION_FORWARD, the
 *  cameras facing the person at the display. Stores the first `max_names` of their rotationd names in `names`
 *  (which may be NULL when max_names is 0) and returns how many there are, 0 or more and possibly more than
 *  max_names; or -ENODATA, -ENOTCONN (as rotationd_state()), -EINVAL. The names stay valid until the next rotationd_dispatch(),
 *  rotationd_wait() or rotationd_close() on the handle; each is a key for rotationd_camera_angle(). */
int rotationd_cameras_by_direction(rotationd *client, int direction, int64_t monotonic_ns, const char **names, size_t max_names);

/** The camera the service recommends to this program's user now, the one to open: a camera plugged in after the
 *  user last chose, else the user's preferred camera, else the built-in camera facing the user, else any camera
 *  that takes pictures (never an infrared one the user did not choose; Docs/cameras.md, "Which camera to open").
 *  Follow a change only while not recording. Sets *name to its rotationd name (a key for rotationd_camera_angle())
 *  and, when `device` is not NULL, *device to the node to open (NULL for a camera without one); both stay valid
 *  until the next rotationd_dispatch(), rotationd_wait() or rotationd_close() on the handle. Returns 0, -ENODEV
 *  (no camera is recommended: none takes pictures, or the service is older than preferred cameras), -ENODATA (no
 *  state received yet), -ENOTCONN, -EINVAL. */
int rotationd_preferred_camera(rotationd *client, const char **name, const char **device);

/** Makes the camera `camera` names (any key rotationd_camera_angle() takes) the user's preferred camera, which the
 *  service keeps for the user across restarts; NULL forgets the choice. The request is sent at once without
 *  waiting; the service's answer is a state that rotationd_preferred_camera() reads after the next dispatch.
 *  Returns 0 once sent, -ENODEV (no camera answers to `camera` in the latest state: nothing is sent),
 *  -ENODATA (no state received yet), -ENOTCONN, -EAGAIN (the socket is full: try again after a dispatch), -EINVAL. */
int rotationd_prefer(rotationd *client, const char *camera);

/** A sentence saying what the last failed call on `client` found and how to fix it; "" before any. It stays
 *  valid until the next call on the handle. */
const char *rotationd_error_message(const rotationd *client);

/** A CLOCK_BOOTTIME timestamp (libcamera's SensorTimestamp) as CLOCK_MONOTONIC nanoseconds: less the time the
 *  system has spent suspended, read now. Convert soon after the frame: a suspend in between moves it. */
int64_t rotationd_monotonic_from_boottime(int64_t boottime_ns);

#ifdef __cplusplus
}
#endif

#endif
