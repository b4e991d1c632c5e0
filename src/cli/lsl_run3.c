/* gsvm lsl run for ABI-3 programs: reads the timeline (event lines and
 * {"advance_ms": N} lines), drives the VM in slices and prints host calls
 * and faults as JSON Lines.  The engine is in src/lsl/. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/jsonl.h"
#include "cli/args.h"
#include "cli/lsl_cli.h"

typedef struct timeline_line {
    long line;
    json_t *obj; /* {"event":..., "args":[...]} or {"advance_ms": N} */
    uint64_t advance;
    bool is_advance;
} timeline_line;

static void free_lines(timeline_line *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(t[i].obj);
    free(t);
}

/* Reads and checks every line before anything runs. */
static gsvm_status load_timeline(const char *path, const gsvm_lsl3_program *prog, timeline_line **out,
                                 size_t *n, gsvm_error *err)
{
    json_t *all = NULL;
    long *lines = NULL;
    *out = NULL;
    *n = 0;
    gsvm_status st = gsvm_jsonl_load_lines(path, &all, &lines, err);
    if (st != GSVM_OK)
        return st;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    size_t cap = 0;
    timeline_line *tl = NULL;
    for (size_t k = 0; k < json_array_size(all) && st == GSVM_OK; k++) {
        long lineno = lines[k];
        json_t *obj = json_incref(json_array_get(all, k));
        json_t *jname = json_object_get(obj, "event"), *jargs = json_object_get(obj, "args");
        json_t *jadv = json_object_get(obj, "advance_ms");
        const char *problem = NULL;
        char buf[600];
        if (!jname && jadv) {
            if (!json_is_integer(jadv) || json_integer_value(jadv) < 0 ||
                json_integer_value(jadv) > (json_int_t)1000000000000)
                problem = "\"advance_ms\" must be an integer from 0 to 10^12";
        } else if (!json_is_string(jname)) {
            problem = "expected {\"event\": NAME, \"args\": [...]} or {\"advance_ms\": N}";
        } else if (jargs && !json_is_array(jargs)) {
            problem = "\"args\" must be an array";
        } else if (!gsvm_lsl3_program_has_event(prog, json_string_value(jname))) {
            snprintf(buf, sizeof buf, "the script has no '%s' handler", json_string_value(jname));
            problem = buf;
        } else {
            /* check the arguments against the event's signature */
            gsvm_lsl3_vm *probe;
            bool q;
            if (gsvm_lsl3_vm_new(prog, &probe, err) != GSVM_OK) {
                json_decref(obj);
                st = err->status;
                break;
            }
            gsvm_error e2;
            gsvm_error_clear(&e2);
            if (gsvm_lsl3_vm_post(probe, json_string_value(jname), jargs, &q, &e2) != GSVM_OK) {
                snprintf(buf, sizeof buf, "%s", e2.message);
                problem = buf;
            }
            gsvm_lsl3_vm_free(probe);
        }
        if (problem) {
            json_decref(obj);
            st = gsvm_error_at_line(err, GSVM_ERR_INPUT, name, lineno, 1, "%s", problem);
            break;
        }
        if (cap == *n) {
            cap = cap ? cap * 2 : 16;
            timeline_line *nt = realloc(tl, cap * sizeof *tl);
            if (!nt) {
                json_decref(obj);
                st = gsvm_error_set(err, GSVM_ERR_NOMEM, name, "out of memory");
                break;
            }
            tl = nt;
        }
        timeline_line *t = &tl[(*n)++];
        t->line = lineno;
        t->obj = obj;
        t->is_advance = !jname;
        t->advance = t->is_advance ? (uint64_t)json_integer_value(jadv) : 0;
    }
    json_decref(all);
    free(lines);
    if (st != GSVM_OK) {
        free_lines(tl, *n);
        *n = 0;
        return st;
    }
    *out = tl;
    return GSVM_OK;
}

typedef struct host_ctx {
    FILE *out;
} host_ctx;

/* The CLI's host: prints the call and lets the VM return the default. */
static gsvm_status print_host(void *user, const char *name, const json_t *args, json_t **result,
                              gsvm_error *err)
{
    host_ctx *h = user;
    (void)err;
    json_t *line = json_object();
    json_object_set_new(line, "host", json_string(name));
    json_object_set(line, "args", (json_t *)args);
    gsvm_jsonl_emit(h->out, line);
    *result = NULL;
    return GSVM_OK;
}

enum { DRIVE_DONE = -1 };

static int write_snapshot(const gsvm_lsl3_vm *vm, const char *path)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    uint8_t *data;
    size_t len;
    if (gsvm_lsl3_vm_snapshot(vm, &data, &len, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    int rc = gsvm_cli_write(path, data, len);
    free(data);
    return rc;
}

/* Runs until the script is idle or sleeping (DRIVE_DONE), or returns the
 * exit code to stop with. */
static int drive(gsvm_lsl3_vm *vm, const lsl3_run_opts *o, FILE *out)
{
    for (;;) {
        uint64_t total = gsvm_lsl3_vm_total(vm);
        if (o->has_snapshot_at && total >= o->snapshot_at)
            return write_snapshot(vm, o->snapshot_out);
        if (o->has_max && total >= o->max_instructions) {
            /* only a limit when there is work left */
            gsvm_lsl_run_status peek = gsvm_lsl3_vm_run(vm, 0);
            if (peek != GSVM_LSL_YIELDED)
                return peek == GSVM_LSL_ERROR ? EXIT_FAULT : DRIVE_DONE;
            json_t *line = json_object();
            json_object_set_new(line, "stopped", json_string("instruction limit"));
            json_object_set_new(line, "executed", json_integer((json_int_t)total));
            gsvm_jsonl_emit(out, line);
            return EXIT_LIMIT;
        }
        uint64_t slice = o->budget;
        if (o->has_snapshot_at && o->snapshot_at - total < slice)
            slice = o->snapshot_at - total;
        if (o->has_max && o->max_instructions - total < slice)
            slice = o->max_instructions - total;
        gsvm_lsl_run_status st = gsvm_lsl3_vm_run(vm, slice);
        if (st == GSVM_LSL_ERROR) {
            json_t *line = json_object();
            json_object_set_new(line, "fault", json_string(gsvm_lsl3_vm_fault(vm)));
            json_object_set_new(line, "ip", json_integer((json_int_t)gsvm_lsl3_vm_fault_ip(vm)));
            uint32_t ln, col; /* the source position, from the program's line table */
            if (gsvm_lsl3_vm_fault_line(vm, &ln, &col)) {
                json_object_set_new(line, "line", json_integer(ln));
                json_object_set_new(line, "col", json_integer(col));
            }
            gsvm_jsonl_emit(out, line);
            return EXIT_FAULT;
        }
        if (st != GSVM_LSL_YIELDED)
            return DRIVE_DONE;
    }
}

int gsvm_cli_lsl_run3(const gsvm_lsl3_program *prog, const char *events_path, const char *resume,
                      const lsl3_run_opts *o, FILE *out)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    timeline_line *tl = NULL;
    size_t ntl = 0;
    if (events_path && load_timeline(events_path, prog, &tl, &ntl, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    const char *events_name = events_path && strcmp(events_path, "-") ? events_path : "<stdin>";
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(prog, &vm, &err) != GSVM_OK) {
        free_lines(tl, ntl);
        return gsvm_cli_fail(&err);
    }
    host_ctx hc = {out};
    gsvm_lsl3_vm_set_host(vm, print_host, &hc);
    int rc = DRIVE_DONE;
    if (resume) {
        gsvm_buf snap;
        if (gsvm_file_read(resume, &snap, &err) != GSVM_OK) {
            rc = gsvm_cli_fail(&err);
        } else {
            if (gsvm_lsl3_vm_restore(vm, snap.data, snap.len, resume, &err) != GSVM_OK)
                rc = gsvm_cli_fail(&err);
            gsvm_buf_free(&snap);
        }
    } else if (gsvm_lsl3_vm_start(vm, &err) != GSVM_OK) {
        rc = gsvm_cli_fail(&err);
    }
    if (rc == DRIVE_DONE)
        rc = drive(vm, o, out);
    for (size_t i = 0; rc == DRIVE_DONE && i < ntl; i++) {
        const timeline_line *t = &tl[i];
        if (t->is_advance) {
            uint64_t left = t->advance;
            while (rc == DRIVE_DONE && left > 0) {
                uint64_t step = gsvm_lsl3_vm_advance(vm, left);
                left -= step;
                rc = drive(vm, o, out);
                if (step == 0)
                    break;
            }
            continue;
        }
        bool queued;
        if (gsvm_lsl3_vm_post(vm, json_string_value(json_object_get(t->obj, "event")),
                              json_object_get(t->obj, "args"), &queued, &err) != GSVM_OK) {
            snprintf(err.file, sizeof err.file, "%s", events_name);
            err.line = t->line;
            err.column = 1;
            rc = gsvm_cli_fail(&err);
            break;
        }
        rc = drive(vm, o, out);
    }
    if (rc == DRIVE_DONE) {
        rc = 0;
        uint64_t wake = gsvm_lsl3_vm_wake_ms(vm);
        if (wake) {
            /* the timeline ended before the script woke: say so, so a
             * timeline too short to see the rest of the script is visible */
            json_t *line = json_object();
            json_object_set_new(line, "asleep", json_string("the run ended while the script sleeps"));
            json_object_set_new(line, "now_ms", json_integer((json_int_t)gsvm_lsl3_vm_now_ms(vm)));
            json_object_set_new(line, "wake_ms", json_integer((json_int_t)wake));
            gsvm_jsonl_emit(out, line);
        }
        if (o->has_snapshot_at)
            fprintf(stderr,
                    "gsvm lsl run: the run ended after %" PRIu64 " instructions, before "
                    "--snapshot-at %" PRIu64 "; the snapshot is of the end state\n",
                    gsvm_lsl3_vm_total(vm), o->snapshot_at);
        if (o->snapshot_out)
            rc = write_snapshot(vm, o->snapshot_out);
    }
    gsvm_lsl3_vm_free(vm);
    free_lines(tl, ntl);
    return rc;
}
