/* The world-layer runtime's state (world.c: creation, natives, records,
 * install; world_run.c: script threads, simulated time, events), shared by
 * its two files. */
#ifndef GSVM_HKS_WORLD_INT_H
#define GSVM_HKS_WORLD_INT_H

#include <jansson.h>

#include "base/natives.h"
#include "hks/vm.h"
#include "hks/vm_host.h"

enum { SCRIPT_STACK_MAX = 16 };

typedef struct w_record_kind {
    char *lua_name; /* "DBAlignments" */
    char *category;
    uint32_t n;
    uint32_t *hash;  /* sorted */
    char **names;    /* in hash order */
} w_record_kind;

typedef struct w_thread {
    int id;
    hv_thread *co; /* rooted in the registry while alive */
    int reg;       /* its registry slot */
    uint64_t wake_ms;
    bool sleeping, done;
    char name[128];
} w_thread;

typedef struct w_bind {
    char *object, *event, *function;
} w_bind;

typedef struct w_object {
    char *name, *entry;
} w_object;

typedef struct w_answer {
    char *native;
    json_t *value;
} w_answer;

struct gsvm_hks_world {
    gsvm_hks_vm *h;
    gsvm_hks_world_emit_fn emit;
    void *emit_ctx;
    gsvm_natives natives;
    bool have_natives;
    char **type_words; /* the declaration parser's words (records added) */
    w_record_kind *kinds;
    uint32_t nkinds;
    w_object *objects;
    uint32_t nobjects;
    w_bind *binds;
    uint32_t nbinds;
    w_thread *threads;
    uint32_t nthreads, threads_cap;
    int next_reg;
    w_answer *answers;
    uint32_t nanswers, answers_cap;
    char script_stack[SCRIPT_STACK_MAX][64];
    int depth;
    uint64_t now_ms;
    bool paused;
    char *layer_name;
    uint32_t script_id;
    bool installed;
    int faults;
    bool limit_hit;
    w_thread *current; /* the thread being resumed */
};

/* One JSON line to the host (takes the reference to o). */
void w_emit(gsvm_hks_world *w, json_t *o);
/* Reports a fault or a limit hit (counted) and returns st. */
gsvm_status w_report(gsvm_hks_world *w, gsvm_status st, const gsvm_error *e, const char *where,
                     const char *what);
/* The running-script stack: a dispatch or thread resume pushes its name. */
void w_script_push(gsvm_hks_world *w, const char *name);
void w_script_pop(gsvm_hks_world *w);
/* A JSON argument as a script value (numbers rounded as the VM does). */
void w_push_json(hv_thread *L, json_t *j);

#endif
