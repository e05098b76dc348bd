/* libFuzzer target: the service's lines as librotationd reads them. The input is split at newlines like the
 * socket's stream; each line goes through the parser, each state into a history, and each camera is looked up
 * by its own keys. A check that fails traps, which libFuzzer reports as a crash.
 *
 *     clang -fsanitize=fuzzer,address,undefined -Ilibrotationd fuzz-parse.c ../message.c -ljson-c -lm
 *     ./fuzz-parse CORPUS_DIR      (seeds in librotationd/fuzz/corpus) */
#include "message.h"
#include "rotationd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static bool quarter(int v) { return v == 0 || v == 90 || v == 180 || v == 270; }

static void check_state(const struct rtd_state *s) {
    REQUIRE(s->rotation == -1 || quarter(s->rotation));
    REQUIRE(s->posture >= ROTATIOND_POSTURE_UNKNOWN && s->posture <= ROTATIOND_POSTURE_TABLET);
    REQUIRE(s->hinge >= -1 && s->hinge <= 360);
    REQUIRE(s->base_rotation == -1 || quarter(s->base_rotation));
    REQUIRE(s->cameras && s->cameras->count <= RTD_MAX_CAMERAS);
    const struct rtd_cameras *list = s->cameras;
    for (unsigned i = 0; i < list->count; i++) {
        const struct rtd_camera *c = &list->camera[i];
        REQUIRE(c->mount >= 0 && c->mount < 360);
        REQUIRE(s->capture[i] == -1 || quarter(s->capture[i]));
        REQUIRE((s->capture[i] == -1) == (s->exif[i] == -1));
        REQUIRE(c->panel <= RTD_PANEL_OTHER);
        REQUIRE(s->direction[i] >= ROTATIOND_DIRECTION_UNKNOWN && s->direction[i] <= ROTATIOND_DIRECTION_COVERED);
        /* Every string lies inside the blob and ends there. */
        uint16_t offsets[5] = {c->name, c->facing, c->device, c->libcamera, c->bus_path};
        for (int k = 0; k < 5; k++) {
            if (offsets[k] == RTD_NONE) continue;
            REQUIRE(offsets[k] < list->blob_len && memchr(list->blob + offsets[k], '\0', list->blob_len - offsets[k]));
        }
        REQUIRE(c->name != RTD_NONE);
        /* A camera is found by its name: the first camera with that name. */
        int found = rtd_find_camera(list, rtd_string(list, c->name));
        REQUIRE(found >= 0 && found <= (int)i && strcmp(rtd_string(list, list->camera[found].name), rtd_string(list, c->name)) == 0);
        if (c->bus_path != RTD_NONE) REQUIRE(rtd_find_camera(list, rtd_string(list, c->bus_path)) >= 0);
        if (c->libcamera != RTD_NONE) REQUIRE(rtd_find_camera(list, rtd_string(list, c->libcamera)) >= 0);
    }
}

static void check_history(const struct rtd_history *h, const struct rtd_state *latest) {
    REQUIRE(h->count <= RTD_HISTORY);
    for (unsigned i = 1; i < h->count; i++) {
        const struct rtd_entry *a = &h->entry[(h->first + i - 1) % RTD_HISTORY], *b = &h->entry[(h->first + i) % RTD_HISTORY];
        REQUIRE(a->state.t <= b->state.t);
    }
    if (latest->has_t && h->count) {
        bool gap;
        const struct rtd_entry *e = rtd_history_at(h, latest->t, &gap);
        REQUIRE(e && !gap && e->state.t == latest->t);
        REQUIRE(!rtd_history_at(h, h->entry[h->first].state.t - 1, &gap));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct rtd_history history;
    const char *text = (const char *)data;
    size_t start = 0;
    bool first = true;
    while (start <= size) {
        const char *nl = memchr(text + start, '\n', size - start);
        size_t len = nl ? (size_t)(nl - (text + start)) : size - start;
        /* The line in a buffer of its own length, so that the sanitizer sees any read beyond it. */
        char *line = malloc(len ? len : 1);
        memcpy(line, text + start, len);
        struct rtd_message m;
        char why[160];
        int rc = rtd_parse_line(line, len, &m, why, sizeof why);
        if (rc == 0 && m.kind == RTD_MESSAGE_STATE) {
            check_state(&m.state);
            rtd_history_record(&history, &m.state, first);
            first = false;
            check_history(&history, &m.state);
        } else if (rc != 0) {
            REQUIRE(why[0] && m.state.cameras == NULL);
        }
        rtd_message_clear(&m);
        free(line);
        if (!nl) break;
        start += len + 1;
    }
    rtd_history_clear(&history);
    return 0;
}
