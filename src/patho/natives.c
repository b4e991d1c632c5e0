/* Native declarations for the patho VM (gsvm/patho_host.h): the shared
 * format of src/base/natives.h with Pathologic's type words, a stack of
 * declaration sets (the shipped one at the bottom), and the load-time check
 * that every import of a program is declared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/natives.h"
#include "gsvm/patho_host.h"
#include "patho/host.h"

/* Indices are the VM's type codes (gsvm_patho_type), "any" is 0. */
static const char *const patho_type_words[] = {"any",    "bool",   "int",    "float",
                                               "string", "object", "vector", NULL};

extern const char patho_natives_json[];
extern const size_t patho_natives_json_len;

#define MAX_SETS 16u

struct gsvm_patho_natives {
    gsvm_natives sets[MAX_SETS]; /* sets[0] first added; searched newest first */
    uint32_t nsets;
};

const char *gsvm_patho_natives_builtin_text(size_t *len)
{
    if (len)
        *len = patho_natives_json_len;
    return patho_natives_json;
}

gsvm_status gsvm_patho_natives_add_text(gsvm_patho_natives *n, const char *text, size_t len,
                                        const char *name, gsvm_error *err)
{
    if (n->nsets >= MAX_SETS)
        return gsvm_error_set(err, GSVM_ERR_USAGE, name, "at most %u native files", MAX_SETS);
    gsvm_status st =
        gsvm_natives_parse(text, len, name, patho_type_words, &n->sets[n->nsets], err);
    if (st == GSVM_OK)
        n->nsets++;
    return st;
}

gsvm_status gsvm_patho_natives_add_file(gsvm_patho_natives *n, const char *path, gsvm_error *err)
{
    if (n->nsets >= MAX_SETS)
        return gsvm_error_set(err, GSVM_ERR_USAGE, path, "at most %u native files", MAX_SETS);
    gsvm_status st = gsvm_natives_load(path, patho_type_words, &n->sets[n->nsets], err);
    if (st == GSVM_OK)
        n->nsets++;
    return st;
}

gsvm_status gsvm_patho_natives_new(bool builtin, gsvm_patho_natives **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    gsvm_patho_natives *n = calloc(1, sizeof *n);
    if (!n)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    if (builtin) {
        gsvm_status st = gsvm_patho_natives_add_text(n, patho_natives_json, patho_natives_json_len,
                                                     "natives.json (built in)", err);
        if (st != GSVM_OK) {
            free(n);
            return st;
        }
    }
    *out = n;
    return GSVM_OK;
}

void gsvm_patho_natives_free(gsvm_patho_natives *n)
{
    if (!n)
        return;
    for (uint32_t i = 0; i < n->nsets; i++)
        gsvm_natives_free(&n->sets[i]);
    free(n);
}

static void fill_info(const gsvm_natives *set, const gsvm_native_decl *d,
                      gsvm_patho_native_info *info)
{
    static const gsvm_patho_wait waits[] = {GSVM_PATHO_WAIT_NONE, GSVM_PATHO_WAIT_TIME,
                                            GSVM_PATHO_WAIT_EVENT, GSVM_PATHO_WAIT_FRAME,
                                            GSVM_PATHO_WAIT_ANIM};
    info->name = d->name;
    info->min_args = d->min_args;
    info->max_args = d->varargs ? UINT32_MAX : d->nargs;
    info->arg_types = d->arg_types;
    info->nargs = d->nargs;
    info->result = d->result;
    info->out = d->out;
    info->wait = waits[d->latent];
    info->file = set->file;
    info->line = d->line;
    info->column = d->column;
}

bool gsvm_patho_natives_lookup(const gsvm_patho_natives *n, const char *name, uint32_t argc,
                               gsvm_patho_native_info *info)
{
    for (uint32_t i = n->nsets; i-- > 0;) {
        const gsvm_native_decl *d = gsvm_natives_find(&n->sets[i], name, argc);
        if (d) {
            if (info)
                fill_info(&n->sets[i], d, info);
            return true;
        }
    }
    return false;
}

gsvm_status gsvm_patho_natives_check(const gsvm_patho_natives *n, const gsvm_patho_program *prog,
                                     const char *file, gsvm_error *err)
{
    for (uint32_t i = 0; i < prog->nimports; i++) {
        const gsvm_patho_import *im = &prog->imports[i];
        const char *name = im->name.str ? im->name.str : "";
        if (gsvm_patho_natives_lookup(n, name, im->argc, NULL))
            continue;
        /* Say which counts the name is declared for, if any: a wrong
         * count is the likelier mistake in a hand-edited script. */
        char counts[200] = "";
        size_t used = 0;
        for (uint32_t s = 0; s < n->nsets; s++)
            for (uint32_t k = 0; k < n->sets[s].count && used + 24 < sizeof counts; k++) {
                const gsvm_native_decl *d = &n->sets[s].decls[k];
                if (strcmp(d->name, name) != 0)
                    continue;
                int w = d->varargs ? snprintf(counts + used, sizeof counts - used, "%s%u or more",
                                              used ? ", " : "", d->min_args)
                        : d->min_args == d->nargs
                            ? snprintf(counts + used, sizeof counts - used, "%s%u",
                                       used ? ", " : "", d->nargs)
                            : snprintf(counts + used, sizeof counts - used, "%s%u to %u",
                                       used ? ", " : "", d->min_args, d->nargs);
                used += (size_t)w;
            }
        if (used)
            return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                  "import #%u '%s' with %u arguments is not declared (the "
                                  "natives declare '%s' with %s); declare it in a --natives file",
                                  i, name, im->argc, name, counts);
        return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                              "import #%u '%s' with %u arguments is not declared; declare it in "
                              "a --natives file",
                              i, name, im->argc);
    }
    return GSVM_OK;
}

/* ---- the clock ------------------------------------------------------------- */

void gsvm_patho_clock_frame(gsvm_patho_clock *c, double advance_ms)
{
    c->now_ms += advance_ms;
    c->frame++;
}

void gsvm_patho_clock_stop_group0(gsvm_patho_clock *c) { c->stop_gen++; }

void gsvm_patho_clock_anim_end(gsvm_patho_clock *c) { c->anim_gen++; }

/* A waiting call keeps: latent[0] the time it began or ends (a double's
 * bits), latent[1] the StopGroup0 count when it began (low 32 bits) and the
 * animation-end count (high 32 bits), so both can end it. */
static uint64_t gens(const gsvm_patho_clock *c)
{
    return (c->stop_gen & 0xFFFFFFFFu) | (c->anim_gen << 32);
}

gsvm_patho_call_result gsvm_patho_clock_wait(const gsvm_patho_clock *c, gsvm_patho_wait w,
                                             int out, gsvm_patho_call *call)
{
    double t;
    if (!call->resuming) {
        t = c->now_ms;
        if (w == GSVM_PATHO_WAIT_TIME) {
            const gsvm_patho_value *a = call->argc ? call->args[0] : NULL;
            double secs = !a                          ? -1
                          : a->type == GSVM_PATHO_INT   ? (double)a->as.i
                          : a->type == GSVM_PATHO_FLOAT ? (double)a->as.f
                                                        : -2;
            if (secs == -2 || !(secs >= 0)) {
                snprintf(call->fault, sizeof call->fault, "%s",
                         secs == -2 ? "Type mismatch in wait time" : "Negative wait time");
                return GSVM_PATHO_CALL_FAULT;
            }
            t = c->now_ms + secs * 1000.0; /* when it ends */
        }
        memcpy(&call->latent[0], &t, sizeof t);
        call->latent[1] = gens(c);
        return w == GSVM_PATHO_WAIT_NONE ? GSVM_PATHO_CALL_DONE : GSVM_PATHO_CALL_YIELD;
    }
    memcpy(&t, &call->latent[0], sizeof t);
    uint64_t then = call->latent[1];
    bool stopped = (then & 0xFFFFFFFFu) != (c->stop_gen & 0xFFFFFFFFu);
    bool anim_ended = (then >> 32) != (c->anim_gen & 0xFFFFFFFFu);
    switch (w) {
    case GSVM_PATHO_WAIT_TIME:
        if (!stopped && c->now_ms < t)
            return GSVM_PATHO_CALL_YIELD;
        break;
    case GSVM_PATHO_WAIT_EVENT:
        if (!stopped)
            return GSVM_PATHO_CALL_YIELD;
        break;
    case GSVM_PATHO_WAIT_ANIM:
        if (!stopped && !anim_ended)
            return GSVM_PATHO_CALL_YIELD;
        break;
    case GSVM_PATHO_WAIT_FRAME:
        if (out >= 0 && (uint32_t)out < call->argc) {
            gsvm_patho_value dt = gsvm_patho_float((float)((c->now_ms - t) / 1000.0));
            if (gsvm_patho_value_assign(call->args[out], &dt, call->fault, sizeof call->fault) !=
                GSVM_OK)
                return GSVM_PATHO_CALL_FAULT;
        }
        break;
    default: break;
    }
    return GSVM_PATHO_CALL_DONE;
}

const json_t *patho_natives_answer(const gsvm_patho_natives *n, const char *name, uint32_t argc)
{
    for (uint32_t i = n->nsets; i-- > 0;) {
        const gsvm_native_decl *d = gsvm_natives_find(&n->sets[i], name, argc);
        if (d)
            return d->answer;
    }
    return NULL;
}
