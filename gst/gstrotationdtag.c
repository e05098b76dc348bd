/* rotationdtag: a passthrough GStreamer element that tags a camera's stream with the image-orientation
 * rotationd gives for it at each buffer's capture time.
 *
 *     v4l2src ! rotationdtag camera=/dev/video0 ! jpegenc ! jifmux ! filesink location=photo.jpg
 *
 * The buffers pass untouched. Before the first buffer, and before the first buffer after each change, the
 * element sends a stream-scope tag event with image-orientation (rotate-0, rotate-90, rotate-180, rotate-270):
 * the capture angle of the state in force when the buffer was captured, its running time on the pipeline clock
 * (CLOCK_MONOTONIC for GStreamer's system clock, the clock of rotationd's "t"). With mode=lock it sends one value,
 * the first buffer's, for the whole stream, as a recording's track holds one orientation.
 *
 * Where upstream already tags the stream's orientation (pipewiresrc tags the sensor mount), the element adds
 * only the device's turn to it, so the mount is never counted twice; the other upstream tags pass with it.
 * Without the service, buffers pass untouched, the element warns once, and it picks the angle up when the
 * service appears. On the streaming thread it reads the socket without ever waiting on it (librotationd); only
 * when it starts does it give a listening service up to half a second to send its state, so that the first
 * buffer, which a recording locks, has an angle. */
#include <errno.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <rotationd.h>
#include <sys/stat.h>
#include <time.h>

#ifndef ROTATIOND_VERSION
#define ROTATIOND_VERSION "0.1.0"
#endif

GST_DEBUG_CATEGORY_STATIC(rotationd_tag_debug);
#define GST_CAT_DEFAULT rotationd_tag_debug

/** How the element follows the angle. */
typedef enum {
    /* Every change, buffer by buffer: stills, bursts, a preview. */
    ROTATIOND_TAG_FOLLOW,
    /* The first buffer's angle for the whole stream: a recording. */
    ROTATIOND_TAG_LOCK,
} RotationdTagMode;

#define ROTATIOND_TYPE_TAG_MODE (rotationd_tag_mode_get_type())
static GType rotationd_tag_mode_get_type(void) {
    static GType type = 0;
    static const GEnumValue values[] = {
        {ROTATIOND_TAG_FOLLOW, "Follow the angle buffer by buffer (stills, bursts)", "follow"},
        {ROTATIOND_TAG_LOCK, "Keep the first buffer's angle for the whole stream (a recording)", "lock"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) g_once_init_leave(&type, g_enum_register_static("RotationdTagMode", values));
    return type;
}

#define ROTATIOND_TYPE_TAG (rotationd_tag_get_type())
G_DECLARE_FINAL_TYPE(RotationdTag, rotationd_tag, ROTATIOND, TAG, GstBaseTransform)

/* An orientation: a clockwise quarter-turn count 0-3, plus FLIP when the frame is mirrored first; NONE for none. */
#define FLIP 4
#define NONE (-1)

struct _RotationdTag {
    GstBaseTransform parent;
    /* Properties, under the object lock. */
    gchar *camera;
    gchar *socket;
    RotationdTagMode mode;
    /* The streaming thread's. */
    rotationd *client;
    gchar *key;
    /* Set (atomically) when the camera property changed while streaming. */
    gint key_changed;
    /* The orientation sent downstream, and whether it is locked for the stream. */
    int sent;
    gboolean locked;
    /* The orientation upstream tags the stream with, and its last stream-scope tag list. */
    int upstream;
    GstTagList *upstream_tags;
    /* The last angle found: the capture angle and the device's turn alone, in quarter turns; NONE before. */
    int capture;
    int turn;
    gboolean warned_service, warned_camera;
    /* Whether upstream is live (asked at the first buffer of a stream), and the clock last seen. */
    gboolean live_known, live;
    GstClock *clock;
    gboolean clock_monotonic;
};

G_DEFINE_TYPE(RotationdTag, rotationd_tag, GST_TYPE_BASE_TRANSFORM)

enum { PROP_0, PROP_CAMERA, PROP_MODE, PROP_SOCKET };

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static const char *const tag_names[8] = {"rotate-0", "rotate-90", "rotate-180", "rotate-270",
                                         "flip-rotate-0", "flip-rotate-90", "flip-rotate-180", "flip-rotate-270"};

/* The orientation an image-orientation value names, or NONE. */
static int orientation_from_tag(const gchar *value) {
    for (int i = 0; value && i < 8; i++)
        if (g_strcmp0(value, tag_names[i]) == 0) return i;
    return NONE;
}

/* `upstream` turned `quarters` further clockwise; a mirrored frame stays mirrored first. */
static int compose(int upstream, int quarters) { return (upstream & FLIP) | (((upstream & 3) + quarters) & 3); }

/* The orientation to send: the capture angle, or upstream's with the device's turn added. */
static int wanted(const RotationdTag *self) {
    if (self->capture == NONE) return self->upstream;
    return self->upstream == NONE ? self->capture : compose(self->upstream, self->turn);
}

static void rotationd_tag_reset_stream(RotationdTag *self) {
    self->sent = NONE;
    self->locked = FALSE;
    self->upstream = NONE;
    self->capture = NONE;
    self->turn = NONE;
    self->live_known = FALSE;
    g_clear_pointer(&self->upstream_tags, gst_tag_list_unref);
}

/* A stream-scope tag list: upstream's last one (or an empty one) with image-orientation set to `orientation`. */
static GstTagList *tags_with(RotationdTag *self, int orientation) {
    GstTagList *list = self->upstream_tags ? gst_tag_list_copy(self->upstream_tags) : gst_tag_list_new_empty();
    gst_tag_list_set_scope(list, GST_TAG_SCOPE_STREAM);
    gst_tag_list_add(list, GST_TAG_MERGE_REPLACE, GST_TAG_IMAGE_ORIENTATION, tag_names[orientation], NULL);
    return list;
}

static void send_orientation(RotationdTag *self, int orientation) {
    GST_DEBUG_OBJECT(self, "image-orientation %s", tag_names[orientation]);
    self->sent = orientation;
    gst_pad_push_event(GST_BASE_TRANSFORM_SRC_PAD(self), gst_event_new_tag(tags_with(self, orientation)));
}

static gint64 monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (gint64)ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

/* Whether upstream is live, asked once per stream: a live source's timestamps are capture times. */
static void ask_liveness(RotationdTag *self) {
    GstQuery *query = gst_query_new_latency();
    gboolean live = FALSE;
    if (gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(self), query)) gst_query_parse_latency(query, &live, NULL, NULL);
    gst_query_unref(query);
    self->live = live;
    self->live_known = TRUE;
    GST_DEBUG_OBJECT(self, "upstream is %s", live ? "live: capture times from timestamps" : "not live: capture times on arrival");
}

/* When `buffer` was captured, in nanoseconds on CLOCK_MONOTONIC: the pipeline clock's time at its running time
 * (base time + running time), which for GStreamer's system clock already is CLOCK_MONOTONIC, and for any other
 * clock is carried over by how long ago it was on that clock. A buffer from a source that is not live, or without
 * a timestamp, was captured as it arrives. */
static gint64 capture_time(RotationdTag *self, GstBuffer *buffer) {
    GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
    if (!self->live_known) ask_liveness(self);
    GstClockTime pts = GST_BUFFER_PTS(buffer);
    if (!self->live || !GST_CLOCK_TIME_IS_VALID(pts) || trans->segment.format != GST_FORMAT_TIME) return monotonic_now();
    GstClockTime running = gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, pts);
    if (!GST_CLOCK_TIME_IS_VALID(running)) return monotonic_now();
    GST_OBJECT_LOCK(self);
    GstClock *clock = GST_ELEMENT_CLOCK(self);
    GstClockTime base = GST_ELEMENT_CAST(self)->base_time;
    if (clock != self->clock) {
        /* A new clock: whether it is GStreamer's system clock on CLOCK_MONOTONIC (asked only when it changes). */
        gst_object_replace((GstObject **)&self->clock, (GstObject *)clock);
        GstClockType type = GST_CLOCK_TYPE_REALTIME;
        if (clock && GST_IS_SYSTEM_CLOCK(clock)) g_object_get(clock, "clock-type", &type, NULL);
        self->clock_monotonic = clock && GST_IS_SYSTEM_CLOCK(clock) && type == GST_CLOCK_TYPE_MONOTONIC;
    }
    if (clock) gst_object_ref(clock);
    GST_OBJECT_UNLOCK(self);
    if (!clock) return monotonic_now();
    gint64 at = (gint64)(base + running);
    if (!self->clock_monotonic) at = monotonic_now() - ((gint64)gst_clock_get_time(clock) - at);
    gst_object_unref(clock);
    return at;
}

static GstFlowReturn rotationd_tag_transform_ip(GstBaseTransform *trans, GstBuffer *buffer) {
    RotationdTag *self = ROTATIOND_TAG(trans);
    if (!self->client) return GST_FLOW_OK;
    /* Read what the service sent even when locked, so that it never sees a subscriber that stopped reading. */
    rotationd_dispatch(self->client);
    if (self->mode == ROTATIOND_TAG_LOCK && self->locked) return GST_FLOW_OK;
    if (G_UNLIKELY(g_atomic_int_get(&self->key_changed))) {
        GST_OBJECT_LOCK(self);
        g_free(self->key);
        self->key = g_strdup(self->camera);
        g_atomic_int_set(&self->key_changed, 0);
        GST_OBJECT_UNLOCK(self);
        self->warned_camera = FALSE;
    }
    gint64 when = capture_time(self, buffer);
    struct rotationd_angle angle;
    int rc = rotationd_camera_angle(self->client, self->key, when, &angle);
    if (rc == -ENOTCONN) {
        if (!self->warned_service) {
            self->warned_service = TRUE;
            GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("No rotation service: buffers pass without an orientation tag until it appears."),
                                ("%s", rotationd_error_message(self->client)));
        }
        return GST_FLOW_OK;
    }
    if (rc == -ENODEV) {
        if (!self->warned_camera) {
            self->warned_camera = TRUE;
            GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("The rotation service lists no camera \"%s\": set the camera property.", self->key),
                                ("%s", rotationd_error_message(self->client)));
        }
        return GST_FLOW_OK;
    }
    if (rc < 0) {
        GST_LOG_OBJECT(self, "no angle for %s at %" G_GINT64_FORMAT ": %s", self->key, when, rotationd_error_message(self->client));
        return GST_FLOW_OK;
    }
    if (self->capture == NONE) GST_INFO_OBJECT(self, "camera %s: capture angle %d", self->key, angle.capture);
    self->capture = angle.capture / 90;
    self->turn = angle.turn / 90;
    int orientation = wanted(self);
    if (orientation != self->sent) send_orientation(self, orientation);
    if (self->mode == ROTATIOND_TAG_LOCK) self->locked = TRUE;
    return GST_FLOW_OK;
}

static gboolean rotationd_tag_sink_event(GstBaseTransform *trans, GstEvent *event) {
    RotationdTag *self = ROTATIOND_TAG(trans);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_STREAM_START:
        rotationd_tag_reset_stream(self);
        break;
    case GST_EVENT_TAG: {
        GstTagList *list;
        gst_event_parse_tag(event, &list);
        if (gst_tag_list_get_scope(list) != GST_TAG_SCOPE_STREAM) break;
        gchar *value = NULL;
        self->upstream = gst_tag_list_get_string(list, GST_TAG_IMAGE_ORIENTATION, &value) ? orientation_from_tag(value) : NONE;
        g_free(value);
        gst_tag_list_replace(&self->upstream_tags, list);
        if (self->sent == NONE) break;
        /* Upstream's tags go on with the orientation this element gives, composed with upstream's own. */
        int orientation = self->locked ? self->sent : wanted(self);
        if (orientation == NONE) break;
        gst_event_unref(event);
        self->sent = orientation;
        event = gst_event_new_tag(tags_with(self, orientation));
        break;
    }
    default:
        break;
    }
    return GST_BASE_TRANSFORM_CLASS(rotationd_tag_parent_class)->sink_event(trans, event);
}

/* Gives the service up to FIRST_STATE_WAIT_MS to greet and send its state, so that the stream's first buffer finds
 * an angle: a recording locks that buffer's. Called when the element starts (READY to PAUSED), never on the
 * streaming thread; it returns at once when nothing listens on the socket. */
#define FIRST_STATE_WAIT_MS 500
static void await_first_state(RotationdTag *self) {
    struct stat st;
    if (stat(rotationd_socket_path(self->client), &st) != 0) return;
    gint64 deadline = monotonic_now() + (gint64)FIRST_STATE_WAIT_MS * 1000000;
    for (;;) {
        struct rotationd_angle angle;
        int rc = rotationd_camera_angle(self->client, self->key, ROTATIOND_NOW, &angle);
        if (rc == 0 || rc == -ENODEV) return;
        gint64 left = deadline - monotonic_now();
        if (left <= 0) return;
        rc = rotationd_wait(self->client, (int)(left / 1000000) + 1);
        if (rc < 0 && rc != -EINTR) return;
    }
}

static gboolean rotationd_tag_start(GstBaseTransform *trans) {
    RotationdTag *self = ROTATIOND_TAG(trans);
    GST_OBJECT_LOCK(self);
    gchar *socket = g_strdup(self->socket);
    g_free(self->key);
    self->key = g_strdup(self->camera);
    g_atomic_int_set(&self->key_changed, 0);
    GST_OBJECT_UNLOCK(self);
    int rc = rotationd_open(&self->client, socket);
    if (rc < 0) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Cannot open a connection to the rotation service: %s.", g_strerror(-rc)),
                          ("socket %s", socket ? socket : "(default)"));
        g_free(socket);
        return FALSE;
    }
    g_free(socket);
    GST_INFO_OBJECT(self, "following camera %s through %s", self->key, rotationd_socket_path(self->client));
    self->warned_service = self->warned_camera = FALSE;
    rotationd_tag_reset_stream(self);
    await_first_state(self);
    return TRUE;
}

static gboolean rotationd_tag_stop(GstBaseTransform *trans) {
    RotationdTag *self = ROTATIOND_TAG(trans);
    rotationd_close(self->client);
    self->client = NULL;
    rotationd_tag_reset_stream(self);
    gst_object_replace((GstObject **)&self->clock, NULL);
    return TRUE;
}

static void rotationd_tag_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    RotationdTag *self = ROTATIOND_TAG(object);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_CAMERA:
        g_free(self->camera);
        self->camera = g_value_dup_string(value);
        if (!self->camera || !*self->camera) {
            g_free(self->camera);
            self->camera = g_strdup("/dev/video0");
        }
        g_atomic_int_set(&self->key_changed, 1);
        break;
    case PROP_MODE:
        self->mode = g_value_get_enum(value);
        break;
    case PROP_SOCKET:
        g_free(self->socket);
        self->socket = g_value_dup_string(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void rotationd_tag_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    RotationdTag *self = ROTATIOND_TAG(object);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_CAMERA:
        g_value_set_string(value, self->camera);
        break;
    case PROP_MODE:
        g_value_set_enum(value, self->mode);
        break;
    case PROP_SOCKET:
        g_value_set_string(value, self->socket);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void rotationd_tag_finalize(GObject *object) {
    RotationdTag *self = ROTATIOND_TAG(object);
    rotationd_close(self->client);
    g_free(self->camera);
    g_free(self->socket);
    g_free(self->key);
    g_clear_pointer(&self->upstream_tags, gst_tag_list_unref);
    gst_object_replace((GstObject **)&self->clock, NULL);
    G_OBJECT_CLASS(rotationd_tag_parent_class)->finalize(object);
}

static void rotationd_tag_class_init(RotationdTagClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
    object_class->set_property = rotationd_tag_set_property;
    object_class->get_property = rotationd_tag_get_property;
    object_class->finalize = rotationd_tag_finalize;
    g_object_class_install_property(object_class, PROP_CAMERA,
        g_param_spec_string("camera", "Camera",
                            "The camera the stream comes from, as anything a program knows it by: its rotationd name, device "
                            "or capture node (/dev/video0, also a /dev/v4l/by-id/ symlink), libcamera id "
                            "(api.libcamera.path) or udev ID_PATH (device.bus-path)",
                            "/dev/video0", G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
    g_object_class_install_property(object_class, PROP_MODE,
        g_param_spec_enum("mode", "Mode", "Follow the angle buffer by buffer, or lock the first buffer's for the stream",
                          ROTATIOND_TYPE_TAG_MODE, ROTATIOND_TAG_FOLLOW,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(object_class, PROP_SOCKET,
        g_param_spec_string("socket", "Socket",
                            "The service's socket; by default $ROTATIOND_SOCKET, else $XDG_RUNTIME_DIR/rotationd.sock when it "
                            "exists, else /run/rotationd/rotationd.sock",
                            NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    gst_element_class_set_static_metadata(element_class, "Rotation tagger", "Filter/Video",
                                          "Tags a camera's stream with the image-orientation rotationd gives at each buffer's capture time",
                                          "rotationd developers <dev@rotationd.invalid>");
    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    trans_class->passthrough_on_same_caps = TRUE;
    trans_class->transform_ip_on_passthrough = TRUE;
    trans_class->transform_ip = GST_DEBUG_FUNCPTR(rotationd_tag_transform_ip);
    trans_class->sink_event = GST_DEBUG_FUNCPTR(rotationd_tag_sink_event);
    trans_class->start = GST_DEBUG_FUNCPTR(rotationd_tag_start);
    trans_class->stop = GST_DEBUG_FUNCPTR(rotationd_tag_stop);
    gst_type_mark_as_plugin_api(ROTATIOND_TYPE_TAG_MODE, 0);
}

static void rotationd_tag_init(RotationdTag *self) {
    self->camera = g_strdup("/dev/video0");
    self->mode = ROTATIOND_TAG_FOLLOW;
    self->sent = self->upstream = self->capture = self->turn = NONE;
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}

static gboolean plugin_init(GstPlugin *plugin) {
    GST_DEBUG_CATEGORY_INIT(rotationd_tag_debug, "rotationdtag", 0, "rotationd's image-orientation tagger");
    return gst_element_register(plugin, "rotationdtag", GST_RANK_NONE, ROTATIOND_TYPE_TAG);
}

#define PACKAGE "rotationd"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, rotationd,
                  "Image orientation from rotationd, the rotation service", plugin_init, ROTATIOND_VERSION, "Apache 2.0",
                  "rotationd", "https://rotationd.invalid/")
