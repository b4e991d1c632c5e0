/* The region's private structures (region.c: objects, frames, scheduler,
 * timer heap, listen index; region_host.c: the host functions;
 * region_world.c: world files and timeline lines). */
#ifndef GSVM_LSL_REGION_INT_H
#define GSVM_LSL_REGION_INT_H

#include <jansson.h>

#include "gsvm/lsl_region.h"
#include "lsl/prog3.h"

#define RG_KEY_LEN 36
#define RG_NO_POS UINT32_MAX
#define RG_DETECT_MAX 16u
#define RG_EV_TOUCH_START 41 /* fal3 event indexes (sched.h's numbering) */
#define RG_EV_STATE_ENTRY LSL_SCHED_EV_STATE_ENTRY /* detected sets kept per script (older ones are dropped) */

/* One touch as llDetected* report it. */
typedef struct rg_detect {
    uint32_t tag; /* the queue entry it belongs to (lsl_sched_event.tag) */
    char key[RG_KEY_LEN + 1];
    char *name;
    float pos[3];
    int32_t link;
} rg_detect;

typedef struct rg_script {
    struct gsvm_lsl_region *region;
    uint32_t index, prim;
    char *name;
    /* the VM of the script's ABI (the other is NULL): ABI 3's carries its own
     * scheduler (queue, timers, listens); ABI 2's, the document's VM, has
     * events state_entry and touch_start(integer) only and its queue is
     * the region's `q2` */
    gsvm_lsl3_vm *vm;
    gsvm_lsl_vm *vm2;
    int32_t *q2; /* ABI 2: touch_start arguments waiting, oldest first (at most 64) */
    uint8_t nq2, capq2;
    uint32_t prog; /* its program in the region's store (r->progs) */
    /* touches queued or being handled, oldest first (grown on demand up to
     * RG_DETECT_MAX: a script never touched holds none) */
    rg_detect *det;
    unsigned ndet, capdet;
    /* the channels this script is listed under in the listen index */
    int32_t *chans;
    unsigned nchans, capchans;
    uint32_t heap_pos; /* in the timer heap, or RG_NO_POS */
    uint64_t deadline;
    bool in_runq, dead;
    bool frozen; /* dead only while its object is handed over (crossing) */
    /* scheduling: use in frame `mark`, moving average up to before it */
    uint64_t mark, used;
    double avg;
    bool throttled;
} rg_script;

typedef struct rg_prim {
    uint32_t object; /* the root prim's index */
    int32_t link;    /* 0 for a one-prim object, else 1 (root), 2, ... */
    char *id, *name;
    char key[RG_KEY_LEN + 1];
    char owner[RG_KEY_LEN + 1];
    float pos[3];   /* root: region position; child: offset from the root */
    uint32_t *links; /* root only: the prims of the link set, root first */
    uint32_t nlinks;
    uint32_t *scripts;
    uint32_t nscripts;
    uint64_t mark, used; /* per-object budget (root's counters) */
    uint32_t owner_index;
    bool removed; /* crossed to another region */
} rg_prim;

typedef struct rg_owner {
    char key[RG_KEY_LEN + 1];
    uint64_t mark, used;
} rg_owner;

/* A program of either ABI; `id` is its identity in crossings (SHA-256 of
 * its file form: gsvm_lsl3_program_hash for ABI 3, of the .fpc for ABI 2). */
typedef struct rg_program {
    uint8_t hash[32]; /* of the source (world files), else `id` */
    uint8_t id[32];
    int abi;                  /* 2 or 3 */
    gsvm_lsl3_program *prog;  /* ABI 3 (a reference held) */
    gsvm_lsl_program *prog2;  /* ABI 2 (owned) */
} rg_program;

/* The listen index: channel -> scripts with a listen on it. */
typedef struct rg_chan {
    int32_t channel;
    bool used;
    uint32_t *scripts;
    uint32_t n, cap;
} rg_chan;

typedef struct rg_request {
    char key[RG_KEY_LEN + 1];
    uint32_t script;
    int event; /* the event that answers it */
} rg_request;

struct gsvm_lsl_region {
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_output_fn out;
    void *out_user;

    rg_program *progs;
    size_t nprogs, capprogs;
    rg_prim *prims;
    size_t nprims, capprims;
    rg_script **scripts;
    size_t nscripts, capscripts;
    rg_owner *owners;
    size_t nowners, capowners;

    uint64_t now_ms, frame; /* the frame about to run is `frame` */
    /* timer heap of script indexes keyed by deadline */
    uint32_t *heap;
    size_t nheap, capheap;
    /* run queue: a ring of script indexes (each at most once) */
    uint32_t *runq;
    size_t rq_head, rq_count, rq_cap;

    rg_chan *chans;
    size_t nchans_used, capchans; /* open addressing, power of two */

    rg_request *reqs;
    size_t nreqs, capreqs;
    uint64_t next_request;
    uint32_t next_tag;

    gsvm_lsl_hosts *hosts; /* region_host.c's: every host function of every script */
    gsvm_lsl_region_stats st;
    uint64_t next_xfer;
    int cross_fault; /* testing: drop the connection at this step of a crossing */
};

/* region.c */
rg_script *rg_script_of(gsvm_lsl_region *r, uint32_t i);
void rg_emit(gsvm_lsl_region *r, const rg_script *s, json_t *line); /* adds object/script, steals */
void rg_make_runnable(gsvm_lsl_region *r, rg_script *s);
void rg_sync_clock(gsvm_lsl_region *r, rg_script *s);
void rg_prim_world_pos(const gsvm_lsl_region *r, const rg_prim *p, float out[3]);
/* Offers chat to the listens on `channel` within `range` of `pos` (range < 0:
 * region-wide); `target` non-NULL: only the prim with that key; `skip_prim`
 * (or RG_NO_POS): the speaking prim, which never hears itself. */
gsvm_status rg_deliver_chat(gsvm_lsl_region *r, int32_t channel, const char *name, size_t name_len,
                            const char *key, const float pos[3], double range, const char *target,
                            uint32_t skip_prim, const char *msg, size_t msg_len, gsvm_error *err);
/* Queues `event` with `args` in script s (clock synced first); *queued. */
gsvm_status rg_post(gsvm_lsl_region *r, rg_script *s, int event, const lsl_value *args, size_t n,
                    uint32_t tag, bool *queued, gsvm_error *err);
int rg_find_prim(const gsvm_lsl_region *r, const char *id);
int rg_find_prim_by_key(const gsvm_lsl_region *r, const char *key, size_t len);
void rg_make_key(const char *ns, const char *id, char out[RG_KEY_LEN + 1]);

/* Freezes (stops, keeping its state) or thaws every script of an object;
 * remove marks its prims gone (ids and keys free again). */
void rg_object_freeze(gsvm_lsl_region *r, uint32_t root, bool frozen);
void rg_object_remove(gsvm_lsl_region *r, uint32_t root);
/* A script from a snapshot (its VM restored, not started; frozen); for
 * ABI 2 `q2` holds its waiting touch_start arguments. */
gsvm_status rg_add_script_restored(gsvm_lsl_region *r, uint32_t prim, const char *name, uint32_t prog,
                                   const uint8_t *snap, size_t len, const int32_t *q2, size_t nq2,
                                   gsvm_error *err);
/* The program store.  add3 holds a reference to `p`; add2 takes `p` (freed
 * on failure).  `src_hash` (may be NULL) is the source's; *idx the entry. */
gsvm_status rg_program_add3(gsvm_lsl_region *r, const gsvm_lsl3_program *p, const uint8_t *src_hash,
                            uint32_t *idx, gsvm_error *err);
gsvm_status rg_program_add2(gsvm_lsl_region *r, gsvm_lsl_program *p, const uint8_t *src_hash, uint32_t *idx,
                            gsvm_error *err);
/* A script of program `prog` (an index of the store) in prim `prim`, started. */
gsvm_status rg_add_script_at(gsvm_lsl_region *r, uint32_t prim, const char *name, uint32_t prog, gsvm_error *err);
/* region_world.c: a script file's bytes (source or a program file of either
 * ABI) to its program's entry in the store. */
gsvm_status rg_program_for_bytes(gsvm_lsl_region *r, const uint8_t *data, size_t len, const char *name,
                                 uint32_t *idx, gsvm_error *err);
/* The entry with program identity `id` and `abi`, or -1. */
long rg_program_find(const gsvm_lsl_region *r, const uint8_t id[32], int abi);
/* Does script s handle fal3 event `event` (touch_start 41, ...)? */
bool rg_handles(const rg_script *s, int event);

/* region_world.c: records a touch queued under `tag` for llDetected*
 * (the oldest record goes past RG_DETECT_MAX; out of memory: dropped). */
void rg_push_detect(rg_script *s, uint32_t tag, const char *key, const char *name, const float pos[3], int32_t link);

/* region_cross.c: the timeline's {"cross": ...} and {"accept": ...}. */
gsvm_status rg_cross_line(gsvm_lsl_region *r, const json_t *c, const char *file, long lineno, gsvm_error *err);
gsvm_status rg_accept_line(gsvm_lsl_region *r, const json_t *a, const char *file, long lineno, gsvm_error *err);

/* region_host.c: the typed host table every script's VM gets (one per
 * region; the VM's user pointer is its rg_script). */
gsvm_status rg_hosts_new(gsvm_lsl_hosts **out, gsvm_error *err);

/* The region's own memory (region.c): through the host's allocator
 * (opts.alloc) when it set one, as its scripts' VMs are; rg_free(r, NULL)
 * does nothing. */
void *rg_realloc(const gsvm_lsl_region *r, void *p, size_t n);
void *rg_calloc(const gsvm_lsl_region *r, size_t n, size_t size);
char *rg_dup(const gsvm_lsl_region *r, const char *s, size_t len);
/* Makes room for `need` elements of `size` bytes in *p (capacity *cap,
 * doubled as needed); false when out of memory (*p unchanged). */
bool rg_grow(const gsvm_lsl_region *r, void **p, size_t *cap, size_t need, size_t size);
#define GROW(arr, cap, need) rg_grow(r, (void **)&(arr), &(cap), (need), sizeof *(arr))
static inline void rg_free(const gsvm_lsl_region *r, void *p)
{
    if (p)
        rg_realloc(r, p, 0);
}

/* The indexes (region_index.c): the run queue (scripts with work, each at
 * most once; `front` puts one first), the timer heap keyed by each
 * script's deadline (update after it changes), and the listen index
 * (reindex after a script's listens change). */
void rg_runq_push(gsvm_lsl_region *r, rg_script *s, bool front);
rg_script *rg_runq_pop(gsvm_lsl_region *r);
void rg_heap_update(gsvm_lsl_region *r, rg_script *s);
void rg_heap_remove(gsvm_lsl_region *r, rg_script *s);
rg_chan *rg_chan_find(gsvm_lsl_region *r, int32_t c);
void rg_reindex(gsvm_lsl_region *r, rg_script *s);

#endif
