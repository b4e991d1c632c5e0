/* A tiny in-memory assembler for VM tests: builds a gsvm_patho_program
 * instruction by instruction, then saves it to .bin bytes and loads them
 * back, so every test program is a real file the loader accepts. */
#ifndef GSVM_TEST_PATHO_BUILD_H
#define GSVM_TEST_PATHO_BUILD_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho.h"
#include "patho/isa.h"

#define OP(name) GSVM_PATHO_OP_##name

typedef struct bld {
    gsvm_patho_layout layout;
    gsvm_patho_insn insns[512];
    uint32_t n;
    gsvm_patho_arg args[256];
    uint32_t nargs;
    uint8_t vtypes[256];
    uint32_t nvtypes;
    uint8_t pool[2048];
    uint32_t pool_size;
    gsvm_patho_import imports[32];
    char import_names[32][32];
    uint32_t nimports;
    gsvm_patho_task tasks[8];
    uint8_t task_types[8][32];
    gsvm_patho_event task_events[8][8];
    uint32_t ntasks;
    gsvm_patho_event events[8];
    uint32_t nevents;
    uint8_t event_types[64][8];
    uint32_t nevent_types;
    gsvm_patho_global globals[16];
    uint32_t nglobals;
    uint32_t run_task, run_op;
} bld;

static inline void bld_init(bld *b, gsvm_patho_layout layout)
{
    memset(b, 0, sizeof *b);
    b->layout = layout;
}

static inline uint32_t fbits(float f) { return gsvm_patho_f32_bits(f); }

/* Type letters: b bool, i int, f float, s string, o object, v cvector. */
static inline uint8_t type_of_letter(char c)
{
    switch (c) {
    case 'b': return 1;
    case 'i': return 2;
    case 'f': return 3;
    case 's': return 4;
    case 'o': return 5;
    case 'v': return 6;
    default: return (uint8_t)c; /* raw byte, for bad-type tests */
    }
}

/* Emits `op` with its fixed operands (one unsigned per operand letter; the
 * count of an L/F/R operand is filled in by the list helpers). */
static inline uint32_t E(bld *b, unsigned op, ...)
{
    gsvm_patho_insn *in = &b->insns[b->n];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    const char *ops = gsvm_patho_op_operands(op);
    va_list ap;
    va_start(ap, op);
    for (unsigned k = 0; ops[k]; k++)
        in->a[k] = va_arg(ap, unsigned);
    va_end(ap);
    return b->n++;
}

static inline uint32_t pushv(bld *b, const char *types)
{
    uint32_t n = (uint32_t)strlen(types);
    uint32_t at = E(b, OP(PushV), n);
    b->insns[at].list = b->nvtypes;
    b->insns[at].list_len = n;
    for (uint32_t i = 0; i < n; i++)
        b->vtypes[b->nvtypes++] = type_of_letter(types[i]);
    return at;
}

/* Argument list: n pairs (var, mode) from the varargs. */
static inline void arglist(bld *b, gsvm_patho_insn *in, uint32_t n, va_list ap)
{
    in->list = b->nargs;
    in->list_len = n;
    for (uint32_t i = 0; i < n; i++) {
        b->args[b->nargs].var = va_arg(ap, unsigned);
        b->args[b->nargs].mode = (uint8_t)va_arg(ap, unsigned);
        b->nargs++;
    }
}

static inline uint32_t func(bld *b, uint32_t import, ...)
{
    uint32_t at = E(b, OP(Func), import);
    va_list ap;
    va_start(ap, import);
    arglist(b, &b->insns[at], b->imports[import].argc, ap);
    va_end(ap);
    return at;
}

/* ObjFunc (task = 0) or TObjFunc (task = 1) on `obj`, method at pool `name`. */
static inline uint32_t objfunc(bld *b, int task, uint32_t obj, uint32_t name, uint32_t n, ...)
{
    uint32_t at = E(b, task ? OP(TObjFunc) : OP(ObjFunc), obj, name, n);
    va_list ap;
    va_start(ap, n);
    arglist(b, &b->insns[at], n, ap);
    va_end(ap);
    return at;
}

/* A UTF-16LE data string in the pool; returns its offset. */
static inline uint32_t s16(bld *b, const char *ascii)
{
    uint32_t at = b->pool_size;
    for (const char *p = ascii; *p; p++) {
        b->pool[b->pool_size++] = (uint8_t)*p;
        b->pool[b->pool_size++] = 0;
    }
    b->pool[b->pool_size++] = 0;
    b->pool[b->pool_size++] = 0;
    return at;
}

/* An 8-bit method name in the pool; returns its offset. */
static inline uint32_t s8(bld *b, const char *name)
{
    uint32_t at = b->pool_size;
    size_t n = strlen(name) + 1;
    memcpy(b->pool + b->pool_size, name, n);
    b->pool_size += (uint32_t)n;
    return at;
}

static inline uint32_t imp(bld *b, const char *name, uint32_t argc)
{
    uint32_t i = b->nimports++;
    snprintf(b->import_names[i], sizeof b->import_names[i], "%s", name);
    b->imports[i].name.str = b->import_names[i];
    b->imports[i].name.len = (uint32_t)strlen(name);
    b->imports[i].argc = argc;
    return i;
}

static inline uint32_t task(bld *b, const char *types, uint32_t nparams)
{
    uint32_t i = b->ntasks++;
    gsvm_patho_task *t = &b->tasks[i];
    t->nvars = (uint32_t)strlen(types);
    for (uint32_t k = 0; k < t->nvars; k++)
        b->task_types[i][k] = type_of_letter(types[k]);
    t->var_types = b->task_types[i];
    t->nparams = nparams;
    t->events = b->task_events[i];
    return i;
}

static inline void set_event(bld *b, gsvm_patho_event *e, uint32_t id, uint32_t op,
                             const char *types)
{
    uint8_t *ty = b->event_types[b->nevent_types++];
    e->id = id;
    e->op = op;
    e->nargs = (uint32_t)strlen(types);
    for (uint32_t k = 0; k < e->nargs; k++)
        ty[k] = type_of_letter(types[k]);
    e->arg_types = ty;
}

static inline void tevent(bld *b, uint32_t t, uint32_t id, uint32_t op, const char *types)
{
    set_event(b, &b->tasks[t].events[b->tasks[t].nevents++], id, op, types);
}

static inline void gevent(bld *b, uint32_t id, uint32_t op, const char *types)
{
    set_event(b, &b->events[b->nevents++], id, op, types);
}

static inline uint32_t global(bld *b, char type)
{
    b->globals[b->nglobals].type = type_of_letter(type);
    return b->nglobals++;
}

/* The program as .bin bytes (malloc'd). */
static inline uint8_t *bld_bytes(bld *b, size_t *len)
{
    gsvm_patho_program p;
    memset(&p, 0, sizeof p);
    p.layout = b->layout;
    p.nglobals = b->nglobals;
    p.globals = b->globals;
    p.pool_size = b->pool_size;
    p.pool = b->pool;
    p.nimports = b->nimports;
    p.imports = b->imports;
    p.run_task = b->run_task;
    p.run_op = b->run_op;
    p.ntasks = b->ntasks;
    p.tasks = b->tasks;
    p.nevents = b->nevents;
    p.events = b->events;
    p.ninsns = b->n;
    p.insns = b->insns;
    p.nargs = b->nargs;
    p.args = b->args;
    p.nvtypes = b->nvtypes;
    p.vtypes = b->vtypes;
    uint8_t *data = NULL;
    gsvm_error err;
    if (gsvm_patho_save(&p, &data, len, &err) != GSVM_OK) {
        fprintf(stderr, "test program does not save: %s\n", err.message);
        exit(2);
    }
    return data;
}

/* The program, saved and loaded back (the caller frees it). */
static inline gsvm_patho_program *bld_program(bld *b)
{
    size_t len;
    uint8_t *data = bld_bytes(b, &len);
    gsvm_patho_program *prog = NULL;
    gsvm_error err;
    if (gsvm_patho_load(data, len, b->layout, "test", &prog, &err) != GSVM_OK) {
        fprintf(stderr, "test program does not load: %s\n", err.message);
        exit(2);
    }
    free(data);
    return prog;
}

#endif
