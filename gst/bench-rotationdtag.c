/* The per-buffer cost of rotationdtag, and the allocations it makes per buffer once running.
 *
 *     bench-rotationdtag SOCKET [BUFFERS]        (GST_PLUGIN_PATH must find the element; scripts/bench-gst.sh)
 *
 * Buffers are pushed straight into the element from a pad of this program, as a live source's, each stamped with
 * the running time at which it is pushed; the element's source pad is linked to a pad that drops them. The same is
 * measured with `identity` in the element's place, so that what GStreamer's pad push costs by itself can be taken
 * away. Allocations are counted by wrapping malloc and its relatives in this program, which every library it
 * loads then calls. */
#define _GNU_SOURCE
#include <gst/gst.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- counting allocations ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static atomic_long allocations;
static atomic_int counting;

static void counted(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}
void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { counted(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void *memalign(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n) {
    counted();
    *out = __libc_memalign(align, n);
    return *out ? 0 : 12;
}

/* ---- the harness ---- */

static int tags_seen;

static gboolean upstream_query(GstPad *pad, GstObject *parent, GstQuery *query) {
    if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
        gst_query_set_latency(query, TRUE, 0, GST_CLOCK_TIME_NONE);
        return TRUE;
    }
    return gst_pad_query_default(pad, parent, query);
}

static GstFlowReturn drop_buffer(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
    gst_buffer_unref(buffer);
    return GST_FLOW_OK;
}

static gboolean drop_event(GstPad *pad, GstObject *parent, GstEvent *event) {
    if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) tags_seen++;
    gst_event_unref(event);
    return TRUE;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

struct result {
    double mean_ns, p50_ns, p99_ns;
    long allocations;
    int warmup_tags, tags;
};

/* Pushes `count` buffers (after `warmup` more) through a new `factory` element; NULL when it cannot be made. */
static int measure(const char *factory, const char *socket, int warmup, int count, struct result *out) {
    GstElement *pipeline = gst_pipeline_new(NULL);
    GstElement *element = gst_element_factory_make(factory, NULL);
    if (!element) return -1;
    if (strcmp(factory, "rotationdtag") == 0) g_object_set(element, "camera", "back", "socket", socket, NULL);
    else g_object_set(element, "silent", TRUE, NULL);
    gst_bin_add(GST_BIN(pipeline), element);
    GstPad *src = gst_pad_new("src", GST_PAD_SRC), *sink = gst_pad_new("sink", GST_PAD_SINK);
    gst_pad_set_query_function(src, upstream_query);
    gst_pad_set_chain_function(sink, drop_buffer);
    gst_pad_set_event_function(sink, drop_event);
    GstPad *element_sink = gst_element_get_static_pad(element, "sink"), *element_src = gst_element_get_static_pad(element, "src");
    gst_pad_link(src, element_sink);
    gst_pad_link(element_src, sink);
    gst_pad_set_active(src, TRUE);
    gst_pad_set_active(sink, TRUE);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    gst_element_get_state(pipeline, NULL, NULL, GST_CLOCK_TIME_NONE);
    gst_pad_push_event(src, gst_event_new_stream_start("bench"));
    GstCaps *caps = gst_caps_from_string("video/x-raw,format=I420,width=320,height=240,framerate=30/1");
    gst_pad_push_event(src, gst_event_new_caps(caps));
    gst_caps_unref(caps);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_pad_push_event(src, gst_event_new_segment(&segment));
    GstClockTime base = gst_element_get_base_time(pipeline);
    GstBuffer *buffer = gst_buffer_new_allocate(NULL, 320 * 240 * 3 / 2, NULL);
    int64_t *times = malloc(sizeof *times * (size_t)count);
    tags_seen = 0;
    /* Give the element time to connect and take the service's first state, as a pipeline's start would. */
    for (int i = 0; i < warmup; i++) {
        GST_BUFFER_PTS(buffer) = (GstClockTime)now_ns() - base;
        gst_pad_push(src, gst_buffer_ref(buffer));
        if (i % 100 == 0) g_usleep(1000);
    }
    out->warmup_tags = tags_seen;
    tags_seen = 0;
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
    for (int i = 0; i < count; i++) {
        int64_t t0 = now_ns();
        GST_BUFFER_PTS(buffer) = (GstClockTime)t0 - base;
        gst_pad_push(src, gst_buffer_ref(buffer));
        times[i] = now_ns() - t0;
    }
    atomic_store(&counting, 0);
    out->allocations = atomic_load(&allocations);
    out->tags = tags_seen;
    double sum = 0;
    for (int i = 0; i < count; i++) sum += (double)times[i];
    qsort(times, (size_t)count, sizeof *times, compare);
    out->mean_ns = sum / count;
    out->p50_ns = (double)times[count / 2];
    out->p99_ns = (double)times[count * 99 / 100];
    free(times);
    gst_buffer_unref(buffer);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_pad_set_active(src, FALSE);
    gst_pad_set_active(sink, FALSE);
    gst_object_unref(element_sink);
    gst_object_unref(element_src);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench-rotationdtag SOCKET [BUFFERS]\n");
        return 2;
    }
    int count = argc > 2 ? atoi(argv[2]) : 200000;
    gst_init(&argc, &argv);
    struct result base, served, absent;
    char missing[300];
    snprintf(missing, sizeof missing, "%s.absent", argv[1]);
    if (measure("identity", NULL, 5000, count, &base) || measure("rotationdtag", argv[1], 5000, count, &served) ||
        measure("rotationdtag", missing, 5000, count, &absent)) {
        fprintf(stderr, "bench-rotationdtag: no rotationdtag or identity element: set GST_PLUGIN_PATH\n");
        return 1;
    }
    printf("%-44s %9s %9s %9s %12s %6s\n", "per buffer, pushed through", "mean ns", "p50 ns", "p99 ns", "allocations", "tags");
    const struct { const char *what; struct result *r; } rows[] = {
        {"identity (GStreamer's push alone)", &base},
        {"rotationdtag, service serving", &served},
        {"rotationdtag, no service (reconnecting)", &absent},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("%-44s %9.0f %9.0f %9.0f %12ld %6d\n", rows[i].what, rows[i].r->mean_ns, rows[i].r->p50_ns, rows[i].r->p99_ns,
               rows[i].r->allocations, rows[i].r->tags);
    printf("\nrotationdtag's own cost per buffer (mean less identity's): %.0f ns serving, %.0f ns without a service;\n"
           "allocations per buffer once running: %.4f serving, %.4f without a service (%d buffers each)\n",
           served.mean_ns - base.mean_ns, absent.mean_ns - base.mean_ns, (double)served.allocations / count,
           (double)absent.allocations / count, count);
    if (served.warmup_tags != 1) {
        fprintf(stderr, "bench-rotationdtag: the element sent %d tags while warming up, not 1: is rotationd serving on %s?\n",
                served.warmup_tags, argv[1]);
        return 1;
    }
    int ok = served.mean_ns - base.mean_ns < 5000 && served.allocations == 0 && absent.allocations == 0 && served.tags == 0;
    printf("target (under 5 us, no allocation per buffer): %s\n", ok ? "met" : "NOT met");
    return 0;
}
