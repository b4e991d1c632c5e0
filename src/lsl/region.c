/* The region: its memory, objects and scripts, the program store, events
 * and chat, the frame loop and its scheduler (gsvm/lsl_region.h; the run
 * queue, timer heap and listen index are region_index.c's).
 *
 * Costs.  A script with nothing to do is in no list the frame walks: it is
 * in the timer heap only if it has a timer or a sleep (the frame looks at
 * the heap's top alone), in the run queue only while it has work, and in
 * the listen index under the channels it listens on (chat looks up one
 * channel).  So a frame costs O(scripts with work + timers due), whatever
 * the number of idle scripts.
 *
 * Each script's VM keeps its own clock (sched.now_ms); the region brings it
 * to the region's time only when it touches the script (an event, a timer
 * due, a slice), so idle clocks lag at no cost. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/buf.h"
#include "base/hash.h"
#include "lsl/region_int.h"

void gsvm_lsl_region_opts_default(gsvm_lsl_region_opts *o)
{
    memset(o, 0, sizeof *o);
    o->frames_per_second = 45;
    o->frame_budget = 200000;
    o->slice = 1000;
    o->script_budget = 10000;
    o->throttle_above = 5000;
    o->throttle_period = 4;
    o->slice_guard_us = 20000;
    o->frame_guard_us = 250000;
}

/* ---- the region's memory: the host's allocator (opts.alloc), else the C
 * library's, for the region's own tables as for its scripts' VMs ---------- */

void *rg_realloc(const gsvm_lsl_region *r, void *p, size_t n)
{
    if (r->o.alloc)
        return r->o.alloc(r->o.alloc_user, p, n);
    if (n)
        return realloc(p, n);
    free(p);
    return NULL;
}

void *rg_calloc(const gsvm_lsl_region *r, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    void *p = rg_realloc(r, NULL, bytes ? bytes : 1);
    return p ? memset(p, 0, bytes) : NULL;
}

bool rg_grow(const gsvm_lsl_region *r, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 8;
    while (nc < need)
        nc *= 2;
    void *n = rg_realloc(r, *p, nc * size);
    if (!n)
        return false;
    *p = n;
    *cap = nc;
    return true;
}

char *rg_dup(const gsvm_lsl_region *r, const char *s, size_t len)
{
    char *d = rg_realloc(r, NULL, len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}


static gsvm_status oom(gsvm_error *err) { return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory"); }

gsvm_status gsvm_lsl_region_new(const gsvm_lsl_region_opts *opts, gsvm_lsl_region **out, gsvm_error *err)
{
    *out = NULL;
    /* the region itself comes from the allocator its options name */
    gsvm_lsl_region first = {.o = {.alloc = opts ? opts->alloc : NULL, .alloc_user = opts ? opts->alloc_user : NULL}};
    gsvm_lsl_region *r = rg_calloc(&first, 1, sizeof *r);
    if (!r)
        return oom(err);
    if (opts)
        r->o = *opts;
    else
        gsvm_lsl_region_opts_default(&r->o);
    if (r->o.frames_per_second == 0 || r->o.frames_per_second > 1000 || r->o.slice == 0 ||
        r->o.frame_budget == 0 || r->o.script_budget == 0) {
        rg_free(r, r);
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "frames per second must be 1..1000 and the budgets at least 1");
    }
    if (r->o.throttle_period == 0)
        r->o.throttle_period = 1;
    r->next_tag = 1;
    r->cross_fault = r->o.cross_fault;
    gsvm_status st = rg_hosts_new(&r->hosts, err);
    if (st != GSVM_OK) {
        rg_free(r, r);
        return st;
    }
    *out = r;
    return GSVM_OK;
}

void gsvm_lsl_region_free(gsvm_lsl_region *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nscripts; i++) {
        rg_script *s = r->scripts[i];
        gsvm_lsl3_vm_free(s->vm);
        gsvm_lsl_vm_free(s->vm2);
        rg_free(r, s->q2);
        for (unsigned k = 0; k < s->ndet; k++)
            rg_free(r, s->det[k].name);
        rg_free(r, s->det);
        rg_free(r, s->chans);
        rg_free(r, s->name);
        rg_free(r, s);
    }
    for (size_t i = 0; i < r->nprims; i++) {
        rg_free(r, r->prims[i].id);
        rg_free(r, r->prims[i].name);
        rg_free(r, r->prims[i].links);
        rg_free(r, r->prims[i].scripts);
    }
    for (size_t i = 0; i < r->nprogs; i++) {
        gsvm_lsl3_program_free(r->progs[i].prog);
        gsvm_lsl_program_free(r->progs[i].prog2);
    }
    for (size_t i = 0; i < r->capchans; i++)
        rg_free(r, r->chans[i].scripts);
    rg_free(r, r->chans);
    rg_free(r, r->progs);
    rg_free(r, r->prims);
    rg_free(r, r->scripts);
    rg_free(r, r->owners);
    rg_free(r, r->heap);
    rg_free(r, r->runq);
    rg_free(r, r->reqs);
    gsvm_lsl_hosts_free(r->hosts);
    rg_free(r, r);
}

void gsvm_lsl_region_set_output(gsvm_lsl_region *r, gsvm_lsl_region_output_fn fn, void *user)
{
    r->out = fn;
    r->out_user = user;
}

rg_script *rg_script_of(gsvm_lsl_region *r, uint32_t i) { return r->scripts[i]; }

void rg_emit(gsvm_lsl_region *r, const rg_script *s, json_t *line)
{
    if (!line)
        return;
    if (!r->out) {
        json_decref(line);
        return;
    }
    if (s) {
        /* "object" and "script" first, as the contract shows them */
        json_t *o = json_object();
        json_object_set_new(o, "object", json_string(r->prims[s->prim].id));
        json_object_set_new(o, "script", json_string(s->name));
        json_object_update(o, line);
        json_decref(line);
        line = o;
    }
    r->out(r->out_user, line);
}

/* ---- keys ------------------------------------------------------------------ */

void rg_make_key(const char *ns, const char *id, char out[RG_KEY_LEN + 1])
{
    /* a stable UUID (version-4 layout) from the SHA-256 of ns:id, so runs and
     * regions agree on every object's key */
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, ns, strlen(ns));
    gsvm_buf_append(&b, ":", 1);
    gsvm_buf_append(&b, id, strlen(id));
    uint8_t h[32] = {0};
    gsvm_sha256(b.data, b.len, h);
    gsvm_buf_free(&b);
    gsvm_uuid_from_digest(h, out);
}

/* ---- objects and scripts --------------------------------------------------- */

int rg_find_prim(const gsvm_lsl_region *r, const char *id)
{
    for (size_t i = 0; i < r->nprims; i++)
        if (!r->prims[i].removed && strcmp(r->prims[i].id, id) == 0)
            return (int)i;
    return -1;
}

int rg_find_prim_by_key(const gsvm_lsl_region *r, const char *key, size_t len)
{
    if (len != RG_KEY_LEN)
        return -1;
    for (size_t i = 0; i < r->nprims; i++)
        if (!r->prims[i].removed && strncasecmp(r->prims[i].key, key, RG_KEY_LEN) == 0)
            return (int)i;
    return -1;
}

static gsvm_status new_prim(gsvm_lsl_region *r, const char *id, const char *name, const float pos[3],
                            uint32_t *out, gsvm_error *err)
{
    if (!id || !*id)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "an object or link needs a non-empty id");
    if (rg_find_prim(r, id) >= 0)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "id '%s' is used twice", id);
    if (!GROW(r->prims, r->capprims, r->nprims + 1))
        return oom(err);
    rg_prim *p = &r->prims[r->nprims];
    memset(p, 0, sizeof *p);
    p->id = rg_dup(r, id, strlen(id));
    p->name = rg_dup(r, name ? name : id, strlen(name ? name : id));
    if (!p->id || !p->name) {
        rg_free(r, p->id);
        rg_free(r, p->name);
        return oom(err);
    }
    rg_make_key("gsvm-region-prim", id, p->key);
    if (pos)
        memcpy(p->pos, pos, sizeof p->pos);
    *out = (uint32_t)r->nprims++;
    r->st.prims++;
    return GSVM_OK;
}

static uint32_t owner_index(gsvm_lsl_region *r, const char *key, bool *ok)
{
    for (size_t i = 0; i < r->nowners; i++)
        if (strcasecmp(r->owners[i].key, key) == 0)
            return (uint32_t)i;
    *ok = GROW(r->owners, r->capowners, r->nowners + 1);
    if (!*ok)
        return 0;
    rg_owner *o = &r->owners[r->nowners];
    memset(o, 0, sizeof *o);
    snprintf(o->key, sizeof o->key, "%s", key);
    o->mark = UINT64_MAX;
    return (uint32_t)r->nowners++;
}

gsvm_status gsvm_lsl_region_add_object(gsvm_lsl_region *r, const char *id, const char *owner,
                                       const char *name, const float pos[3], uint32_t *prim,
                                       gsvm_error *err)
{
    if (!owner || !lsl_is_uuid(owner, strlen(owner)))
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "object '%s': owner must be a UUID key", id ? id : "");
    uint32_t pi;
    gsvm_status st = new_prim(r, id, name, pos, &pi, err);
    if (st)
        return st;
    rg_prim *p = &r->prims[pi];
    p->object = pi;
    p->link = 0;
    p->mark = UINT64_MAX;
    for (size_t i = 0; i < RG_KEY_LEN; i++)
        p->owner[i] = (char)tolower((unsigned char)owner[i]);
    bool ok = true;
    p->owner_index = owner_index(r, p->owner, &ok);
    p->links = rg_realloc(r, NULL, sizeof *p->links);
    if (!ok || !p->links)
        return oom(err); /* the prim stays, inert: the region is being torn down */
    p->links[0] = pi;
    p->nlinks = 1;
    r->st.objects++;
    if (prim)
        *prim = pi;
    return GSVM_OK;
}

gsvm_status gsvm_lsl_region_add_link(gsvm_lsl_region *r, uint32_t root, const char *id, const char *name,
                                     const float local[3], uint32_t *prim, gsvm_error *err)
{
    if (root >= r->nprims || r->prims[root].object != root)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "prim %u is not an object's root", root);
    uint32_t pi;
    gsvm_status st = new_prim(r, id, name ? name : r->prims[root].name, local, &pi, err);
    if (st)
        return st;
    rg_prim *rp = &r->prims[root], *p = &r->prims[pi];
    uint32_t *nl = rg_realloc(r, rp->links, (rp->nlinks + 1) * sizeof *nl);
    if (!nl)
        return oom(err);
    rp->links = nl;
    rp->links[rp->nlinks++] = pi;
    p->object = root;
    memcpy(p->owner, rp->owner, sizeof p->owner);
    p->owner_index = rp->owner_index;
    /* link numbers: 0 alone, else 1 (root), 2, ... in order */
    for (uint32_t k = 0; k < rp->nlinks; k++)
        r->prims[rp->links[k]].link = (int32_t)k + 1;
    if (prim)
        *prim = pi;
    return GSVM_OK;
}

/* One script in prim `prim` running program `pidx`: a fresh one (snap
 * NULL: started, state_entry in the next frame) or one restored from a
 * snapshot (not started, frozen until its crossing commits). */
static gsvm_status add_script(gsvm_lsl_region *r, uint32_t prim, const char *name, uint32_t pidx,
                              const uint8_t *snap, size_t len, const int32_t *q2, size_t nq2, gsvm_error *err)
{
    if (prim >= r->nprims)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no prim %u", prim);
    if (nq2 > LSL_SCHED_QUEUE_MAX)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "more than %d events queued", LSL_SCHED_QUEUE_MAX);
    const rg_program *rp = &r->progs[pidx];
    rg_prim *p = &r->prims[prim];
    if (!GROW(r->scripts, r->capscripts, r->nscripts + 1))
        return oom(err);
    uint32_t *ns = rg_realloc(r, p->scripts, (p->nscripts + 1) * sizeof *ns);
    if (!ns)
        return oom(err);
    p->scripts = ns;
    rg_script *s = rg_calloc(r, 1, sizeof *s);
    if (!s)
        return oom(err);
    s->region = r;
    s->index = (uint32_t)r->nscripts;
    s->prim = prim;
    s->prog = pidx;
    s->heap_pos = RG_NO_POS;
    s->mark = UINT64_MAX;
    s->name = rg_dup(r, name, strlen(name));
    gsvm_status st = s->name ? GSVM_OK : oom(err);
    if (st == GSVM_OK && rp->abi == 3) {
        st = gsvm_lsl3_vm_new_alloc(rp->prog, r->o.alloc, r->o.alloc_user, &s->vm, err);
        if (st == GSVM_OK) {
            gsvm_lsl3_vm_set_hosts(s->vm, r->hosts, s);
            if (snap) {
                st = gsvm_lsl3_vm_restore(s->vm, snap, len, name, err);
            } else {
                lsl_sched_init(&s->vm->sched, s->vm->hp, r->now_ms);
                lsl_sched_set_handled(&s->vm->sched, fal3_handled_mask(rp->prog, 0));
                st = gsvm_lsl3_vm_start(s->vm, err);
            }
        }
    } else if (st == GSVM_OK) {
        /* ABI 2 (the document's VM), through the same allocator */
        st = gsvm_lsl_vm_new_alloc(rp->prog2, r->o.alloc, r->o.alloc_user, &s->vm2, err);
        if (st == GSVM_OK) {
            gsvm_lsl_vm_set_hosts(s->vm2, r->hosts, s);
            if (snap)
                st = gsvm_lsl_vm_restore(s->vm2, snap, len, name, err);
            else if (gsvm_lsl_program_has_event(rp->prog2, "state_entry"))
                st = gsvm_lsl_vm_dispatch(s->vm2, "state_entry", NULL, 0, err);
        }
        if (st == GSVM_OK && nq2) {
            s->q2 = rg_realloc(r, NULL, nq2 * sizeof *s->q2);
            if (!s->q2) {
                st = oom(err);
            } else {
                memcpy(s->q2, q2, nq2 * sizeof *s->q2);
                s->nq2 = s->capq2 = (uint8_t)nq2;
            }
        }
    }
    if (st != GSVM_OK) {
        gsvm_lsl3_vm_free(s->vm);
        gsvm_lsl_vm_free(s->vm2);
        rg_free(r, s->q2);
        rg_free(r, s->name);
        rg_free(r, s);
        return st;
    }
    r->scripts[r->nscripts++] = s;
    p->scripts[p->nscripts++] = s->index;
    r->st.scripts++;
    if (snap)
        s->dead = s->frozen = true; /* runs once the crossing commits */
    else
        rg_make_runnable(r, s); /* state_entry in the next frame */
    return GSVM_OK;
}

/* ---- the program store ------------------------------------------------------ */

long rg_program_find(const gsvm_lsl_region *r, const uint8_t id[32], int abi)
{
    for (size_t i = 0; i < r->nprogs; i++)
        if (r->progs[i].abi == abi && memcmp(r->progs[i].id, id, 32) == 0)
            return (long)i;
    return -1;
}

/* A new, zeroed entry at the end of the store (not yet counted), or NULL. */
static rg_program *program_slot(gsvm_lsl_region *r)
{
    rg_program *np = rg_realloc(r, r->progs, (r->nprogs + 1) * sizeof *np);
    if (!np)
        return NULL;
    r->progs = np;
    return memset(&np[r->nprogs], 0, sizeof *np);
}

gsvm_status rg_program_add3(gsvm_lsl_region *r, const gsvm_lsl3_program *p, const uint8_t *src_hash,
                            uint32_t *idx, gsvm_error *err)
{
    const uint8_t *id = gsvm_lsl3_program_hash(p);
    for (size_t i = 0; i < r->nprogs; i++)
        if (r->progs[i].prog == p || (!src_hash && r->progs[i].abi == 3 && memcmp(r->progs[i].id, id, 32) == 0)) {
            *idx = (uint32_t)i;
            return GSVM_OK;
        }
    rg_program *e = program_slot(r);
    if (!e)
        return oom(err);
    memcpy(e->id, id, 32);
    memcpy(e->hash, src_hash ? src_hash : id, 32);
    e->abi = 3;
    e->prog = (gsvm_lsl3_program *)gsvm_lsl3_program_retain(p);
    *idx = (uint32_t)r->nprogs++;
    return GSVM_OK;
}

gsvm_status rg_program_add2(gsvm_lsl_region *r, gsvm_lsl_program *p, const uint8_t *src_hash, uint32_t *idx,
                            gsvm_error *err)
{
    uint8_t *bytes;
    size_t len;
    uint8_t id[32];
    gsvm_status st = gsvm_lsl_program_save(p, &bytes, &len, err);
    if (st == GSVM_OK) {
        gsvm_sha256(bytes, len, id);
        free(bytes); /* gsvm_lsl_program_save's, from the C library */
        long k = src_hash ? -1 : rg_program_find(r, id, 2);
        if (k >= 0) { /* the same program again: one copy serves both */
            gsvm_lsl_program_free(p);
            *idx = (uint32_t)k;
            return GSVM_OK;
        }
    }
    rg_program *e = st == GSVM_OK ? program_slot(r) : NULL;
    if (!e) {
        gsvm_lsl_program_free(p);
        return st ? st : oom(err);
    }
    memcpy(e->id, id, 32);
    memcpy(e->hash, src_hash ? src_hash : id, 32);
    e->abi = 2;
    e->prog2 = p;
    *idx = (uint32_t)r->nprogs++;
    return GSVM_OK;
}

/* `prog` (either ABI) in the store: its index there. */
static gsvm_status program_add(gsvm_lsl_region *r, const gsvm_lsl_program *prog, uint32_t *idx, gsvm_error *err)
{
    if (gsvm_lsl_program_abi(prog) == 3)
        return rg_program_add3(r, gsvm_lsl_program_abi3((gsvm_lsl_program *)prog), NULL, idx, err);
    /* the store owns one reference of its ABI-2 programs */
    return rg_program_add2(r, (gsvm_lsl_program *)gsvm_lsl_program_retain(prog), NULL, idx, err);
}

gsvm_status gsvm_lsl_region_add_program(gsvm_lsl_region *r, const gsvm_lsl_program *prog, gsvm_error *err)
{
    uint32_t idx;
    return program_add(r, prog, &idx, err);
}

gsvm_status gsvm_lsl_region_add_script(gsvm_lsl_region *r, uint32_t prim, const char *name,
                                       const gsvm_lsl_program *prog, gsvm_error *err)
{
    uint32_t idx;
    gsvm_status st = program_add(r, prog, &idx, err);
    return st ? st : add_script(r, prim, name, idx, NULL, 0, NULL, 0, err);
}

gsvm_status rg_add_script_at(gsvm_lsl_region *r, uint32_t prim, const char *name, uint32_t prog, gsvm_error *err)
{
    return add_script(r, prim, name, prog, NULL, 0, NULL, 0, err);
}

gsvm_status rg_add_script_restored(gsvm_lsl_region *r, uint32_t prim, const char *name, uint32_t prog,
                                   const uint8_t *snap, size_t len, const int32_t *q2, size_t nq2,
                                   gsvm_error *err)
{
    return add_script(r, prim, name, prog, snap, len, q2, nq2, err);
}

void rg_object_freeze(gsvm_lsl_region *r, uint32_t root, bool frozen)
{
    const rg_prim *rp = &r->prims[root];
    for (uint32_t k = 0; k < rp->nlinks; k++) {
        const rg_prim *p = &r->prims[rp->links[k]];
        for (uint32_t j = 0; j < p->nscripts; j++) {
            rg_script *s = r->scripts[p->scripts[j]];
            if (frozen && !s->dead) {
                s->dead = s->frozen = true;
                rg_heap_remove(r, s);
                rg_reindex(r, s);
            } else if (!frozen && s->frozen) {
                s->dead = s->frozen = false;
                rg_sync_clock(r, s);
                rg_heap_update(r, s);
                rg_reindex(r, s);
                rg_make_runnable(r, s); /* whatever it was doing goes on */
            }
        }
    }
}

void rg_object_remove(gsvm_lsl_region *r, uint32_t root)
{
    rg_object_freeze(r, root, true);
    const rg_prim *rp = &r->prims[root];
    for (uint32_t k = 0; k < rp->nlinks; k++) {
        rg_prim *p = &r->prims[rp->links[k]];
        p->removed = true;
        for (uint32_t j = 0; j < p->nscripts; j++) {
            rg_script *s = r->scripts[p->scripts[j]];
            s->frozen = false; /* gone for good */
            if (s->throttled) /* counted where it runs now */
                r->st.throttled--;
            s->throttled = false;
        }
    }
}

void rg_prim_world_pos(const gsvm_lsl_region *r, const rg_prim *p, float out[3])
{
    const rg_prim *root = &r->prims[p->object];
    for (int i = 0; i < 3; i++)
        out[i] = p->object == (uint32_t)(p - r->prims) ? p->pos[i] : root->pos[i] + p->pos[i];
}

/* ---- events and chat ------------------------------------------------------------- */

gsvm_status rg_post(gsvm_lsl_region *r, rg_script *s, int event, const lsl_value *args, size_t n,
                    uint32_t tag, bool *queued, gsvm_error *err)
{
    *queued = false;
    if (s->dead)
        return GSVM_OK;
    if (!s->vm) {
        /* ABI 2: touch_start(integer) is its one queued event */
        if (event != RG_EV_TOUCH_START || n != 1 || args[0].type != LSL_TYPE_INTEGER || !rg_handles(s, event) ||
            s->nq2 >= LSL_SCHED_QUEUE_MAX)
            return GSVM_OK;
        if (s->nq2 == s->capq2) {
            unsigned nc = s->capq2 ? s->capq2 * 2u : 4u;
            int32_t *q = rg_realloc(r, s->q2, nc * sizeof *q);
            if (!q)
                return oom(err);
            s->q2 = q;
            s->capq2 = (uint8_t)nc;
        }
        s->q2[s->nq2++] = args[0].u.i;
        *queued = true;
        rg_make_runnable(r, s);
        return GSVM_OK;
    }
    rg_sync_clock(r, s);
    lsl_sched *sc = &s->vm->sched;
    gsvm_status st = lsl_sched_push(sc, event, args, n, queued, err);
    if (st == GSVM_OK && *queued) {
        sc->queue[(sc->head + sc->count - 1) % LSL_SCHED_QUEUE_MAX].tag = tag;
        rg_make_runnable(r, s);
    }
    return st;
}

static float dist2(const float a[3], const float b[3])
{
    float d = 0;
    for (int i = 0; i < 3; i++)
        d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
}

gsvm_status rg_deliver_chat(gsvm_lsl_region *r, int32_t channel, const char *name, size_t name_len,
                            const char *key, const float pos[3], double range, const char *target,
                            uint32_t skip_prim, const char *msg, size_t msg_len, gsvm_error *err)
{
    rg_chan *c = rg_chan_find(r, channel);
    if (!c)
        return GSVM_OK;
    size_t key_len = strlen(key);
    for (uint32_t k = 0; k < c->n; k++) {
        rg_script *s = r->scripts[c->scripts[k]];
        const rg_prim *p = &r->prims[s->prim];
        if (s->dead || s->prim == skip_prim)
            continue;
        if (target && strncasecmp(p->key, target, RG_KEY_LEN) != 0)
            continue;
        if (range >= 0) {
            float wp[3];
            rg_prim_world_pos(r, p, wp);
            if (dist2(wp, pos) > (float)(range * range))
                continue;
        }
        r->st.chat_offered++;
        rg_sync_clock(r, s);
        bool queued = false;
        gsvm_status st = lsl_sched_hear(&s->vm->sched, channel, name, name_len, key, key_len, msg,
                                        msg_len, NULL, &queued, err);
        if (st == GSVM_ERR_FAULT) {
            /* the listener's heap is full: SL drops the message for it */
            continue;
        }
        if (st != GSVM_OK)
            return st;
        if (queued) {
            r->st.chat_heard++;
            rg_make_runnable(r, s);
        }
    }
    return GSVM_OK;
}

gsvm_status gsvm_lsl_region_chat(gsvm_lsl_region *r, int32_t channel, const char *name, const char *key,
                                 const float pos[3], double range, const char *msg, gsvm_error *err)
{
    static const float origin[3] = {0, 0, 0};
    return rg_deliver_chat(r, channel, name, strlen(name), key, pos ? pos : origin, range, NULL,
                           RG_NO_POS, msg, strlen(msg), err);
}

/* ---- frames and the scheduler -------------------------------------------------------- */

static uint64_t wall_us(const gsvm_lsl_region *r)
{
    if (r->o.wall_us)
        return r->o.wall_us(r->o.wall_user);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Folds the frames since the script last ran into its moving average
 * (alpha 1/8: frames without use count as zero) and decides throttling. */
static void account_frame(gsvm_lsl_region *r, rg_script *s)
{
    if (s->mark == r->frame)
        return;
    if (s->mark != UINT64_MAX) {
        uint64_t gap = r->frame - s->mark; /* >= 1 */
        double keep = 7.0 / 8.0;
        s->avg = s->avg * keep + (double)s->used / 8.0;
        if (gap > 1)
            s->avg *= gap > 400 ? 0.0 : pow(keep, (double)(gap - 1));
    }
    s->mark = r->frame;
    s->used = 0;
    if (!r->o.throttle_above)
        return;
    bool was = s->throttled;
    if (!was && s->avg > (double)r->o.throttle_above)
        s->throttled = true;
    else if (was && s->avg < (double)r->o.throttle_above / 2)
        s->throttled = false;
    if (was != s->throttled) {
        r->st.throttled += s->throttled ? 1 : (size_t)-1;
        json_t *line = json_object();
        json_object_set_new(line, "throttled", json_boolean(s->throttled));
        json_object_set_new(line, "avg_per_frame", json_integer((json_int_t)(s->avg + 0.5)));
        rg_emit(r, s, line);
    }
}

static uint64_t left_of(uint64_t *mark, uint64_t *used, uint64_t frame, uint64_t budget)
{
    if (*mark != frame) {
        *mark = frame;
        *used = 0;
    }
    if (!budget)
        return UINT64_MAX;
    return *used >= budget ? 0 : budget - *used;
}

static void report_fault(gsvm_lsl_region *r, rg_script *s)
{
    json_t *line = json_object();
    json_object_set_new(line, "fault", json_string(s->vm ? gsvm_lsl3_vm_fault(s->vm) : gsvm_lsl_vm_fault(s->vm2)));
    json_object_set_new(line, "ip", json_integer((json_int_t)(s->vm ? gsvm_lsl3_vm_fault_ip(s->vm)
                                                                    : gsvm_lsl_vm_fault_ip(s->vm2))));
    uint32_t ln, col;
    if (s->vm ? gsvm_lsl3_vm_fault_line(s->vm, &ln, &col) : gsvm_lsl_vm_fault_line(s->vm2, &ln, &col)) {
        json_object_set_new(line, "line", json_integer(ln));
        json_object_set_new(line, "col", json_integer(col));
    }
    rg_emit(r, s, line);
    s->dead = true;
    r->st.faulted++;
    rg_heap_remove(r, s);
    rg_reindex(r, s);
}

/* One slice of at most `budget` instructions, in chunks so the wall-clock
 * guard can stop it.  Returns the VM's status. */
static uint64_t total_of(const rg_script *s) { return s->vm ? s->vm->total : gsvm_lsl_vm_total(s->vm2); }

/* Runs a script's VM: ABI 3 as it is; ABI 2 with its next queued
 * touch_start dispatched when a handler ends (YIELDED: more to do). */
static gsvm_lsl_run_status run_vm(rg_script *s, uint64_t budget)
{
    if (s->vm)
        return gsvm_lsl3_vm_run(s->vm, budget);
    gsvm_lsl_run_status st = gsvm_lsl_vm_run(s->vm2, budget);
    if (st != GSVM_LSL_FINISHED || s->nq2 == 0)
        return st;
    gsvm_lsl_hostval arg = {GSVM_LSL_INTEGER, s->q2[0], NULL, 0};
    memmove(s->q2, s->q2 + 1, --s->nq2 * sizeof *s->q2);
    gsvm_error e;
    return gsvm_lsl_vm_dispatch(s->vm2, "touch_start", &arg, 1, &e) == GSVM_OK ? GSVM_LSL_YIELDED
                                                                                : GSVM_LSL_FINISHED;
}

static gsvm_lsl_run_status run_slice(gsvm_lsl_region *r, rg_script *s, uint64_t budget, uint64_t *used)
{
    uint64_t t0 = r->o.slice_guard_us ? wall_us(r) : 0, before = total_of(s);
    gsvm_lsl_run_status st;
    for (;;) {
        uint64_t done = total_of(s) - before, chunk = budget - done;
        if (r->o.slice_guard_us && chunk > 256)
            chunk = 256;
        st = run_vm(s, chunk);
        if (st != GSVM_LSL_YIELDED || total_of(s) - before >= budget)
            break;
        if (r->o.slice_guard_us && wall_us(r) - t0 >= r->o.slice_guard_us)
            break; /* the guard: the rest waits for the next turn */
    }
    *used = total_of(s) - before;
    r->st.slices++;
    return st;
}

static void run_frame(gsvm_lsl_region *r)
{
    /* timers and sleeps due by now */
    while (r->nheap && r->scripts[r->heap[0]]->deadline <= r->now_ms) {
        rg_script *s = r->scripts[r->heap[0]];
        rg_heap_remove(r, s);
        rg_sync_clock(r, s);
        rg_heap_update(r, s);
        if (lsl_sched_runnable(&s->vm->sched) || (s->vm->active && !lsl_sched_sleeping(&s->vm->sched)))
            rg_make_runnable(r, s);
    }
    uint64_t frame_left = r->o.frame_budget, t0 = r->o.frame_guard_us ? wall_us(r) : 0;
    /* Scripts that cannot run this frame (throttled, over a budget) go back
     * to the front in their order, so they keep their turn. */
    uint32_t *deferred = NULL;
    size_t ndef = 0, capdef = 0;
    while (frame_left > 0 && r->rq_count > 0) {
        if (r->o.frame_guard_us && wall_us(r) - t0 >= r->o.frame_guard_us)
            break;
        rg_script *s = rg_runq_pop(r);
        if (s->dead)
            continue;
        account_frame(r, s);
        rg_prim *obj = &r->prims[r->prims[s->prim].object]; /* the link set's root */
        rg_owner *own = &r->owners[obj->owner_index];
        uint64_t script_left = r->o.script_budget > s->used ? r->o.script_budget - s->used : 0;
        uint64_t obj_left = left_of(&obj->mark, &obj->used, r->frame, r->o.object_budget);
        uint64_t own_left = left_of(&own->mark, &own->used, r->frame, r->o.owner_budget);
        bool skip = script_left == 0 || obj_left == 0 || own_left == 0 ||
                    (s->throttled && (r->frame % r->o.throttle_period) != 0);
        if (skip) {
            if (GROW(deferred, capdef, ndef + 1))
                deferred[ndef++] = s->index;
            else
                rg_make_runnable(r, s);
            continue;
        }
        uint64_t b = r->o.slice;
        if (b > frame_left) b = frame_left;
        if (b > script_left) b = script_left;
        if (b > obj_left) b = obj_left;
        if (b > own_left) b = own_left;
        rg_sync_clock(r, s);
        uint64_t used;
        gsvm_lsl_run_status st = run_slice(r, s, b, &used);
        s->used += used;
        obj->used += used;
        own->used += used;
        frame_left -= used < frame_left ? used : frame_left;
        r->st.instructions += used;
        rg_reindex(r, s);
        if (st == GSVM_LSL_ERROR) {
            report_fault(r, s);
            continue;
        }
        rg_heap_update(r, s);
        if (st == GSVM_LSL_YIELDED)
            rg_make_runnable(r, s); /* to the back: round-robin */
    }
    for (size_t i = ndef; i-- > 0;)
        rg_runq_push(r, r->scripts[deferred[i]], true);
    rg_free(r, deferred);
    r->frame++;
    r->st.frames++;
}

/* The simulated time of frame k. */
static uint64_t frame_time(const gsvm_lsl_region *r, uint64_t k)
{
    return k * 1000u / r->o.frames_per_second;
}

gsvm_status gsvm_lsl_region_advance(gsvm_lsl_region *r, uint64_t ms, gsvm_error *err)
{
    if (ms > LSL_SCHED_MAX_TIME_MS - r->now_ms)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "advancing %llu ms would pass the clock's limit",
                              (unsigned long long)ms);
    uint64_t target = r->now_ms + ms;
    while (frame_time(r, r->frame) <= target) {
        uint64_t t = frame_time(r, r->frame);
        if (t > r->now_ms)
            r->now_ms = t;
        run_frame(r);
    }
    r->now_ms = target;
    r->st.now_ms = target;
    return GSVM_OK;
}

gsvm_status gsvm_lsl_region_settle(gsvm_lsl_region *r, uint64_t max_ms, bool *idle, gsvm_error *err)
{
    uint64_t end = r->now_ms + max_ms;
    if (max_ms > LSL_SCHED_MAX_TIME_MS - r->now_ms)
        end = LSL_SCHED_MAX_TIME_MS;
    *idle = r->rq_count == 0;
    while (!*idle) {
        uint64_t t = frame_time(r, r->frame);
        if (t > end)
            break;
        gsvm_status st = gsvm_lsl_region_advance(r, t > r->now_ms ? t - r->now_ms : 0, err);
        if (st)
            return st;
        *idle = r->rq_count == 0;
    }
    return GSVM_OK;
}

void gsvm_lsl_region_get_stats(const gsvm_lsl_region *r, gsvm_lsl_region_stats *out)
{
    *out = r->st;
    out->now_ms = r->now_ms;
    out->programs = r->nprogs;
}
