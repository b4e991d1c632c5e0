/* The outbox is delivered one request at a time, oldest first.  While a
 * request is in delivery nothing else of this mission runs (no input, no
 * timer, no queued event); its outcome becomes an effect_result that scripts
 * see only once the whole outbox is empty.
 *
 * Host requests, by the host's answer (gsvm_mission_answer):
 *   ACCEPT       committed and staged at once              -> transport_staged
 *   REFUSE       refused                                   -> refused
 *   STALL        never committed: after the 2 s commit wait -> refused
 *   DROP         committed then dropped: after 2 s         -> canceled
 *   PENDING      output pending at 2 s: transport stage; after 15 s in the
 *                network queue a cancel is requested and confirmed -> canceled
 *   NO_CANCEL    as PENDING but the cancel is never confirmed: 2 s after the
 *                cancel request the program faults
 *   UNPUBLISHED  committed but never published: at 60 s     -> expired
 *   MISMATCH     a host revision mismatch faults the program
 *   DEFER        the host reports later (gsvm_mission_report_outcome): COMMITTED moves
 *                it to the network queue, STAGED/REFUSED/CANCELED finish it;
 *                no commit within the commit wait -> refused; the network
 *                wait -> a cancel is requested (host.cancel); the cancel wait
 *                without CANCELED -> the program faults
 * Any request unfinished 60 s after its first try is expired.  The waits
 * are the config's (commit_wait_ms, network_wait_ms, cancel_wait_ms,
 * expire_ms), 2 s / 15 s / 2 s / 60 s by default.
 * Local requests (select_state, hold_spawn, restart_checkpoint, actor_command)
 * take no host revision and finish here; select_state waits for publication,
 * which UNPUBLISHED withholds. */
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

enum { OUT_STAGED = 0, OUT_REFUSED, OUT_EXPIRED, OUT_CANCELED };
static const char *const outcome_name[] = {"transport_staged", "refused", "expired", "canceled"};

#define COMMIT_WAIT_MS ((uint64_t)m->cfg.commit_wait_ms)
#define NETWORK_WAIT_MS ((uint64_t)m->cfg.network_wait_ms)
#define CANCEL_WAIT_MS ((uint64_t)m->cfg.cancel_wait_ms)
#define OVERALL_MS ((uint64_t)m->cfg.expire_ms)

static void pop_head(gsvm_mission *m)
{
    m->dlv.stage = 0;
    m->dlv.stage_t = 0;
    ms_mreq_free(m->outbox[0]);
    memmove(&m->outbox[0], &m->outbox[1], (size_t)(m->nout - 1) * sizeof m->outbox[0]);
    m->nout--;
    m->dlv.active = false;
}

static void finish(gsvm_mission *m, int outcome)
{
    mreq *r = m->outbox[0];
    gsvm_error err;
    mevent *ev = NULL;
    if (m->ref_event[EV_effect_result] != LUA_NOREF && !m->rec.faulted) {
        ev = ms_mevent_new(EV_effect_result);
        if (ev) {
            ev->attempt = m->rec.attempt;
            ms_mevent_set_key(ev, "request_key", r->key);
            if (r->effect[0])
                ms_mevent_set_str(ev, "effect", r->effect, strlen(r->effect));
            ms_mevent_set_str(ev, "outcome", outcome_name[outcome], strlen(outcome_name[outcome]));
            ms_mevent_set_int(ev, "outcome_code", outcome);
        }
    }
    uint64_t key = r->key;
    char effect[sizeof r->effect];
    memcpy(effect, r->effect, sizeof effect);
    pop_head(m);
    if (ms_store_finish_request(m->store, m, key, ev, &err) != GSVM_OK) {
        ms_mevent_free(ev);
        ms_fault(m, err.message);
        return;
    }
    if (m->cfg.host.effect_result)
        m->cfg.host.effect_result(m->cfg.host.ud, key, effect[0] ? effect : NULL, outcome_name[outcome]);
    if (ev)
        ms_mqueue_push(&m->events, ev);
}

static bool party_wiped(const gsvm_mission *m)
{
    return m->have_fireteam && m->ft_dead > 0 && m->ft_alive == 0 && m->ft_unknown == 0;
}

static bool spawn_set_known(const gsvm_mission *m, uint32_t hash)
{
    const gsvm_mission_world *w = m->world;
    if (!w->nspawn_sets)
        return true;
    for (int i = 0; i < w->nspawn_sets; i++)
        if (w->spawn_sets[i] == hash)
            return true;
    return false;
}

/* A new attempt: timers, device and population records and first-report
 * records are cleared, the old attempt's queued events and requests are
 * dropped, and fireteam_state is sent again.  Variables and the phase stay. */
void ms_dlv_new_attempt(gsvm_mission *m)
{
    gsvm_error err;
    m->rec.attempt++;
    m->rec.timers.n = 0;
    m->rec.complete = false; /* mission_complete is the current attempt's flag */
    ms_first_clear(m);
    /* Device request records go; Ghost link reports stay. */
    for (int i = 0; m->slotrec && i < m->world->nslots; i++) {
        memset(m->slotrec[i].req_key, 0, sizeof m->slotrec[i].req_key);
        memset(m->slotrec[i].rep_known, 0, sizeof m->slotrec[i].rep_known);
        memset(m->slotrec[i].rep_seq, 0, sizeof m->slotrec[i].rep_seq);
    }
    if (m->squad_alive)
        for (int i = 0; i < m->world->nsquads; i++)
            m->squad_alive[i] = -1;
    /* Drop old requests (the head, in delivery, is the arm itself). */
    int keep = 1;
    for (int i = 1; i < m->nout; i++) {
        if (m->outbox[i]->attempt < m->rec.attempt)
            ms_mreq_free(m->outbox[i]);
        else
            m->outbox[keep++] = m->outbox[i];
    }
    m->nout = keep;
    mqueue kept = {0};
    mevent *e;
    while ((e = ms_mqueue_pop(&m->events))) {
        if (e->attempt < m->rec.attempt)
            ms_mevent_free(e);
        else
            ms_mqueue_push(&kept, e);
    }
    m->events = kept;
    ms_inputs_clear(m); /* their rows go with the old attempt below */
    /* The arm itself still needs its outcome: keep its row by moving it to the new attempt. */
    m->outbox[0]->attempt = m->rec.attempt;
    if (ms_store_drop_attempt(m->store, m, &err) != GSVM_OK) {
        ms_fault(m, err.message);
        return;
    }
    if (m->cfg.role == GSVM_MISSION_PRIVATE && m->have_fireteam &&
        m->ref_event[EV_fireteam_state] != LUA_NOREF) {
        mevent *ft = ms_mevent_new(EV_fireteam_state);
        if (ft) {
            ft->attempt = m->rec.attempt;
            ms_mevent_set_int(ft, "alive_count", m->ft_alive);
            ms_mevent_set_int(ft, "dead_count", m->ft_dead);
            ms_mevent_set_int(ft, "unknown_count", m->ft_unknown);
            ms_input_push(m, ft);
        }
    }
}

static void run_local(gsvm_mission *m, mreq *r, uint64_t elapsed)
{
    switch (r->op) {
    case OP_SELECT_STATE:
        if (m->dlv.answer == GSVM_MISSION_UNPUBLISHED) {
            if (elapsed >= OVERALL_MS)
                finish(m, OUT_EXPIRED);
            return;
        }
        finish(m, OUT_STAGED);
        return;
    case OP_RESTART:
        if (r->p3) { /* release */
            if (!m->rec.wipe_active || m->rec.wipe_key != (uint64_t)r->p3) {
                finish(m, OUT_REFUSED); /* wipe_not_active */
                return;
            }
            m->rec.wipe_active = false;
            m->rec.wipe_key = 0;
            finish(m, OUT_STAGED);
            return;
        }
        if (m->cfg.role != GSVM_MISSION_PRIVATE || !party_wiped(m) || m->last_region != r->p1 ||
            !spawn_set_known(m, (uint32_t)r->p2)) {
            finish(m, OUT_REFUSED); /* party_or_spawn_unavailable */
            return;
        }
        m->rec.wipe_active = true;
        m->rec.wipe_key = r->key;
        ms_dlv_new_attempt(m);
        if (!m->rec.faulted)
            finish(m, OUT_STAGED);
        return;
    default: finish(m, OUT_STAGED); return;
    }
}

void ms_dlv_step(gsvm_mission *m)
{
    if (!m->nout)
        return;
    mreq *r = m->outbox[0];
    gsvm_error err;
    if (r->attempt < m->rec.attempt) { /* from an old attempt: dropped */
        uint64_t key = r->key;
        pop_head(m);
        ms_store_finish_request(m->store, m, key, NULL, &err);
        return;
    }
    uint64_t now = m->rec.clock;
    if (!m->dlv.active) {
        m->dlv.active = true;
        m->dlv.t0 = now;
        m->dlv.stage = 0;
        m->dlv.stage_t = now;
        gsvm_mission_request info = {r->key, r->effect[0] ? r->effect : NULL, r->call,
                                     r->args ? r->args : "{}", r->op != OP_HOST};
        gsvm_mission_answer a = GSVM_MISSION_ACCEPT;
        if (m->cfg.host.request)
            a = m->cfg.host.request(m->cfg.host.ud, &info);
        if ((int)a < GSVM_MISSION_ACCEPT || a > GSVM_MISSION_DEFER)
            a = GSVM_MISSION_REFUSE;
        m->dlv.answer = a;
        /* Remember the delivery in flight, so a reopen resumes it. */
        if (ms_store_save_meta(m->store, m, &err) != GSVM_OK) {
            ms_fault(m, err.message);
            return;
        }
    }
    uint64_t elapsed = now - m->dlv.t0;
    if (r->op != OP_HOST) {
        run_local(m, r, elapsed);
        return;
    }
    switch (m->dlv.answer) {
    case GSVM_MISSION_ACCEPT:
        finish(m, OUT_STAGED);
        return;
    case GSVM_MISSION_REFUSE:
        finish(m, OUT_REFUSED);
        return;
    case GSVM_MISSION_MISMATCH:
        m->dlv.active = false;
        ms_fault(m, "mission host revision mismatch");
        return;
    default: break;
    }
    if (elapsed >= OVERALL_MS) {
        finish(m, OUT_EXPIRED);
        return;
    }
    if (m->dlv.answer == GSVM_MISSION_DEFER) {
        uint64_t in_stage = now - m->dlv.stage_t;
        if (m->dlv.stage == 0 && elapsed >= COMMIT_WAIT_MS) {
            finish(m, OUT_REFUSED);
        } else if (m->dlv.stage == 1 && in_stage >= NETWORK_WAIT_MS) {
            m->dlv.stage = 2;
            m->dlv.stage_t = now;
            if (ms_store_save_meta(m->store, m, &err) != GSVM_OK) {
                ms_fault(m, err.message);
                return;
            }
            if (m->cfg.host.cancel)
                m->cfg.host.cancel(m->cfg.host.ud, r->key);
        } else if (m->dlv.stage == 2 && in_stage >= CANCEL_WAIT_MS) {
            m->dlv.active = false;
            ms_fault(m, "mission request cancel was not confirmed");
        }
        return;
    }
    switch (m->dlv.answer) {
    case GSVM_MISSION_STALL:
        if (elapsed >= COMMIT_WAIT_MS)
            finish(m, OUT_REFUSED);
        return;
    case GSVM_MISSION_DROP:
        if (elapsed >= COMMIT_WAIT_MS)
            finish(m, OUT_CANCELED);
        return;
    case GSVM_MISSION_PENDING:
        if (elapsed >= COMMIT_WAIT_MS + NETWORK_WAIT_MS)
            finish(m, OUT_CANCELED);
        return;
    case GSVM_MISSION_NO_CANCEL:
        if (elapsed >= COMMIT_WAIT_MS + NETWORK_WAIT_MS + CANCEL_WAIT_MS) {
            m->dlv.active = false;
            ms_fault(m, "mission request cancel was not confirmed");
        }
        return;
    default: /* UNPUBLISHED: waits for the 60 s rule */
        return;
    }
}

/* The earliest simulated time at which the delivery in flight can change
 * by itself (a deadline); `now` + 1 when it can change at once, UINT64_MAX
 * when only the host can move it (never: every delivery expires). */
uint64_t ms_dlv_next_deadline(const gsvm_mission *m)
{
    uint64_t now = m->rec.clock;
    if (!m->nout)
        return UINT64_MAX;
    if (!m->dlv.active)
        return now + 1;
    uint64_t t0 = m->dlv.t0, best = t0 + OVERALL_MS;
    uint64_t cand[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    if (m->outbox[0]->op == OP_HOST) {
        switch (m->dlv.answer) {
        case GSVM_MISSION_STALL:
        case GSVM_MISSION_DROP: cand[0] = t0 + COMMIT_WAIT_MS; break;
        case GSVM_MISSION_PENDING: cand[0] = t0 + COMMIT_WAIT_MS + NETWORK_WAIT_MS; break;
        case GSVM_MISSION_NO_CANCEL: cand[0] = t0 + COMMIT_WAIT_MS + NETWORK_WAIT_MS + CANCEL_WAIT_MS; break;
        case GSVM_MISSION_DEFER:
            cand[0] = m->dlv.stage == 0 ? t0 + COMMIT_WAIT_MS
                    : m->dlv.stage == 1 ? m->dlv.stage_t + NETWORK_WAIT_MS
                                        : m->dlv.stage_t + CANCEL_WAIT_MS;
            break;
        case GSVM_MISSION_UNPUBLISHED: break;
        default: return now + 1;
        }
    }
    for (int i = 0; i < 3; i++)
        if (cand[i] < best)
            best = cand[i];
    return best > now ? best : now + 1;
}

bool gsvm_mission_head_request(const gsvm_mission *m, gsvm_mission_request *req, bool *deferred)
{
    if (!m->nout || !m->dlv.active)
        return false;
    const mreq *r = m->outbox[0];
    if (req)
        *req = (gsvm_mission_request){r->key, r->effect[0] ? r->effect : NULL, r->call,
                                      r->args ? r->args : "{}", r->op != OP_HOST};
    if (deferred)
        *deferred = r->op == OP_HOST && m->dlv.answer == GSVM_MISSION_DEFER;
    return true;
}

/* Applies a host's outcome to the deferred head request (runtime.c pumps). */
gsvm_status ms_dlv_outcome(gsvm_mission *m, uint64_t key, gsvm_mission_outcome o, gsvm_error *err)
{
    bool deferred = false;
    gsvm_mission_request head;
    if (m->rec.faulted || !gsvm_mission_head_request(m, &head, &deferred) || !deferred || head.key != key)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "no deferred request %llu is in delivery", (unsigned long long)key);
    switch (o) {
    case GSVM_MISSION_COMMITTED:
        if (m->dlv.stage != 0)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                                  "request %llu is already committed", (unsigned long long)key);
        m->dlv.stage = 1;
        m->dlv.stage_t = m->rec.clock;
        if (ms_store_save_meta(m->store, m, err) != GSVM_OK) {
            ms_fault(m, err->message);
            gsvm_error_clear(err);
        }
        return GSVM_OK;
    case GSVM_MISSION_STAGED: finish(m, OUT_STAGED); return GSVM_OK;
    case GSVM_MISSION_REFUSED:
        if (m->dlv.stage != 0)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                                  "request %llu is committed: it can be staged or canceled, not refused",
                                  (unsigned long long)key);
        finish(m, OUT_REFUSED);
        return GSVM_OK;
    case GSVM_MISSION_CANCELED: finish(m, OUT_CANCELED); return GSVM_OK;
    default:
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "unknown outcome %d", (int)o);
    }
}
