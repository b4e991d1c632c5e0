/* gsvm mission: run a mission script headless against a timeline.
 *
 *   gsvm mission run SCRIPT.lua [--world WORLD.json] [--events EVENTS.jsonl]
 *                    [--state STATE.db] [--role public|private] [--activity NAME]
 *   gsvm mission stem NAME
 *
 * Argument parsing and printing only; the runtime is in src/mission. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/jsonl.h"
#include "cli/verb.h"
#include "cli/engines.h"
#include "gsvm/mission.h"

typedef struct run_out {
    FILE *f;
    gsvm_mission_answer answer;
    const char *text;   /* the timeline's text, to give a value's column */
    size_t text_len;
    /* Where line `at_line` starts in `text`: value_column walks on from
     * there, so errors late in a long timeline cost their line, not the
     * whole text before it. */
    size_t at_line, at_pos;
} run_out;

/* JSON strings must be UTF-8: invalid bytes print as U+FFFD. */
static json_t *json_text(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    if (j)
        return j;
    char *buf = malloc(n * 3 + 1);
    if (!buf)
        return json_string("");
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= n && c != 0;
        for (size_t k = 1; ok && k < len; k++)
            ok = ((unsigned char)s[i + k] >> 6) == 2;
        if (ok && len > 1) {
            json_t *probe = json_stringn(s + i, len);
            ok = probe != NULL;
            json_decref(probe);
        }
        if (ok) {
            memcpy(buf + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    j = json_stringn(buf, o);
    free(buf);
    return j ? j : json_string("");
}

static gsvm_mission_answer on_request(void *ud, const gsvm_mission_request *r)
{
    run_out *o = ud;
    char key[24];
    snprintf(key, sizeof key, "%llu", (unsigned long long)r->key);
    json_error_t je;
    json_t *args = json_loads(r->args_json, JSON_ALLOW_NUL, &je); /* NUL travels as \\u0000 */
    json_t *req = json_object();
    json_object_set_new(req, "key", json_string(key));
    json_object_set_new(req, "effect", r->effect ? json_string(r->effect) : json_null());
    json_object_set_new(req, "call", json_string(r->call));
    json_object_set_new(req, "local", json_boolean(r->local));
    json_object_set_new(req, "args", args ? args : json_object());
    gsvm_jsonl_emit(o->f, json_pack("{s:o}", "request", req));
    return o->answer;
}

/* The initial-state selection is not a request of the script (it has no
 * key): it prints nothing, and the host's answer at that moment decides
 * whether it is published (a leading {"host":"unpublished"} withholds it
 * until {"publish":true}). */
static gsvm_mission_answer on_initial_state(void *ud, const char *args_json)
{
    run_out *o = ud;
    (void)args_json;
    return o->answer;
}

static void on_effect_result(void *ud, uint64_t key, const char *effect, const char *outcome)
{
    run_out *o = ud;
    (void)effect;
    char k[24];
    snprintf(k, sizeof k, "%llu", (unsigned long long)key);
    gsvm_jsonl_emit(o->f, json_pack("{s:{s:s,s:s}}", "effect_result", "key", k, "outcome", outcome));
}

static void on_cancel(void *ud, uint64_t key)
{
    run_out *o = ud;
    char k[24];
    snprintf(k, sizeof k, "%llu", (unsigned long long)key);
    gsvm_jsonl_emit(o->f, json_pack("{s:{s:s}}", "cancel_requested", "key", k));
}

static void on_fault(void *ud, const char *message)
{
    run_out *o = ud;
    gsvm_jsonl_emit(o->f, json_pack("{s:o}", "fault", json_text(message, strlen(message))));
}

static json_t *value_json(const gsvm_mission_value *v)
{
    switch (v->type) {
    case GSVM_MV_BOOL: return json_boolean(v->b);
    case GSVM_MV_INT: return json_integer(v->i);
    case GSVM_MV_NUM: return json_real(v->n);
    case GSVM_MV_STR: {
        /* A variable holds bytes: UTF-8 prints as a string (NUL as \u0000),
         * anything else as {"hex":..}, never as other text. */
        json_t *j = json_stringn(v->s, v->len);
        if (j)
            return j;
        char *hex = malloc(2 * v->len + 1);
        if (!hex)
            return json_null();
        for (size_t i = 0; i < v->len; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)v->s[i]);
        j = json_pack("{s:s}", "hex", hex);
        free(hex);
        return j;
    }
    default: return json_null();
    }
}

static void add_var(void *ud, const char *name, const gsvm_mission_value *v)
{
    json_object_set_new(ud, name, value_json(v));
}

static void emit_committed(FILE *f, const gsvm_mission *m)
{
    char rev[24], att[24];
    snprintf(rev, sizeof rev, "%llu", (unsigned long long)gsvm_mission_revision(m));
    snprintf(att, sizeof att, "%llu", (unsigned long long)gsvm_mission_attempt(m));
    json_t *vars = json_object(), *timers = json_object();
    gsvm_mission_foreach_variable(m, add_var, vars);
    for (size_t i = 0; i < gsvm_mission_timer_count(m); i++) {
        const char *name;
        uint64_t deadline, seq;
        char d[24];
        gsvm_mission_timer_at(m, i, &name, &deadline, &seq);
        snprintf(d, sizeof d, "%llu", (unsigned long long)deadline);
        json_object_set_new(timers, name, json_string(d));
    }
    json_t *c = json_object();
    json_object_set_new(c, "phase", json_integer(gsvm_mission_phase(m)));
    json_object_set_new(c, "revision", json_string(rev));
    json_object_set_new(c, "attempt", json_string(att));
    json_object_set_new(c, "faulted", json_boolean(gsvm_mission_faulted(m)));
    json_object_set_new(c, "variables", vars);
    json_object_set_new(c, "timers", timers);
    gsvm_jsonl_emit(f, json_pack("{s:o}", "committed", c));
}

static const char *const answers[] = {"accept", "refuse", "stall", "pending", "drop",
                                      "no_cancel", "unpublished", "mismatch", "defer", NULL};
static const char *const outcomes[] = {"committed", "transport_staged", "refused", "canceled", NULL};

/* The 1-based column of KEY's value on line `line` of the timeline text
 * (1 when it cannot be found). */
static size_t value_column(run_out *o, size_t line, const char *key)
{
    if (!o || !o->text || !key)
        return 1;
    run_out *w = o;
    if (w->at_line < 1 || w->at_line > line) {
        w->at_line = 1;
        w->at_pos = 0;
    }
    const char *p = o->text + w->at_pos, *end = o->text + o->text_len;
    for (size_t l = w->at_line; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    w->at_line = line;
    w->at_pos = (size_t)(p - o->text);
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    size_t ql = strlen(quoted);
    for (const char *q = p; q + ql <= eol; q++) {
        if (memcmp(q, quoted, ql) != 0)
            continue;
        const char *v = q + ql;
        while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
        if (v < eol && *v == ':') {
            v++;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            return (size_t)(v - p) + 1;
        }
    }
    return 1;
}

static int timeline_error_at(const char *path, size_t line, size_t col, const char *msg, const char *what)
{
    fprintf(stderr, "%s:%zu:%zu: error: ", path, line, col);
    fprintf(stderr, msg, what);
    fputc('\n', stderr);
    return EXIT_INPUT;
}

static int timeline_error(const char *path, size_t line, const char *msg, const char *what)
{
    return timeline_error_at(path, line, 1, msg, what);
}

/* One report's fields from a timeline object (every member but "event").
 * Arrays and objects reach the script as their JSON text. */
typedef struct report_buf {
    gsvm_mission_field *fields;
    char **texts;
    size_t n;
} report_buf;

static void report_buf_free(report_buf *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->texts[i]);
    free(b->texts);
    free(b->fields);
}

static bool report_fields(json_t *obj, report_buf *b)
{
    size_t cap = json_object_size(obj);
    b->n = 0;
    b->fields = calloc(cap ? cap : 1, sizeof *b->fields);
    b->texts = calloc(cap ? cap : 1, sizeof *b->texts);
    if (!b->fields || !b->texts)
        return false;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (strcmp(k, "event") == 0)
            continue;
        gsvm_mission_field *f = &b->fields[b->n];
        f->name = k;
        switch (json_typeof(v)) {
        case JSON_TRUE:
        case JSON_FALSE: f->value.type = GSVM_MV_BOOL; f->value.b = json_is_true(v); break;
        case JSON_INTEGER: f->value.type = GSVM_MV_INT; f->value.i = json_integer_value(v); break;
        case JSON_REAL: f->value.type = GSVM_MV_NUM; f->value.n = json_real_value(v); break;
        case JSON_STRING:
            f->value.type = GSVM_MV_STR;
            f->value.s = json_string_value(v);
            f->value.len = json_string_length(v);
            break;
        case JSON_NULL: f->value.type = GSVM_MV_NIL; break;
        default:
            b->texts[b->n] = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
            f->value.type = GSVM_MV_STR;
            f->value.s = b->texts[b->n] ? b->texts[b->n] : "";
            f->value.len = strlen(f->value.s);
        }
        b->n++;
    }
    return true;
}

/* Runs one timeline line. Returns -1 to go on, or an exit code. */
static int run_line(gsvm_mission **mp, json_t *line, const char *path, size_t lineno, run_out *o,
                    const char *script_path)
{
    gsvm_mission *m = mp ? *mp : NULL;
    gsvm_error err;
    json_t *ev = json_object_get(line, "event");
    if (ev) {
        if (!json_is_string(ev))
            return timeline_error(path, lineno, "%s", "\"event\" must be a kind name");
        report_buf b = {0};
        gsvm_status st = GSVM_ERR_NOMEM;
        if (report_fields(line, &b))
            st = gsvm_mission_report(m, json_string_value(ev), b.fields, b.n, &err);
        else
            snprintf(err.message, sizeof err.message, "out of memory");
        report_buf_free(&b);
        if (st != GSVM_OK)
            return timeline_error_at(path, lineno, strstr(err.message, "slot") ? value_column(o, lineno, "slot") : 1,
                                     "%s", err.message);
        return -1;
    }
    json_t *packet = json_object_get(line, "packet");
    if (packet) {
        size_t n = json_is_array(packet) ? json_array_size(packet) : 0;
        if (n == 0 || n > 1024)
            return timeline_error(path, lineno, "%s", "\"packet\" must be a list of 1 to 1024 events");
        report_buf *bufs = calloc(n, sizeof *bufs);
        gsvm_mission_report_item *items = calloc(n, sizeof *items);
        int rc = -1;
        if (!bufs || !items)
            rc = timeline_error(path, lineno, "%s", "out of memory");
        for (size_t i = 0; rc < 0 && i < n; i++) {
            json_t *e = json_array_get(packet, i);
            json_t *kind = json_object_get(e, "event");
            if (!json_is_object(e) || !json_is_string(kind))
                rc = timeline_error(path, lineno, "%s", "each packet entry is {\"event\":KIND, ...fields}");
            else if (!report_fields(e, &bufs[i]))
                rc = timeline_error(path, lineno, "%s", "out of memory");
            else
                items[i] = (gsvm_mission_report_item){json_string_value(kind), bufs[i].fields, bufs[i].n};
        }
        if (rc < 0 && gsvm_mission_report_packet(m, items, n, &err) != GSVM_OK)
            rc = timeline_error_at(path, lineno, strstr(err.message, "slot") ? value_column(o, lineno, "slot") : 1,
                                   "%s", err.message);
        for (size_t i = 0; bufs && i < n; i++)
            report_buf_free(&bufs[i]);
        free(bufs);
        free(items);
        return rc;
    }
    json_t *adv = json_object_get(line, "advance_ms");
    if (adv) {
        if (!json_is_integer(adv) || json_integer_value(adv) < 0 ||
            (uint64_t)json_integer_value(adv) > GSVM_MISSION_MAX_CLOCK_MS)
            return timeline_error_at(path, lineno, value_column(o, lineno, "advance_ms"), "%s",
                                     "\"advance_ms\" must be an integer from 0 to 2^53 (9007199254740992)");
        if (gsvm_mission_advance(m, (uint64_t)json_integer_value(adv), &err) != GSVM_OK)
            return timeline_error_at(path, lineno, value_column(o, lineno, "advance_ms"), "%s", err.message);
        return -1;
    }
    json_t *outc = json_object_get(line, "outcome");
    if (outc) {
        /* {"outcome":..,"key":"N"}: the host's later answer to the head request. */
        int which = -1;
        for (int i = 0; outcomes[i]; i++)
            if (json_is_string(outc) && strcmp(outcomes[i], json_string_value(outc)) == 0)
                which = i;
        if (which < 0)
            return timeline_error_at(path, lineno, value_column(o, lineno, "outcome"), "%s",
                                     "\"outcome\" must be committed, transport_staged, refused or canceled");
        gsvm_mission_request head;
        bool deferred = false;
        if (!gsvm_mission_head_request(m, &head, &deferred) || !deferred)
            return timeline_error_at(path, lineno, value_column(o, lineno, "outcome"), "%s",
                                     "no deferred request is in delivery (answer {\"host\":\"defer\"} first)");
        json_t *k = json_object_get(line, "key");
        uint64_t key = head.key;
        if (k) {
            char want[24];
            snprintf(want, sizeof want, "%llu", (unsigned long long)head.key);
            if (!json_is_string(k) || strcmp(json_string_value(k), want) != 0)
                return timeline_error_at(path, lineno, value_column(o, lineno, "key"),
                                         "the head request is key %s", want);
        }
        if (gsvm_mission_report_outcome(m, key, (gsvm_mission_outcome)which, &err) != GSVM_OK)
            return timeline_error_at(path, lineno, value_column(o, lineno, "outcome"), "%s", err.message);
        return -1;
    }
    json_t *host = json_object_get(line, "host");
    if (host) {
        for (int i = 0; answers[i]; i++)
            if (json_is_string(host) && strcmp(answers[i], json_string_value(host)) == 0) {
                o->answer = (gsvm_mission_answer)i;
                return -1;
            }
        return timeline_error_at(path, lineno, value_column(o, lineno, "host"), "%s",
                              "\"host\" must be accept, refuse, stall, pending, drop, no_cancel, unpublished, mismatch or defer");
    }
    json_t *pub = json_object_get(line, "publish");
    if (pub) {
        if (!json_is_boolean(pub))
            return timeline_error(path, lineno, "%s", "\"publish\" must be true or false");
        if (json_is_true(pub))
            gsvm_mission_publish(m, &err);
        return -1;
    }
    json_t *flag = json_object_get(line, "reopen");
    if (!flag)
        flag = json_object_get(line, "reload_script");
    if (json_is_false(flag))
        return -1; /* {"reopen":false} asks for nothing */
    if (json_is_true(json_object_get(line, "reopen"))) {
        if (gsvm_mission_reopen(m, &err) != GSVM_OK) {
            gsvm_cli_fail(&err);
            return EXIT_INPUT;
        }
        return -1;
    }
    if (json_is_true(json_object_get(line, "reload_script"))) {
        /* "Reload script" reads the script file again (the text loaded at
         * the start when it came from stdin or cannot be read now). */
        char *text = NULL;
        size_t tlen = 0;
        bool fresh = script_path && strcmp(script_path, "-") != 0 &&
                     gsvm_mission_read_script(script_path, &text, &tlen, &err) == GSVM_OK;
        gsvm_status st = gsvm_mission_reload_script(m, fresh ? text : NULL, fresh ? tlen : 0, &err);
        free(text);
        if (st != GSVM_OK) {
            gsvm_cli_fail(&err);
            return EXIT_INPUT;
        }
        return -1;
    }
    return timeline_error(path, lineno, "%s",
                          "a timeline line is {\"event\":..}, {\"packet\":[..]}, {\"advance_ms\":N}, {\"host\":..}, {\"outcome\":..}, {\"publish\":true}, {\"reopen\":true} or {\"reload_script\":true}");
}

/* The root of "ROOT/scripts/x/x.lua" (for require), or "" when the path has no scripts/ part. */
static void infer_root(const char *script, char *out, size_t size)
{
    out[0] = 0;
    const char *p = strstr(script, "scripts/"), *last = NULL;
    while (p) {
        if (p == script || p[-1] == '/')
            last = p;
        p = strstr(p + 1, "scripts/");
    }
    if (!last)
        return;
    size_t n = (size_t)(last - script);
    if (n == 0)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", (int)(n - 1), script);
}

static void basename_stem(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && strcmp(b + n - 4, ".lua") == 0)
        n -= 4;
    snprintf(out, size, "%.*s", (int)n, b);
}

static const gsvm_cli_opt run_opts[] = {
    {"--world", 0, OPT_STRING, "WORLD.json", "the world model (slots, squads, scenes, activity)"},
    {"--events", 0, OPT_STRING, "EVENTS.jsonl", "the timeline: events, clock, host answers, reopen"},
    {"--state", 0, OPT_STRING, "STATE.db", "the SQLite record (in memory when omitted)"},
    {"--role", 0, OPT_STRING, "public|private", "the activity role (default: the world's, else public)"},
    {"--activity", 0, OPT_STRING, "NAME", "the activity name (activity_id; finds the script in a root)"},
    {"--root", 0, OPT_STRING, "DIR", "the SDK root for require (default: inferred from .../scripts/...)"},
    {"--max-variables", 0, OPT_U64, "N", "variable capacity (default 512)"},
    {"--fsync", 0, OPT_FLAG, NULL, "fsync every commit (synchronous=FULL)"},
    {"--callback-budget", 0, OPT_U64, "N", "instructions per callback (default 5000000)"},
    {"--callback-wall-ms", 0, OPT_U64, "MS", "wall-clock limit per callback (default 1000)"},
    {"--commit-wait-ms", 0, OPT_U64, "MS", "refused without a host commit after (default 2000)"},
    {"--network-wait-ms", 0, OPT_U64, "MS", "cancel requested after this in the network queue (default 15000)"},
    {"--cancel-wait-ms", 0, OPT_U64, "MS", "fault when a cancel is not confirmed after (default 2000)"},
    {"--expire-ms", 0, OPT_U64, "MS", "expired this long after the first try (default 60000)"},
    {"--output", 'o', OPT_STRING, "FILE", "write the output lines to FILE"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_run(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    const char *world_path = gsvm_cli_str(c, "--world", NULL), *events_path = gsvm_cli_str(c, "--events", NULL),
               *state_path = gsvm_cli_str(c, "--state", NULL), *role = gsvm_cli_str(c, "--role", NULL),
               *activity = gsvm_cli_str(c, "--activity", NULL), *root = gsvm_cli_str(c, "--root", NULL),
               *out_path = gsvm_cli_str(c, "--output", NULL);
    uint64_t max_vars = gsvm_cli_u64(c, "--max-variables", 0), budget = gsvm_cli_u64(c, "--callback-budget", 0),
             wall_ms = gsvm_cli_u64(c, "--callback-wall-ms", 0), commit_ms = gsvm_cli_u64(c, "--commit-wait-ms", 0),
             network_ms = gsvm_cli_u64(c, "--network-wait-ms", 0),
             cancel_ms = gsvm_cli_u64(c, "--cancel-wait-ms", 0), expire_ms = gsvm_cli_u64(c, "--expire-ms", 0);
    bool fsync_full = gsvm_cli_flag(c, "--fsync");
    gsvm_mission_role r = GSVM_MISSION_PUBLIC;
    bool role_given = false;
    if (role) {
        if (strcmp(role, "public") == 0)
            r = GSVM_MISSION_PUBLIC;
        else if (strcmp(role, "private") == 0)
            r = GSVM_MISSION_PRIVATE;
        else
            return gsvm_cli_usage_error(c, "--role must be public or private");
        role_given = true;
    }
    if (max_vars > 1000000)
        return gsvm_cli_bad_value(c, "--max-variables is at most 1000000");
    if (wall_ms > UINT32_MAX || commit_ms > UINT32_MAX || network_ms > UINT32_MAX || cancel_ms > UINT32_MAX ||
        expire_ms > UINT32_MAX)
        return gsvm_cli_bad_value(c, "a time in ms is at most 4294967295");
    gsvm_error err;
    gsvm_mission_world *world = NULL;
    json_t *line = NULL; /* the timeline line being run */
    char *src = NULL;
    size_t srclen = 0;
    int exit_code = EXIT_INPUT;
    FILE *out = stdout;
    gsvm_mission *m = NULL;
    if (world_path) {
        gsvm_buf wb;
        int rc = gsvm_cli_read(world_path, &wb);
        if (rc)
            return rc;
        gsvm_status st = gsvm_mission_world_parse((const char *)wb.data, wb.len, world_path, &world, &err);
        gsvm_buf_free(&wb);
        if (st != GSVM_OK)
            return gsvm_cli_fail(&err);
    }
    /* The timeline is read whole but parsed one line at a time, each line
     * run and freed before the next: a long timeline costs its text only. */
    gsvm_buf tl_text;
    gsvm_buf_init(&tl_text);
    if (events_path && gsvm_file_read(events_path, &tl_text, &err) != GSVM_OK) {
        gsvm_mission_world_free(world);
        return gsvm_cli_fail(&err);
    }
    size_t tl_pos = 0;
    long tl_line = 0;
    /* The script: a file, or a root folder searched by the activity name. */
    const char *script = pos[0];
    char root_buf[1024] = "", id_buf[256] = "", found[2048] = "";
    struct stat sst;
    if (strcmp(script, "-") != 0 && stat(script, &sst) == 0 && S_ISDIR(sst.st_mode)) {
        const char *iname = activity ? activity : gsvm_mission_world_activity_name(world);
        if (gsvm_mission_find_script(script, iname, gsvm_mission_world_display_name(world),
                                     gsvm_mission_world_activity_index(world),
                                     gsvm_mission_world_definition_hash(world), &src, &srclen,
                                     found, sizeof found, &err) != GSVM_OK) {
            gsvm_cli_fail(&err);
            exit_code = EXIT_INPUT;
            goto done;
        }
        snprintf(root_buf, sizeof root_buf, "%s", script);
        gsvm_mission_file_stem(iname, gsvm_mission_world_display_name(world), id_buf, sizeof id_buf, &err);
    } else {
        /* The size is checked before the file is read (a 300 MB file is not read). */
        if (gsvm_mission_read_script(script, &src, &srclen, &err) != GSVM_OK) {
            gsvm_cli_fail(&err);
            exit_code = EXIT_INPUT;
            goto done;
        }
        infer_root(script, root_buf, sizeof root_buf);
        basename_stem(script, id_buf, sizeof id_buf);
    }
    if (activity)
        snprintf(id_buf, sizeof id_buf, "%s", activity);
    else if (world && gsvm_mission_world_activity_name(world)[0])
        snprintf(id_buf, sizeof id_buf, "%s", gsvm_mission_world_activity_name(world));
    if (out_path && strcmp(out_path, "-") != 0) {
        out = fopen(out_path, "w");
        if (!out) {
            fprintf(stderr, "%s: error: cannot write\n", out_path);
            out = stdout;
            goto done;
        }
    }
    run_out ro = {out, GSVM_MISSION_ACCEPT, (const char *)tl_text.data, tl_text.len, 0, 0};
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.activity_id = id_buf[0] ? id_buf : "activity";
    cfg.sdk_root = root ? root : (root_buf[0] ? root_buf : NULL);
    cfg.world = world;
    cfg.state_path = state_path;
    cfg.durable_fsync = fsync_full;
    if (max_vars)
        cfg.max_variables = (uint32_t)max_vars;
    if (budget)
        cfg.callback_budget = budget;
    if (wall_ms)
        cfg.callback_wall_ms = (uint32_t)wall_ms;
    cfg.commit_wait_ms = (uint32_t)commit_ms;
    cfg.network_wait_ms = (uint32_t)network_ms;
    cfg.cancel_wait_ms = (uint32_t)cancel_ms;
    cfg.expire_ms = (uint32_t)expire_ms;
    cfg.role = r;
    if (!role_given && world) {
        /* The world may declare the role; --role wins. */
        int wr = gsvm_mission_world_role(world);
        if (wr >= 0)
            cfg.role = (gsvm_mission_role)wr;
    }
    cfg.host.request = on_request;
    cfg.host.initial_state = on_initial_state;
    cfg.host.effect_result = on_effect_result;
    cfg.host.fault = on_fault;
    cfg.host.cancel = on_cancel;
    cfg.host.ud = &ro;
    /* Host answers at the head of the timeline already hold while opening
     * (they decide the initial state's publication). */
    for (;;) {
        if (gsvm_jsonl_next((const char *)tl_text.data, tl_text.len, events_path, &tl_pos, &tl_line, &line,
                            &err) != GSVM_OK) {
            gsvm_cli_fail(&err);
            exit_code = EXIT_INPUT;
            goto done;
        }
        if (!line || json_object_size(line) != 1 || !json_object_get(line, "host"))
            break; /* `line` (when not NULL) is the first line run after opening */
        int hrc = run_line(NULL, line, events_path, (size_t)tl_line, &ro, script);
        json_decref(line);
        line = NULL;
        if (hrc >= 0) {
            exit_code = EXIT_INPUT;
            goto done;
        }
    }
    if (gsvm_mission_open(&cfg, src, srclen, &m, &err) != GSVM_OK) {
        /* A script error names the script file; a state file's names the state file. */
        if ((err.status == GSVM_ERR_INPUT || err.status == GSVM_ERR_LIMIT) &&
            !(state_path && strcmp(err.file, state_path) == 0))
            snprintf(err.file, sizeof err.file, "%.200s", found[0] ? found : script);
        gsvm_cli_fail(&err);
        exit_code = EXIT_INPUT;
        goto done;
    }
    exit_code = -1;
    while (line) {
        exit_code = run_line(&m, line, events_path, (size_t)tl_line, &ro, found[0] ? found : script);
        json_decref(line);
        line = NULL;
        if (exit_code >= 0)
            break;
        if (gsvm_jsonl_next((const char *)tl_text.data, tl_text.len, events_path, &tl_pos, &tl_line, &line,
                            &err) != GSVM_OK) {
            gsvm_cli_fail(&err);
            exit_code = EXIT_INPUT;
        }
    }
    if (exit_code < 0) {
        /* A published start runs on the next server tick.  When the timeline
         * ends before any tick, the simulated server runs that one tick, so
         * on_start (and the reports kept for it) is never silently skipped. */
        if (gsvm_mission_start_pending(m))
            gsvm_mission_advance(m, gsvm_mission_tick_ms(m), &err);
        emit_committed(out, m);
        exit_code = gsvm_mission_faulted(m) ? EXIT_FAULT : 0;
    }
done:
    gsvm_mission_close(m);
    if (out != stdout)
        fclose(out);
    json_decref(line);
    gsvm_buf_free(&tl_text);
    gsvm_mission_world_free(world);
    free(src);
    return exit_code;
}

static const gsvm_cli_opt stem_opts[] = {
    {"--display-name", 0, OPT_STRING, "NAME", "used when the internal name is empty"},
    {"--index", 0, OPT_U64, "N", "activity index (fallback file name)"},
    {"--hash", 0, OPT_U64, "N", "definition hash (fallback file name)"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_stem(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    const char *display = gsvm_cli_str(c, "--display-name", "");
    uint64_t index = gsvm_cli_u64(c, "--index", 0), hash = gsvm_cli_u64(c, "--hash", 0);
    char stem[128];
    gsvm_error err;
    if (gsvm_mission_file_stem(pos[0], display, stem, sizeof stem, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    printf("scripts/%s/%s.lua\nscripts/activities/a_%04u_%08x.lua\n", stem, stem, (unsigned)(index % 10000),
           (unsigned)(hash & 0xFFFFFFFFu));
    return 0;
}

static const gsvm_cli_verb verbs[] = {
    {"run", "run a mission script against a timeline (JSON Lines)",
     "SCRIPT.lua|ROOT [--world WORLD.json] [--events EVENTS.jsonl] [--state STATE.db] "
     "[--role public|private] [--activity NAME]",
     "Runs a mission script against a timeline (JSON Lines) and prints its requests,\n"
     "effect results and faults, then the committed record.  Exit 0, 3 when the\n"
     "mission is faulted at the end, 1 when the script cannot be loaded.",
     run_opts, 1, 1, cmd_run},
    {"stem", "print the script paths tried for an activity name",
     "NAME [--display-name NAME] [--index N] [--hash N]",
     "Prints the script paths the runtime tries for an activity name.", stem_opts, 1, 1, cmd_stem},
    {NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

static const gsvm_cli_engine engine = {
    "mission", "A sandboxed Lua 5.4 mission runtime whose callbacks are transactions.", verbs};

int gsvm_cli_mission(int argc, char **argv)
{
    return gsvm_cli_engine_main(&engine, argc, argv);
}
