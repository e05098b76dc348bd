/*
 * core.c: the IIO core's own attributes, answered as drivers/iio/industrialio-buffer.c, industrialio-trigger.c
 * and fs/kernfs/file.c answer them. These rules are always on, whatever IIO_KERNEL_RULES says:
 *   - a file that does not exist cannot be created, and a read-only attribute cannot be opened for writing:
 *     EACCES (kernfs_fop_open; sysfs.c refuses the open, by core_readonly and writable below);
 *   - buffer/watermark: 0 or not a number is EINVAL; above buffer/length is EINVAL; while the buffer is
 *     enabled EBUSY (watermark_store);
 *   - buffer/length: the same value is accepted as is; while enabled EBUSY; a length below 2 becomes 2 (the
 *     kfifo's minimum); a length below the watermark lowers the watermark to it (length_store);
 *   - buffer/enable: the current state is accepted as is; enabling with no scan element enabled, or a
 *     triggered-only buffer with no trigger, is EINVAL (iio_verify_update); an enabled buffer starts empty:
 *     what the feeder wrote into the node while it was off is dropped (the kfifo's reset, sysfs.c and nodes.c);
 *   - scan_elements/<channel>_en: while enabled EBUSY (iio_scan_el_store);
 *   - trigger/current_trigger: while a triggered buffer runs EBUSY; a name no trigger has leaves no trigger
 *     attached (current_trigger_store).
 * The driver's part of these stores (trigger-required, equal-on-enable, own-trigger) is its rules' (rules.c),
 * run from here at STAGE_ENABLE and STAGE_TRIGGER.
 *
 * In a `driver` device, an attribute not listed as writable is either read-only (names, lists, scan element
 * descriptions, mount matrices, labels, hwfifo values: EACCES at open, as kernfs refuses a file without a
 * store) or a channel value the driver does not take (EINVAL from write_raw, as for in_accel_x_raw).
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A "prefix*suffix" pattern, or a name. */
static int matches(const char *pattern, const char *attr) {
    const char *star = strchr(pattern, '*');
    if (!star) return !strcmp(pattern, attr);
    return !strncmp(attr, pattern, star - pattern) && ends_with(attr, star + 1);
}

/* Attributes that are read-only whatever the driver: names, lists, scan element descriptions, raw inputs. */
static const char *const readonly_attrs[] = {
    "name", "label", "dev", "*_available", "scan_elements/*_index", "scan_elements/*_type", "in_*_raw",
    "*mount_matrix", "buffer/data_available", "buffer/hwfifo_*", "location", "*_label",
};

int core_readonly(const char *attr) {
    for (size_t i = 0; i < sizeof(readonly_attrs) / sizeof(readonly_attrs[0]); i++)
        if (matches(readonly_attrs[i], attr)) return 1;
    return 0;
}

static int why(struct request *q, int e, const char *reason) {
    snprintf(q->why, q->whylen, "%s", reason);
    return e;
}

static int store_unsigned(struct request *q, const char *attr, unsigned long v) {
    char text[32];
    snprintf(text, sizeof(text), "%lu", v);
    return store(q->dev, attr, text);
}

static int store_watermark(struct request *q) {
    unsigned long v;
    if (!parse_uint(q->value, &v) || v == 0) return why(q, EINVAL, "not a positive integer");
    long length = state_number(q->dev, "buffer/length");
    if ((long)v > length) {
        snprintf(q->why, q->whylen, "watermark above buffer/length %ld", length);
        return EINVAL;
    }
    if (enabled(q->dev)) return why(q, EBUSY, "the buffer is enabled");
    return store_unsigned(q, q->attr, v);
}

static int store_length(struct request *q) {
    unsigned long v;
    if (!parse_uint(q->value, &v)) return why(q, EINVAL, "not an integer");
    if ((long)v == state_number(q->dev, "buffer/length")) return 0;
    if (enabled(q->dev)) return why(q, EBUSY, "the buffer is enabled");
    if (v < 2) v = 2;
    int e = store_unsigned(q, q->attr, v);
    if (!e && state_number(q->dev, "buffer/watermark") > (long)v) e = store_unsigned(q, "buffer/watermark", v);
    return e;
}

/* kstrtobool as buffer/enable takes it: 1 or 0, or -1 for anything else. */
static int parse_bool(const char *v) {
    if (!strcmp(v, "1") || !strcmp(v, "1\n") || !strcasecmp(v, "y") || !strcasecmp(v, "on")) return 1;
    if (!strcmp(v, "0") || !strcmp(v, "0\n") || !strcasecmp(v, "n") || !strcasecmp(v, "off")) return 0;
    return -1;
}

static int store_enable(struct request *q) {
    int on = parse_bool(q->value);
    if (on < 0) return why(q, EINVAL, "not a boolean");
    if (on == enabled(q->dev)) return 0;
    if (on) {
        if (!enabled_in(q->dev, "scan_elements")) return why(q, EINVAL, "no scan element is enabled");
        int e = run_stage(STAGE_ENABLE, q);
        if (e != RULE_PASS) return e;
    }
    return store(q->dev, q->attr, on ? "1" : "0");
}

static int store_scan_enable(struct request *q) {
    const char *value = q->value;
    if (strcmp(value, "0") && strcmp(value, "1") && strcmp(value, "0\n") && strcmp(value, "1\n"))
        return why(q, EINVAL, "not a boolean");
    char now[8];
    state(q->dev, q->attr, now, sizeof(now));
    if (now[0] == value[0]) return 0;
    if (enabled(q->dev)) return why(q, EBUSY, "the buffer is enabled");
    return store(q->dev, q->attr, value[0] == '1' ? "1" : "0");
}

static int store_current_trigger(struct request *q) {
    char name[512], old[128], id[64];
    snprintf(name, sizeof(name), "%s", q->value);
    size_t len = strlen(name);
    if (len && name[len - 1] == '\n') name[len - 1] = 0;
    state(q->dev, q->attr, old, sizeof(old));
    if (enabled(q->dev) && old[0]) return why(q, EBUSY, "a triggered buffer is running");
    if (!trigger_named(name, id, sizeof(id))) return store(q->dev, q->attr, "");
    if (!strcmp(old, name)) return 0;
    q->trigger_id = id;
    q->trigger_name = name;
    int e = run_stage(STAGE_TRIGGER, q);
    if (e != RULE_PASS) return e;
    return store(q->dev, q->attr, name);
}

/* The attributes the core itself makes writable, each with its store. */
static const struct {
    const char *pattern;
    int (*store)(struct request *q);
} core_attrs[] = {
    {"buffer/watermark", store_watermark},
    {"buffer/length", store_length},
    {"buffer/enable", store_enable},
    {"scan_elements/*_en", store_scan_enable},
    {"trigger/current_trigger", store_current_trigger},
};

int core_writable(const char *attr) {
    for (size_t i = 0; i < sizeof(core_attrs) / sizeof(core_attrs[0]); i++)
        if (matches(core_attrs[i].pattern, attr)) return 1;
    return 0;
}

/* A write to one of the core's attributes: 0 or the errno; RULE_PASS for a driver attribute. */
int core_store(struct request *q) {
    for (size_t i = 0; i < sizeof(core_attrs) / sizeof(core_attrs[0]); i++)
        if (matches(core_attrs[i].pattern, q->attr)) return core_attrs[i].store(q);
    return RULE_PASS;
}

int writable(const char *dev, const char *attr) {
    if (core_writable(attr)) return 1;
    if (find_rule("driver", dev, NULL)) return find_rule("writable", dev, attr) != NULL;
    return !core_readonly(attr);
}

/* The device directory a device or trigger id resolves to, and its parent. */
int parent_of(const char *id, char *out, size_t n) {
    char link[1024], target[1024];
    snprintf(link, sizeof(link), "%s/sys/bus/iio/devices/%s", root(), id);
    long r = syscall(SYS_readlinkat, AT_FDCWD, link, target, sizeof(target) - 1);
    if (r <= 0) return 0;
    target[r] = 0;
    char *slash = strrchr(target, '/');
    if (!slash) return 0;
    *slash = 0;
    snprintf(out, n, "%s", target);
    return 1;
}

struct trigger_search {
    const char *dir, *name;
    char *id;
    size_t n;
};

static int trigger_matches(const char *entry, void *ctx) {
    struct trigger_search *s = ctx;
    if (!starts_with(entry, "trigger")) return 0;
    char path[1200], text[128];
    snprintf(path, sizeof(path), "%s/%s/name", s->dir, entry);
    int f = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (f < 0) return 0;
    ssize_t r = sys_read(f, text, sizeof(text) - 1);
    sys_close(f);
    if (r < 0) r = 0;
    text[r] = 0;
    while (r > 0 && (text[r - 1] == '\n' || text[r - 1] == 0)) text[--r] = 0;
    if (strcmp(text, s->name)) return 0;
    snprintf(s->id, s->n, "%s", entry);
    return 1;
}

/* The id (triggerN) of the trigger called `name`, or 0. */
int trigger_named(const char *name, char *id, size_t n) {
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/sys/bus/iio/devices", root());
    struct trigger_search s = {dir, name, id, n};
    return for_each_entry(dir, trigger_matches, &s);
}
