/* gsvm lsl run for ABI-3 programs: checks the timeline (event lines and
 * {"advance_ms": N} lines), drives the VM in slices and prints host calls
 * and faults as JSON Lines.  The engine is in src/lsl/; what both ABIs'
 * runs share is in lsl.c (lsl_cli.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/jsonl.h"
#include "cli/lsl_cli.h"
#include "cli/verb.h"

static gsvm_status check_line(void *ctx, json_t *obj, char *problem, size_t size, gsvm_error *err)
{
    const gsvm_lsl3_program *prog = ctx;
    json_t *jname = json_object_get(obj, "event"), *jargs = json_object_get(obj, "args");
    json_t *jadv = json_object_get(obj, "advance_ms");
    if (!jname && jadv) {
        if (!json_is_integer(jadv) || json_integer_value(jadv) < 0 ||
            json_integer_value(jadv) > (json_int_t)1000000000000)
            snprintf(problem, size, "\"advance_ms\" must be an integer from 0 to 10^12");
    } else if (!json_is_string(jname)) {
        snprintf(problem, size, "expected {\"event\": NAME, \"args\": [...]} or {\"advance_ms\": N}");
    } else if (jargs && !json_is_array(jargs)) {
        snprintf(problem, size, "\"args\" must be an array");
    } else if (!gsvm_lsl3_program_has_event(prog, json_string_value(jname))) {
        snprintf(problem, size, "the script has no '%s' handler", json_string_value(jname));
    } else {
        /* the arguments against the event's signature, in a VM of its own */
        gsvm_lsl3_vm *probe;
        bool queued;
        if (gsvm_lsl3_vm_new(prog, &probe, err) != GSVM_OK)
            return err->status;
        gsvm_error e2;
        gsvm_error_clear(&e2);
        if (gsvm_lsl3_vm_post(probe, json_string_value(jname), jargs, &queued, &e2) != GSVM_OK)
            snprintf(problem, size, "%s", e2.message);
        gsvm_lsl3_vm_free(probe);
    }
    return GSVM_OK;
}

gsvm_status gsvm_cli_lsl3_load_timeline(const char *path, const gsvm_lsl3_program *prog,
                                        lsl_lines *out, gsvm_error *err)
{
    return lsl_cli_load_lines(path, check_line, (void *)prog, out, err);
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

static int write_snapshot(const gsvm_lsl3_vm *vm, const char *path)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    uint8_t *data = NULL;
    size_t len = 0;
    gsvm_status st = gsvm_lsl3_vm_snapshot(vm, &data, &len, &err);
    return lsl_cli_save_snapshot(path, st, data, len, &err);
}

/* Runs until the script is idle or sleeping (LSL_DRIVE_DONE), or returns
 * the exit code to stop with. */
static int drive(gsvm_lsl3_vm *vm, const lsl_run_opts *o, FILE *out)
{
    for (;;) {
        uint64_t total = gsvm_lsl3_vm_total(vm);
        if (o->has_snapshot_at && total >= o->snapshot_at)
            return write_snapshot(vm, o->snapshot_out);
        if (o->has_max && total >= o->max_instructions) {
            /* only a limit when there is work left */
            gsvm_lsl_run_status peek = gsvm_lsl3_vm_run(vm, 0);
            if (peek != GSVM_LSL_YIELDED)
                return peek == GSVM_LSL_ERROR ? EXIT_FAULT : LSL_DRIVE_DONE;
            return lsl_cli_emit_limit(out, total);
        }
        gsvm_lsl_run_status st = gsvm_lsl3_vm_run(vm, lsl_cli_slice(o, total));
        if (st == GSVM_LSL_ERROR) {
            uint32_t ln = 0, col = 0; /* the source position, from the program's line table */
            bool has_pos = gsvm_lsl3_vm_fault_line(vm, &ln, &col);
            return lsl_cli_emit_fault(out, gsvm_lsl3_vm_fault(vm), gsvm_lsl3_vm_fault_ip(vm), has_pos,
                                      ln, col);
        }
        if (st != GSVM_LSL_YIELDED)
            return LSL_DRIVE_DONE;
    }
}

int gsvm_cli_lsl_run3(const gsvm_lsl3_program *prog, const lsl_lines *tl, const char *resume,
                      const lsl_run_opts *o, FILE *out)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(prog, &vm, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    host_ctx hc = {out};
    gsvm_lsl3_vm_set_host(vm, print_host, &hc);
    int rc = LSL_DRIVE_DONE;
    if (resume) {
        gsvm_buf snap;
        if ((rc = gsvm_cli_read(resume, &snap)) == 0) {
            rc = LSL_DRIVE_DONE;
            if (gsvm_lsl3_vm_restore(vm, snap.data, snap.len, resume, &err) != GSVM_OK)
                rc = gsvm_cli_fail(&err);
            gsvm_buf_free(&snap);
        }
    } else if (gsvm_lsl3_vm_start(vm, &err) != GSVM_OK) {
        rc = gsvm_cli_fail(&err);
    }
    if (rc == LSL_DRIVE_DONE)
        rc = drive(vm, o, out);
    for (size_t i = 0; rc == LSL_DRIVE_DONE && i < tl->n; i++) {
        json_t *obj = json_array_get(tl->all, i);
        json_t *jname = json_object_get(obj, "event");
        if (!jname) {
            uint64_t left = (uint64_t)json_integer_value(json_object_get(obj, "advance_ms"));
            while (rc == LSL_DRIVE_DONE && left > 0) {
                uint64_t step = gsvm_lsl3_vm_advance(vm, left);
                left -= step;
                rc = drive(vm, o, out);
                if (step == 0)
                    break;
            }
            continue;
        }
        bool queued;
        if (gsvm_lsl3_vm_post(vm, json_string_value(jname), json_object_get(obj, "args"), &queued,
                              &err) != GSVM_OK) {
            rc = lsl_cli_line_fail(tl, i, &err);
            break;
        }
        rc = drive(vm, o, out);
    }
    if (rc == LSL_DRIVE_DONE) {
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
        lsl_cli_note_early_end(o, gsvm_lsl3_vm_total(vm));
        if (o->snapshot_out)
            rc = write_snapshot(vm, o->snapshot_out);
    }
    gsvm_lsl3_vm_free(vm);
    return rc;
}
