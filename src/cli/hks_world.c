/* gsvm hks run --world: the world-layer runtime's CLI.  It reads the world
 * file and the natives declarations, installs the layer, starts its
 * StartupCommands threads and plays the timeline, one JSON object a line:
 *   {"advance_ms": N}                      simulated time passes
 *   {"event": NAME, "object": O, "args": [...]}   a ScriptBind dispatch
 *   {"pause": true|false}                  pause (nobody wakes) or resume
 *   {"answer": NATIVE, "value": V}         what NATIVE's next call returns
 *   {"install": true}                      the region loads again (reinstall cache)
 * Exit 0, 3 when any thread or handler faulted, 4 at a limit. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/verb.h"
#include "cli/hks_cli.h"
#include "gsvm/hks.h"

static void emit_line(void *ctx, const char *line)
{
    FILE *f = ctx;
    fputs(line, f);
    fputc('\n', f);
}

/* The natives file: --natives, else the world's "natives" (relative to the
 * world file's folder). */
static int natives_path(const hks_run_args *ra, const char *world_text, size_t len, char *out,
                        size_t n)
{
    out[0] = 0;
    if (ra->natives) {
        snprintf(out, n, "%s", ra->natives);
        return 0;
    }
    json_t *root = json_loadb(world_text, len, 0, NULL);
    json_t *nv = root ? json_object_get(root, "natives") : NULL;
    if (json_is_string(nv)) {
        const char *p = json_string_value(nv);
        const char *slash = strrchr(ra->world, '/');
        if (p[0] != '/' && slash)
            snprintf(out, n, "%.*s/%s", (int)(slash - ra->world), ra->world, p);
        else
            snprintf(out, n, "%s", p);
    }
    json_decref(root);
    return 0;
}

int hks_cli_run_world(const hks_run_args *ra)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf wb, nb, tb;
    memset(&nb, 0, sizeof nb);
    memset(&tb, 0, sizeof tb);
    if (gsvm_file_read(ra->world, &wb, &err) != GSVM_OK) {
        gsvm_buf_free(&wb);
        return gsvm_cli_fail(&err);
    }
    char npath[1024];
    natives_path(ra, (const char *)wb.data, wb.len, npath, sizeof npath);
    if (npath[0] && gsvm_file_read(npath, &nb, &err) != GSVM_OK) {
        gsvm_buf_free(&wb);
        gsvm_buf_free(&nb);
        return gsvm_cli_fail(&err);
    }
    if (ra->events && gsvm_file_read(ra->events, &tb, &err) != GSVM_OK) {
        gsvm_buf_free(&wb);
        gsvm_buf_free(&nb);
        gsvm_buf_free(&tb);
        return gsvm_cli_fail(&err);
    }
    gsvm_hks_world *w = NULL;
    gsvm_status st = gsvm_hks_world_new((const char *)wb.data, wb.len, ra->world,
                                        npath[0] ? (const char *)nb.data : NULL, nb.len, npath,
                                        &ra->vm, emit_line, stdout, &w, &err);
    gsvm_buf_free(&wb);
    gsvm_buf_free(&nb);
    int rc = 0;
    if (st != GSVM_OK) {
        gsvm_buf_free(&tb);
        return gsvm_cli_fail(&err);
    }
    gsvm_hks_vm_set_print(gsvm_hks_world_vm(w), ra->json ? hks_cli_print_json : hks_cli_print_text, stdout);
    uint32_t sid = 0;
    gsvm_hks_chunk *c;
    if ((rc = hks_cli_load_layer(ra->layer, &ra->load, ra->target, &c, &sid)) >= 0)
        goto out;
    rc = 0;
    st = gsvm_hks_world_install(w, c, sid, &err);
    if (st == GSVM_OK)
        st = gsvm_hks_world_start(w, &err);
    if (st == GSVM_ERR_INPUT || st == GSVM_ERR_USAGE || st == GSVM_ERR_NOMEM) {
        rc = gsvm_cli_fail(&err);
        goto out;
    }
    /* the timeline */
    const char *p = (const char *)tb.data, *end = p + tb.len;
    long lineno = 0;
    while (st != GSVM_ERR_LIMIT && p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        lineno++;
        const char *line = p;
        p = nl ? nl + 1 : end;
        size_t k = 0;
        while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
            k++;
        if (k == n)
            continue;
        json_error_t je;
        json_t *o = json_loadb(line, n, 0, &je);
        const char *bad = NULL;
        if (!o || !json_is_object(o)) {
            fflush(stdout);
            fprintf(stderr, "%s:%ld:%d: error: %s\n", ra->events, lineno, o ? 1 : je.column,
                    o ? "a timeline line must be a JSON object" : je.text);
            json_decref(o);
            rc = EXIT_INPUT;
            goto out;
        }
        json_t *v;
        gsvm_status s2 = GSVM_OK;
        if ((v = json_object_get(o, "advance_ms"))) {
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                bad = "\"advance_ms\" must be a non-negative integer";
            else
                s2 = gsvm_hks_world_advance(w, (uint64_t)json_integer_value(v), &err);
        } else if ((v = json_object_get(o, "event"))) {
            json_t *ob = json_object_get(o, "object"), *args = json_object_get(o, "args");
            if (!json_is_string(v) || (ob && !json_is_string(ob)) || (args && !json_is_array(args)))
                bad = "an event needs a string \"event\", a string \"object\" and an array \"args\"";
            else
                s2 = gsvm_hks_world_event(w, ob ? json_string_value(ob) : NULL,
                                          json_string_value(v), args, &err);
        } else if ((v = json_object_get(o, "pause"))) {
            if (!json_is_boolean(v))
                bad = "\"pause\" must be true or false";
            else
                gsvm_hks_world_pause(w, json_is_true(v));
        } else if ((v = json_object_get(o, "answer"))) {
            json_t *val = json_object_get(o, "value");
            if (!json_is_string(v) || !val)
                bad = "an answer needs a string \"answer\" (the native) and a \"value\"";
            else
                s2 = gsvm_hks_world_answer(w, json_string_value(v), val, &err);
        } else if ((v = json_object_get(o, "install"))) {
            /* the reinstall cache: a layer already installed under this
             * script id is neither loaded nor compiled again */
            gsvm_hks_chunk *c2 = NULL;
            uint32_t sid2;
            if ((rc = hks_cli_load_layer(ra->layer, &ra->load, ra->target, NULL, &sid2)) < 0 &&
                !gsvm_hks_world_cached(w, sid2))
                rc = hks_cli_load_layer(ra->layer, &ra->load, ra->target, &c2, &sid2);
            if (rc >= 0) {
                json_decref(o);
                goto out;
            }
            rc = 0;
            s2 = gsvm_hks_world_install(w, c2, sid2, &err);
        } else {
            bad = "unknown timeline entry (advance_ms, event, pause, answer, install)";
        }
        json_decref(o);
        if (bad) {
            fflush(stdout);
            fprintf(stderr, "%s:%ld:1: error: %s\n", ra->events, lineno, bad);
            rc = EXIT_INPUT;
            goto out;
        }
        if (s2 == GSVM_ERR_LIMIT)
            st = s2;
    }
    if (st == GSVM_ERR_LIMIT)
        rc = EXIT_LIMIT;
    else if (gsvm_hks_world_faults(w) > 0)
        rc = EXIT_FAULT;
    /* The world ends: the __gc of what the layer left runs now, as at the end
     * of a plain run (lua5.1 closes its state at exit). */
    if (st != GSVM_ERR_LIMIT) {
        gsvm_status sc = gsvm_hks_vm_close(gsvm_hks_world_vm(w), &err);
        if (sc != GSVM_OK)
            rc = hks_cli_report_fault(gsvm_hks_world_vm(w), sc, &err, ra->json, ra->layer);
    }
out:
    fflush(stdout);
    gsvm_buf_free(&tb);
    gsvm_hks_world_free(w);
    return rc;
}
