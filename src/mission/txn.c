/* A callback's transaction: a private, copy-on-write view of the committed
 * record.
 *
 *   variables  an overlay map of the names the callback set or cleared;
 *              reads look in the overlay first, then in the record.
 *   timers     copied whole (at most 32) on the first start/cancel.
 *   phase      staged value.
 *   sequences  next timer sequence and next request key.
 *   requests   a new list, appended to the outbox only on commit.
 *
 * Nothing the callback does touches the record until ms_txn_commit, which first
 * writes the change set to the store (one SQL transaction) and only then
 * applies it in memory; ms_txn_discard throws the overlay away.  Every step is
 * proportional to what the callback changed. */
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

void ms_txn_begin(gsvm_mission *m)
{
    mtxn *t = &m->txn;
    t->active = true;
    t->var_delta = 0;
    t->timers_copied = false;
    t->phase_set = false;
    t->phase = m->rec.phase;
    t->next_timer_seq = m->rec.next_timer_seq;
    t->next_key = m->rec.next_key;
    t->durable = false;
    t->completes = false;
    t->starts = false;
    t->nreqs = 0;
    t->consumed_event = 0;
    t->req_bytes = 0;
}

static void clear_overlay(mtxn *t)
{
    if (t->overlay.count == 0)
        return;
    for (uint32_t i = 0; i < t->overlay.cap; i++) {
        free(t->overlay.slots[i]);
        t->overlay.slots[i] = NULL;
    }
    t->overlay.count = 0;
    /* Keep a large table from lingering after one big callback. */
    if (t->overlay.cap > 1024)
        ms_vmap_free(&t->overlay);
}

void ms_txn_discard(gsvm_mission *m)
{
    mtxn *t = &m->txn;
    clear_overlay(t);
    for (int i = 0; i < t->nreqs; i++)
        ms_mreq_free(t->reqs[i]);
    t->nreqs = 0;
    t->active = false;
}

const mval *ms_txn_get_var(gsvm_mission *m, const char *name, size_t nlen)
{
    mvar *v = m->txn.active ? ms_vmap_get(&m->txn.overlay, name, nlen) : NULL;
    if (v)
        return v->deleted ? NULL : &v->v;
    v = ms_vmap_get(&m->rec.vars, name, nlen);
    return v ? &v->v : NULL;
}

static mvar *overlay_entry(gsvm_mission *m, const char *name, size_t nlen, bool *was_present)
{
    mtxn *t = &m->txn;
    mvar *o = ms_vmap_get(&t->overlay, name, nlen);
    if (o) {
        *was_present = !o->deleted;
        return o;
    }
    *was_present = ms_vmap_get(&m->rec.vars, name, nlen) != NULL;
    o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    memcpy(o->name, name, nlen);
    o->nlen = (uint8_t)nlen;
    o->deleted = !*was_present;
    if (*was_present)
        o->v = ms_vmap_get(&m->rec.vars, name, nlen)->v;
    if (!ms_vmap_put(&t->overlay, o)) {
        free(o);
        return NULL;
    }
    return o;
}

int ms_txn_set_var(gsvm_mission *m, const char *name, size_t nlen, const mval *v)
{
    mtxn *t = &m->txn;
    bool present;
    if (!ms_vmap_get(&t->overlay, name, nlen) && !ms_vmap_get(&m->rec.vars, name, nlen) &&
        (int64_t)m->rec.vars.count + t->var_delta + 1 > (int64_t)m->cfg.max_variables)
        return 1;
    mvar *o = overlay_entry(m, name, nlen, &present);
    if (!o)
        return -1;
    if (!present) {
        if ((int64_t)m->rec.vars.count + t->var_delta + 1 > (int64_t)m->cfg.max_variables)
            return 1;
        t->var_delta++;
    }
    o->deleted = false;
    o->v = *v;
    t->durable = true;
    return 0;
}

int ms_txn_clear_var(gsvm_mission *m, const char *name, size_t nlen)
{
    mtxn *t = &m->txn;
    if (!ms_vmap_get(&t->overlay, name, nlen) && !ms_vmap_get(&m->rec.vars, name, nlen))
        return 0;
    bool present;
    mvar *o = overlay_entry(m, name, nlen, &present);
    if (!o)
        return -1;
    if (present) {
        t->var_delta--;
        o->deleted = true;
        t->durable = true;
    }
    return present ? 1 : 0;
}

mtimers *ms_txn_timers_w(gsvm_mission *m)
{
    mtxn *t = &m->txn;
    if (!t->timers_copied) {
        t->timers = m->rec.timers;
        t->timers_copied = true;
    }
    t->durable = true;
    return &t->timers;
}

const mtimers *ms_txn_timers_r(const gsvm_mission *m)
{
    return m->txn.active && m->txn.timers_copied ? &m->txn.timers : &m->rec.timers;
}

uint32_t ms_txn_phase(const gsvm_mission *m)
{
    return m->txn.active && m->txn.phase_set ? m->txn.phase : m->rec.phase;
}

mreq *ms_mreq_new(gsvm_mission *m, int op, const char *call, const char *effect)
{
    mreq *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->key = m->txn.next_key;
    r->attempt = m->rec.attempt;
    r->op = op;
    snprintf(r->call, sizeof r->call, "%s", call);
    snprintf(r->effect, sizeof r->effect, "%s", effect ? effect : "");
    return r;
}

bool ms_txn_add_request(gsvm_mission *m, mreq *r)
{
    mtxn *t = &m->txn;
    if (t->nreqs == t->capreqs) {
        int nc = t->capreqs ? t->capreqs * 2 : 8;
        mreq **n = realloc(t->reqs, (size_t)nc * sizeof *n);
        if (!n)
            return false;
        t->reqs = n;
        t->capreqs = nc;
    }
    t->reqs[t->nreqs++] = r;
    t->next_key++;
    return true;
}

static bool outbox_push(gsvm_mission *m, mreq *r)
{
    if (m->nout == m->capout) {
        int nc = m->capout ? m->capout * 2 : 16;
        mreq **n = realloc(m->outbox, (size_t)nc * sizeof *n);
        if (!n)
            return false;
        m->outbox = n;
        m->capout = nc;
    }
    m->outbox[m->nout++] = r;
    return true;
}

gsvm_status ms_txn_commit(gsvm_mission *m, bool force_revision, gsvm_error *err)
{
    mtxn *t = &m->txn;
    mrecord *rec = &m->rec;
    bool phase_changed = t->phase_set && t->phase != rec->phase;
    if (t->phase_set && !phase_changed)
        t->phase_set = false;
    bool changed = t->durable || phase_changed || t->nreqs > 0 || force_revision ||
                   t->next_timer_seq != rec->next_timer_seq;
    uint32_t old_phase = rec->phase;
    uint64_t new_revision = rec->revision + (changed ? 1 : 0);

    /* phase_entered is queued once per committed phase change, and only if
     * the program handles it. */
    mevent *pe = NULL;
    if (phase_changed && m->ref_event[EV_phase_entered] != LUA_NOREF) {
        pe = ms_mevent_new(EV_phase_entered);
        if (!pe) {
            ms_txn_discard(m);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
        }
        char buf[24];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)new_revision);
        ms_mevent_set_int(pe, "phase", t->phase);
        ms_mevent_set_int(pe, "previous_phase", old_phase);
        ms_mevent_set_str(pe, "state_revision", buf, strlen(buf));
        pe->attempt = rec->attempt;
    }
    /* Applying the overlay below cannot fail half-way: the room is made
     * first (without a state file the record in memory is the only one). */
    if (t->overlay.count && !ms_vmap_reserve(&rec->vars, t->overlay.count)) {
        ms_mevent_free(pe);
        ms_txn_discard(m);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    }
    if (changed || t->consumed_event || t->starts) {
        /* Stage the new scalars in the record for the store to write, and
         * roll them back if the write fails. */
        mrecord saved = *rec;
        rec->revision = new_revision;
        if (t->phase_set)
            rec->phase = t->phase;
        rec->next_timer_seq = t->next_timer_seq;
        rec->next_key = t->next_key;
        if (t->completes)
            rec->complete = true;
        if (t->starts)
            rec->started = true;
        /* Device requests become the slots' request records, in the same
         * SQL transaction (a burst holds at most 64 requests). */
        int rows[GSVM_MISSION_REQUEST_BURST];
        mslotrec saved_slots[GSVM_MISSION_REQUEST_BURST];
        int nrows = 0;
        for (int i = 0; i < t->nreqs && m->slotrec; i++) {
            const mreq *r = t->reqs[i];
            if (r->op != OP_HOST || r->p3 < 1 || r->p3 > CH_COUNT || r->p2 < 1 || r->p2 > m->world->nslots)
                continue;
            int j = 0;
            while (j < nrows && rows[j] != (int)r->p2)
                j++;
            if (j == nrows && nrows < (int)GSVM_MISSION_REQUEST_BURST) {
                rows[nrows] = (int)r->p2;
                saved_slots[nrows++] = m->slotrec[r->p2 - 1];
            }
            m->slotrec[r->p2 - 1].req_key[r->p3 - 1] = r->key;
        }
        gsvm_status st = ms_store_commit(m->store, m, &pe, pe ? 1 : 0, t->consumed_event, rows, nrows, err);
        if (st != GSVM_OK) {
            for (int j = 0; j < nrows; j++)
                m->slotrec[rows[j] - 1] = saved_slots[j];
            rec->revision = saved.revision;
            rec->phase = saved.phase;
            rec->next_timer_seq = saved.next_timer_seq;
            rec->next_key = saved.next_key;
            rec->complete = saved.complete;
            rec->started = saved.started;
            ms_mevent_free(pe);
            ms_txn_discard(m);
            return st;
        }
    }
    /* Apply the overlay to the record. */
    if (t->overlay.count) {
        for (uint32_t i = 0; i < t->overlay.cap; i++) {
            mvar *o = t->overlay.slots[i];
            if (!o)
                continue;
            t->overlay.slots[i] = NULL;
            if (o->deleted) {
                free(ms_vmap_remove(&rec->vars, o->name, o->nlen));
                free(o);
            } else {
                ms_vmap_put(&rec->vars, o); /* cannot fail: reserved above */
            }
        }
        t->overlay.count = 0;
        if (t->overlay.cap > 1024)
            ms_vmap_free(&t->overlay);
    }
    if (t->timers_copied)
        rec->timers = t->timers;
    for (int i = 0; i < t->nreqs; i++)
        if (!outbox_push(m, t->reqs[i]))
            ms_mreq_free(t->reqs[i]);
    t->nreqs = 0;
    t->active = false;
    if (pe)
        ms_mqueue_push(&m->events, pe);
    return GSVM_OK;
}
