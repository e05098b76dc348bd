/*
 * rules.c: a driver's own rules, from the file named by IIO_KERNEL_RULES, one per line ('#' starts a comment
 * line), DEV being the device id (iio:device0) and ATTR a path under its directory:
 *   driver DEV                        DEV follows these rules: only the attributes below (and the core's) are
 *                                     writable; without this line a device keeps umockdev's leniency for
 *                                     attributes other than the core's read-only ones
 *   writable DEV ATTR...              attributes the driver has a store function for
 *   values DEV ATTR V...              a write must equal one of these numbers (the driver's table), else EINVAL
 *   values-up DEV ATTR V...           a write is rounded up to the next of these numbers (listed in increasing
 *                                     order); above the last one EINVAL
 *   range DEV ATTR MIN MAX            a write must lie within [MIN, MAX], else EINVAL
 *   int-range DEV ATTR MIN MAX        a write must be an integer (kstrtoint) within [MIN, MAX], else EINVAL
 *   busy DEV ATTR...                  a write while the buffer is enabled is EBUSY (iio_device_claim_direct_mode)
 *   trigger-required DEV              the buffer is triggered only (INDIO_BUFFER_TRIGGERED)
 *   own-trigger DEV                   validate_trigger accepts only triggers of the same parent device, else
 *                                     EINVAL (iio_trigger_validate_own_device)
 *   equal-on-enable DEV ATTR1 ATTR2   enabling the buffer is EINVAL unless both attributes hold the same number
 *   raw-busy DEV                      reading in_*_raw while the buffer is enabled is EBUSY
 *   raw-delay DEV MILLISECONDS [N]    each read of in_*_raw takes this long (a driver that asks a hub), or
 *                                     only the first N reads of DEV's raw files (a reader preempted while
 *                                     it read); like raw-periods, once per open, as sysfs calls the driver's
 *                                     show once
 *   raw-periods DEV N ATTR            each read of in_*_raw takes N periods of the frequency in ATTR (a driver
 *                                     that powers the part up and waits for it to settle)
 *   shared DEV ATTR...                one value behind several files: a write taken by one is stored in all
 *                                     (one slope_thres behind bmc150's three roc_either_value files)
 *   armed-busy DEV ATTR...            a write while any events/..._en of DEV reads 1 is EBUSY (bmc150 and
 *                                     kxcjk-1013 refuse threshold and period writes while the event is enabled)
 *   enable-resets DEV EN ATTR TEXT    a write taken by EN stores TEXT in ATTR (bmi323 sets its any-motion
 *                                     threshold to 1 g whenever the enable is written)
 *   buffer-powers DEV                 the part samples only while its buffer is enabled or an event was enabled
 *                                     while none was: disabling the buffer powers it off, events or not
 *                                     (st_lsm6dsx); the state is kept in iio-events/DEV.powered for the feeder
 *
 * Each kind is one row of `kinds` below: its name, which rules of it concern an attribute (the first word, any
 * word, or the device as a whole), the stage at which it acts (kernel.h's enum stage) and its handler. A stage
 * runs its kinds in the table's order, each with the first rule of that kind for the device (and attribute);
 * the first handler that decides (anything but RULE_PASS) ends the stage.
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES 256

static struct rule rules[MAX_RULES];
static int nrules;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

/* Which rules of a kind concern an attribute. */
enum scope {
    SCOPE_DEVICE,   /* none: the rule is the device's */
    SCOPE_FIRST,    /* the attribute named by the first word */
    SCOPE_LIST,     /* every attribute the words name */
};

struct kind {
    const char *name;
    enum scope scope;
    enum stage stage;
    int (*handler)(const struct rule *r, struct request *q);   /* 0, an errno, or RULE_PASS */
};

static int refuse(struct request *q, int e, const char *reason) {
    snprintf(q->why, q->whylen, "%s", reason);
    return e;
}

/* armed-busy: bmc150 and kxcjk-1013 refuse threshold and period writes while the event is enabled. */
static int armed_busy(const struct rule *r, struct request *q) {
    (void)r;
    return enabled_in(q->dev, "events") ? refuse(q, EBUSY, "the event is enabled") : RULE_PASS;
}

/* driver: a write_raw that does not take the channel. */
static int driver_only(const struct rule *r, struct request *q) {
    (void)r;
    if (find_rule("writable", q->dev, q->attr)) return RULE_PASS;
    return refuse(q, EINVAL, "the driver does not take this value");
}

/* busy: iio_device_claim_direct_mode. */
static int busy(const struct rule *r, struct request *q) {
    (void)r;
    return enabled(q->dev) ? refuse(q, EBUSY, "the buffer is enabled") : RULE_PASS;
}

/* int-range: kstrtoint, then the driver's bounds. */
static int int_range(const struct rule *r, struct request *q) {
    char *end;
    errno = 0;
    long v = strtol(q->value, &end, 10);
    if (end == q->value || errno || (*end && strcmp(end, "\n"))) return refuse(q, EINVAL, "not an integer");
    if (r->nwords < 3 || v < strtol(r->words[1], NULL, 10) || v > strtol(r->words[2], NULL, 10))
        return refuse(q, EINVAL, "outside the driver's range");
    char text[32];
    snprintf(text, sizeof(text), "%ld", v);
    return store(q->dev, q->attr, text);
}

/* values: the driver's table, matched to six decimals. */
static int values(const struct rule *r, struct request *q) {
    double v;
    if (!parse_fixed(q->value, &v)) return refuse(q, EINVAL, "not a number");
    for (int w = 1; w < r->nwords; w++)
        if (same_number(v, strtod(r->words[w], NULL))) return store_number(q->dev, q->attr, strtod(r->words[w], NULL));
    return refuse(q, EINVAL, "not in the driver's table");
}

/* values-up: the first entry of the table at or above the value. */
static int values_up(const struct rule *r, struct request *q) {
    double v;
    if (!parse_fixed(q->value, &v)) return refuse(q, EINVAL, "not a number");
    for (int w = 1; w < r->nwords; w++) {
        double entry = strtod(r->words[w], NULL);
        if (v >= 0 && (v <= entry || same_number(v, entry))) return store_number(q->dev, q->attr, entry);
    }
    return refuse(q, EINVAL, "above the driver's table");
}

/* range: a fixed-point value within the driver's bounds. */
static int range(const struct rule *r, struct request *q) {
    double v;
    if (!parse_fixed(q->value, &v)) return refuse(q, EINVAL, "not a number");
    if (r->nwords < 3 || v < strtod(r->words[1], NULL) || v > strtod(r->words[2], NULL))
        return refuse(q, EINVAL, "outside the driver's range");
    return store_number(q->dev, q->attr, v);
}

/* trigger-required: iio_verify_update refuses a triggered-only buffer with no trigger. */
static int trigger_required(const struct rule *r, struct request *q) {
    (void)r;
    char trig[128];
    state(q->dev, "trigger/current_trigger", trig, sizeof(trig));
    return trig[0] ? RULE_PASS : refuse(q, EINVAL, "a triggered buffer with no trigger");
}

/* equal-on-enable: the driver's preenable refuses two settings that differ. */
static int equal_on_enable(const struct rule *r, struct request *q) {
    if (r->nwords < 2) return RULE_PASS;
    char a[64], b[64];
    double x = 0, y = 0;
    state(q->dev, r->words[0], a, sizeof(a));
    state(q->dev, r->words[1], b, sizeof(b));
    if (parse_fixed(a, &x) && parse_fixed(b, &y) && same_number(x, y)) return RULE_PASS;
    snprintf(q->why, q->whylen, "%s (%s) differs from %s (%s)", r->words[0], a, r->words[1], b);
    return EINVAL;
}

/* own-trigger: iio_trigger_validate_own_device. */
static int own_trigger(const struct rule *r, struct request *q) {
    (void)r;
    char mine[1024], theirs[1024];
    if (parent_of(q->dev, mine, sizeof(mine)) && parent_of(q->trigger_id, theirs, sizeof(theirs)) && !strcmp(mine, theirs))
        return RULE_PASS;
    snprintf(q->why, q->whylen, "%s is not this device's own trigger", q->trigger_name);
    return EINVAL;
}

/* shared: the value just taken goes to every file of the list. */
static int shared(const struct rule *r, struct request *q) {
    char text[256];
    state(q->dev, q->attr, text, sizeof(text));
    for (int w = 0; w < r->nwords; w++)
        if (strcmp(r->words[w], q->attr)) store(q->dev, r->words[w], text);
    return RULE_PASS;
}

/* enable-resets: a write to the enable stores the driver's default in another attribute. */
static int enable_resets(const struct rule *r, struct request *q) {
    if (r->nwords >= 3) store(q->dev, r->words[1], r->words[2]);
    return RULE_PASS;
}

/* Records whether a buffer-powers part samples (iio-events/DEV.powered, "1" or "0"). */
static void set_powered(const char *dev, int on) {
    char dir[1024], path[1200];
    events_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/%s.powered", dir, dev);
    int fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return;
    (void)sys_write(fd, on ? "1\n" : "0\n", 2);
    sys_close(fd);
}

/* buffer-powers: st_lsm6dsx powers the part with its buffer, or with the first event enabled. */
static int buffer_powers(const struct rule *r, struct request *q) {
    (void)r;
    if (!strcmp(q->attr, "buffer/enable") && enabled(q->dev) != q->buffer_before) set_powered(q->dev, enabled(q->dev));
    if (starts_with(q->attr, "events/") && ends_with(q->attr, "_en")) {
        int after = enabled_in(q->dev, "events");
        if (!q->events_before && after) set_powered(q->dev, 1);
        if (q->events_before && !after) set_powered(q->dev, enabled(q->dev));
    }
    return RULE_PASS;
}

/* raw-delay: a read that takes MILLISECONDS, or only the first N of the device's. */
static int raw_delay(const struct rule *r, struct request *q) {
    static long delayed[MAX_DEVS];   /* per raw device, how many of its reads came while it had this rule */
    if (r->nwords < 1) return RULE_PASS;
    pthread_mutex_lock(&kernel_lock);
    long n = delayed[q->raw_dev]++;
    pthread_mutex_unlock(&kernel_lock);
    if (r->nwords < 2 || n < strtol(r->words[1], NULL, 10)) q->ms = strtod(r->words[0], NULL);
    return RULE_PASS;
}

/* raw-periods: N periods of the sampling frequency in ATTR. */
static int raw_periods(const struct rule *r, struct request *q) {
    if (r->nwords < 2) return RULE_PASS;
    char text[64];
    double hz = 0;
    state(q->dev, r->words[1], text, sizeof(text));
    if (parse_fixed(text, &hz) && hz > 0) q->ms = strtod(r->words[0], NULL) * 1000 / hz;
    return RULE_PASS;
}

/* raw-busy: a driver whose read_raw claims direct mode. */
static int raw_busy(const struct rule *r, struct request *q) {
    (void)r;
    return enabled(q->dev) ? EBUSY : RULE_PASS;
}

/* The rule kinds. A write is decided by STAGE_REFUSE, then the core's store (core.c, which runs STAGE_ENABLE or
 * STAGE_TRIGGER) or, for a driver attribute, STAGE_DRIVER_REFUSE and STAGE_DRIVER_VALUE (a plain store when no
 * kind takes the value); a write taken runs STAGE_AFTER (sysfs.c). A raw read runs STAGE_READ_DELAY, sleeps,
 * then STAGE_READ_REFUSE (reads.c). Within a stage the order of the rows is the order of the checks. */
static const struct kind kinds[] = {
    {"driver", SCOPE_DEVICE, STAGE_DRIVER_REFUSE, driver_only},
    {"writable", SCOPE_LIST, STAGE_NONE, NULL},   /* read by driver_only, and by the open (core.c's writable) */
    {"busy", SCOPE_LIST, STAGE_DRIVER_REFUSE, busy},
    {"int-range", SCOPE_FIRST, STAGE_DRIVER_VALUE, int_range},
    {"values", SCOPE_FIRST, STAGE_DRIVER_VALUE, values},
    {"values-up", SCOPE_FIRST, STAGE_DRIVER_VALUE, values_up},
    {"range", SCOPE_FIRST, STAGE_DRIVER_VALUE, range},
    {"trigger-required", SCOPE_DEVICE, STAGE_ENABLE, trigger_required},
    {"equal-on-enable", SCOPE_DEVICE, STAGE_ENABLE, equal_on_enable},
    {"own-trigger", SCOPE_DEVICE, STAGE_TRIGGER, own_trigger},
    {"armed-busy", SCOPE_LIST, STAGE_REFUSE, armed_busy},
    {"shared", SCOPE_LIST, STAGE_AFTER, shared},
    {"enable-resets", SCOPE_FIRST, STAGE_AFTER, enable_resets},
    {"buffer-powers", SCOPE_DEVICE, STAGE_AFTER, buffer_powers},
    {"raw-delay", SCOPE_DEVICE, STAGE_READ_DELAY, raw_delay},
    {"raw-periods", SCOPE_DEVICE, STAGE_READ_DELAY, raw_periods},
    {"raw-busy", SCOPE_DEVICE, STAGE_READ_REFUSE, raw_busy},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct kind *kind_named(const char *name) {
    for (size_t k = 0; k < NKINDS; k++)
        if (!strcmp(kinds[k].name, name)) return &kinds[k];
    return NULL;
}

/* One line of the rules file, cut into its kind, device and words. */
static void add_rule(char *line) {
    struct rule r;
    memset(&r, 0, sizeof(r));
    char *save = NULL;
    char *kind = strtok_r(line, " \t", &save);
    char *dev = kind ? strtok_r(NULL, " \t", &save) : NULL;
    if (!kind || !dev) return;
    snprintf(r.kind, sizeof(r.kind), "%s", kind);
    snprintf(r.dev, sizeof(r.dev), "%s", dev);
    for (char *w = strtok_r(NULL, " \t", &save); w && r.nwords < RULE_WORDS; w = strtok_r(NULL, " \t", &save))
        snprintf(r.words[r.nwords++], sizeof(r.words[0]), "%s", w);
    rules[nrules++] = r;
}

static void load_rules(void) {
    const char *path = getenv("IIO_KERNEL_RULES");
    if (!path) return;
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return;
    static char text[65536];
    ssize_t n = sys_read(fd, text, sizeof(text) - 1);
    sys_close(fd);
    if (n <= 0) return;
    text[n] = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && nrules < MAX_RULES; line = strtok_r(NULL, "\n", &save))
        if (line[0] != '#') add_rule(line);
}

static int concerns(const struct rule *r, enum scope scope, const char *attr) {
    if (scope != SCOPE_LIST) return r->nwords > 0 && !strcmp(r->words[0], attr);
    for (int w = 0; w < r->nwords; w++)
        if (!strcmp(r->words[w], attr)) return 1;
    return 0;
}

/* The first rule of KIND for DEV; with ATTR, the first that concerns that attribute. */
const struct rule *find_rule(const char *kind, const char *dev, const char *attr) {
    pthread_once(&loaded, load_rules);
    const struct kind *k = attr ? kind_named(kind) : NULL;
    enum scope scope = k ? k->scope : SCOPE_FIRST;
    for (int i = 0; i < nrules; i++) {
        if (strcmp(rules[i].kind, kind) || strcmp(rules[i].dev, dev)) continue;
        if (!attr || concerns(&rules[i], scope, attr)) return &rules[i];
    }
    return NULL;
}

/* Whether DEV has a rule of a kind that acts at STAGE. */
int has_rule_in(enum stage stage, const char *dev) {
    for (size_t k = 0; k < NKINDS; k++)
        if (kinds[k].stage == stage && find_rule(kinds[k].name, dev, NULL)) return 1;
    return 0;
}

/* Runs STAGE's kinds for the request: the first answer other than RULE_PASS, else RULE_PASS. */
int run_stage(enum stage stage, struct request *q) {
    for (size_t k = 0; k < NKINDS; k++) {
        if (kinds[k].stage != stage) continue;
        const struct rule *r = find_rule(kinds[k].name, q->dev, kinds[k].scope == SCOPE_DEVICE ? NULL : q->attr);
        if (!r) continue;
        int e = kinds[k].handler(r, q);
        if (e != RULE_PASS) return e;
    }
    return RULE_PASS;
}
