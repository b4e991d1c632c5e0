/* A mission's reports: what clients tell the server (gsvm_mission_report,
 * _report_packet), checked against the world and the record, queued as the
 * callbacks' input; the facts kept of them whether or not a handler runs;
 * the server clock's advance and request outcomes. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

/* ---- reports ----
 * What the host learns from reports whether or not a handler runs (the last
 * region, the fireteam counts, squad populations, which slots reported
 * first) is kept in the store's `facts` table as it arrives, so a killed
 * process judges a checkpoint or a first report after its reopen exactly as
 * it would have before. */

static uint32_t first_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of `key` in first_idx: the entry holding it, or the empty one
 * where it would go (first_cap > 0). */
static uint32_t *first_slot(const gsvm_mission *m, const char *key)
{
    uint32_t mask = m->first_cap - 1, i = first_hash(key) & mask;
    while (m->first_idx[i] && strcmp(m->first_seen[m->first_idx[i] - 1], key) != 0)
        i = (i + 1) & mask;
    return &m->first_idx[i];
}

static bool first_known(const gsvm_mission *m, const char *key)
{
    return m->first_cap && *first_slot(m, key) != 0;
}

void ms_first_clear(gsvm_mission *m)
{
    m->nfirst = 0;
    if (m->first_idx)
        memset(m->first_idx, 0, m->first_cap * sizeof *m->first_idx);
}

static bool remember_first(gsvm_mission *m, const char *key)
{
    if (m->nfirst >= MS_MAX_FIRST_REPORTS)
        return false;
    if ((uint32_t)(m->nfirst + 1) * 2 > m->first_cap) {
        uint32_t nc = m->first_cap ? m->first_cap * 2 : 64;
        uint32_t *idx = calloc(nc, sizeof *idx);
        if (!idx)
            return false;
        free(m->first_idx);
        m->first_idx = idx;
        m->first_cap = nc;
        for (int i = 0; i < m->nfirst; i++)
            *first_slot(m, m->first_seen[i]) = (uint32_t)i + 1;
    }
    if (m->nfirst == m->capfirst) {
        int nc = m->capfirst ? m->capfirst * 2 : 32;
        char(*n)[80] = realloc(m->first_seen, (size_t)nc * sizeof *n);
        if (!n)
            return false;
        m->first_seen = n;
        m->capfirst = nc;
    }
    snprintf(m->first_seen[m->nfirst], sizeof m->first_seen[0], "%s", key);
    *first_slot(m, m->first_seen[m->nfirst]) = (uint32_t)m->nfirst + 1;
    m->nfirst++;
    return true;
}

static gsvm_status put_facts(gsvm_mission *m, const char *const *names, const int64_t *values, int n,
                             gsvm_error *err)
{
    gsvm_error serr;
    if (ms_store_put_facts(m->store, names, values, n, &serr) != GSVM_OK)
        return gsvm_error_set(err, serr.status, m->activity_id, "%s", serr.message);
    return GSVM_OK;
}

/* True (and recorded) when this is the slot's first report of the family. */
static gsvm_status first_report(gsvm_mission *m, const char *family, const char *slot, bool *first,
                                gsvm_error *err)
{
    char key[80];
    snprintf(key, sizeof key, "%s/%s", family, slot);
    *first = false;
    if (first_known(m, key))
        return GSVM_OK;
    if (m->nfirst >= MS_MAX_FIRST_REPORTS)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "more than %d slots made a first report (a world without declared slots"
                              " takes any slot name)",
                              MS_MAX_FIRST_REPORTS);
    if (!remember_first(m, key))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    *first = true;
    char name[96];
    snprintf(name, sizeof name, "first:%s", key);
    const char *names[] = {name};
    const int64_t one[] = {1};
    return put_facts(m, names, one, 1, err);
}

bool ms_fact_restore(gsvm_mission *m, const char *name, int64_t value)
{
    if (strcmp(name, "region") == 0)
        m->last_region = value;
    else if (strcmp(name, "ft.have") == 0)
        m->have_fireteam = value != 0;
    else if (strcmp(name, "ft.alive") == 0)
        m->ft_alive = value;
    else if (strcmp(name, "ft.dead") == 0)
        m->ft_dead = value;
    else if (strcmp(name, "ft.unknown") == 0)
        m->ft_unknown = value;
    else if (strncmp(name, "squad:", 6) == 0) {
        long row = strtol(name + 6, NULL, 10);
        if (m->squad_alive && row >= 1 && row <= m->world->nsquads)
            m->squad_alive[row - 1] = value; /* a squad the world no longer has is ignored */
    } else if (strncmp(name, "first:", 6) == 0 && strlen(name + 6) < 80) {
        return remember_first(m, name + 6);
    } else {
        return false;
    }
    return true;
}

static bool field_int(const gsvm_mission_field *f, size_t n, const char *name, int64_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0 && f[i].value.type == GSVM_MV_INT) {
            *out = f[i].value.i;
            return true;
        }
    return false;
}

static const gsvm_mission_value *field_get(const gsvm_mission_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i].value;
    return NULL;
}

/* A non-negative integer, or a decimal string of one (sequences travel as both). */
bool ms_value_u64(const gsvm_mission_value *v, uint64_t *out)
{
    if (!v)
        return false;
    if (v->type == GSVM_MV_INT && v->i >= 0) {
        *out = (uint64_t)v->i;
        return true;
    }
    if (v->type != GSVM_MV_STR || !v->s || v->len < 1 || v->len > 20)
        return false;
    uint64_t r = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (v->s[i] < '0' || v->s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(v->s[i] - '0');
        if (r > (UINT64_MAX - d) / 10)
            return false;
        r = r * 10 + d;
    }
    *out = r;
    return true;
}
#define value_u64 ms_value_u64

static int resolve_selector(const gsvm_mission *m, int what, const gsvm_mission_value *v)
{
    const gsvm_mission_world *w = m->world;
    int n = what == W_SLOT ? w->nslots : what == W_SQUAD ? w->nsquads : w->nscenes;
    if (!v)
        return 0;
    if (v->type == GSVM_MV_INT)
        return v->i >= 1 && v->i <= n ? (int)v->i : 0;
    if (v->type == GSVM_MV_STR && v->s && memchr(v->s, 0, v->len) == NULL && v->len < 64) {
        char id[64];
        memcpy(id, v->s, v->len);
        id[v->len] = 0;
        return ms_find_id(m, what, id);
    }
    return 0;
}

/* A report about a slot the world does not have is the host's mistake:
 * refused, never delivered as a report about no slot. */
static gsvm_status slot_error(const gsvm_mission *m, const gsvm_mission_value *slotv, gsvm_error *err)
{
    if (slotv->type == GSVM_MV_STR)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id, "unknown slot '%.*s'",
                              (int)(slotv->len < 64 ? slotv->len : 64), slotv->s ? slotv->s : "");
    if (slotv->type == GSVM_MV_INT)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "unknown slot row %lld (the world has %d slots)", (long long)slotv->i,
                              m->world->nslots);
    return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                          "slot must be a 1-based row (an integer) or a slot id (a string)");
}

/* A world without slots names none: there a selector (an integer or a
 * string) only tells reports apart (first reports); a world that declares
 * slots must know it.  Any other type (slot=2.5, true) is always refused. */
static bool slot_selector_ok(const gsvm_mission *m, const gsvm_mission_value *v)
{
    if (v->type == GSVM_MV_NIL)
        return true;
    return m->world->nslots == 0 && (v->type == GSVM_MV_INT || v->type == GSVM_MV_STR);
}

/* A report's fields, checked before any of it is used: at most 256, each
 * named by 1..39 bytes (a longer name was dropped without a word, so the
 * script saw a different report than the client sent). */
static gsvm_status fields_check(const gsvm_mission *m, const gsvm_mission_field *fields, size_t nfields,
                                gsvm_error *err)
{
    if (nfields > 256)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "too many event fields");
    for (size_t i = 0; i < nfields; i++) {
        size_t n = fields[i].name ? strlen(fields[i].name) : 0;
        if (n == 0 || n >= sizeof ((mfield *)0)->name)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "event field names have 1 to %zu bytes ('%.40s%s')",
                                  sizeof ((mfield *)0)->name - 1, fields[i].name ? fields[i].name : "",
                                  n > 40 ? "..." : "");
    }
    return GSVM_OK;
}

static gsvm_status report_one(gsvm_mission *m, const char *kind, const gsvm_mission_field *fields,
                              size_t nfields, bool run, gsvm_error *err)
{
    if (!m->L)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "the mission script is not loaded");
    int k = gsvm_mission_event_kind(kind);
    if (k < 0)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "unknown event kind '%s'", kind);
    if (k == EV_timer_elapsed || k == EV_effect_result || k == EV_phase_entered)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "%s is raised by the runtime, not reported", kind);
    if (fields_check(m, fields, nfields, err) != GSVM_OK)
        return err->status;
    if (!ms_event_reaches_script(k))
        return GSVM_OK;
    const gsvm_mission_value *slotv = field_get(fields, nfields, "slot");
    int row = resolve_selector(m, W_SLOT, slotv);
    if (slotv && !row && !slot_selector_ok(m, slotv))
        return slot_error(m, slotv, err);
    int64_t v;
    /* What the host records whether or not a handler exists. */
    int64_t previous_region = m->last_region;
    if ((k == EV_region_changed || k == EV_client_state_changed) &&
        field_int(fields, nfields, "region_index", &v) && v != m->last_region) {
        m->last_region = v;
        const char *names[] = {"region"};
        if (put_facts(m, names, &v, 1, err) != GSVM_OK)
            return err->status;
    }
    if (k == EV_fireteam_state) {
        m->have_fireteam = true;
        field_int(fields, nfields, "alive_count", &m->ft_alive);
        field_int(fields, nfields, "dead_count", &m->ft_dead);
        field_int(fields, nfields, "unknown_count", &m->ft_unknown);
        const char *names[] = {"ft.have", "ft.alive", "ft.dead", "ft.unknown"};
        const int64_t values[] = {1, m->ft_alive, m->ft_dead, m->ft_unknown};
        if (put_facts(m, names, values, 4, err) != GSVM_OK)
            return err->status;
        if (m->cfg.role != GSVM_MISSION_PRIVATE)
            return GSVM_OK;
    }
    if (k == EV_squad_state && m->squad_alive) {
        int sq = resolve_selector(m, W_SQUAD, field_get(fields, nfields, "squad"));
        if (sq && field_int(fields, nfields, "alive_count", &v) && v != m->squad_alive[sq - 1]) {
            m->squad_alive[sq - 1] = v;
            char name[32];
            snprintf(name, sizeof name, "squad:%d", sq);
            const char *names[] = {name};
            if (put_facts(m, names, &v, 1, err) != GSVM_OK)
                return err->status;
        }
    }
    /* What the record keeps about the slot (see mslotrec). */
    if (row > 0 && m->slotrec && (k == EV_ghost_link_state || k == EV_device_state)) {
        mslotrec *sr = &m->slotrec[row - 1];
        if (k == EV_ghost_link_state) {
            const gsvm_mission_value *pv = field_get(fields, nfields, "progress");
            const gsvm_mission_value *av = field_get(fields, nfields, "active");
            sr->gl_known = true;
            if (field_int(fields, nfields, "generation", &v))
                sr->gl_generation = v;
            if (pv && pv->type == GSVM_MV_INT)
                sr->gl_progress = (double)pv->i;
            else if (pv && pv->type == GSVM_MV_NUM && pv->n == pv->n)
                sr->gl_progress = pv->n;
            if (av && av->type == GSVM_MV_BOOL)
                sr->gl_active = av->b;
        } else {
            for (int c = 0; c < CH_COUNT; c++) {
                char name[40];
                snprintf(name, sizeof name, "%s_sequence", ms_channel_names[c]);
                uint64_t seq;
                if (value_u64(field_get(fields, nfields, name), &seq)) {
                    sr->rep_known[c] = true;
                    sr->rep_seq[c] = seq;
                }
            }
        }
        gsvm_error serr;
        if (ms_store_put_slot(m->store, m, row, &serr) != GSVM_OK)
            return gsvm_error_set(err, serr.status, m->activity_id, "%s", serr.message);
    }
    /* First reports: recorded silently for some kinds, flagged for devices. */
    int fr = ms_event_first_report_rule(k);
    bool first = false;
    if (fr != FR_NONE) {
        char sel[64] = "";
        if (slotv && slotv->type == GSVM_MV_STR)
            snprintf(sel, sizeof sel, "%.*s", (int)(slotv->len < 60 ? slotv->len : 60), slotv->s);
        else if (slotv && slotv->type == GSVM_MV_INT)
            snprintf(sel, sizeof sel, "#%lld", (long long)slotv->i);
        const char *family = (k == EV_trigger_entered || k == EV_trigger_exited) ? "trigger" : kind;
        if (first_report(m, family, sel, &first, err) != GSVM_OK)
            return err->status;
        if (first && fr == FR_SILENT)
            return GSVM_OK;
    }
    if (m->ref_event[k] == LUA_NOREF || m->rec.faulted)
        return GSVM_OK; /* a kind without a handler is not even queued */
    mevent *e = ms_mevent_new(k);
    if (!e)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    e->attempt = m->rec.attempt;
    e->slot_row = row;
    bool ok = true;
    for (size_t i = 0; i < nfields && ok; i++) {
        const gsvm_mission_field *f = &fields[i];
        if (strcmp(f->name, "slot") == 0)
            continue;
        if (strcmp(f->name, "source_generation") == 0 && f->value.type == GSVM_MV_INT && f->value.i > 0) {
            e->source_generation = (uint64_t)f->value.i;
            continue;
        }
        switch (f->value.type) {
        case GSVM_MV_BOOL: ok = ms_mevent_set_bool(e, f->name, f->value.b); break;
        case GSVM_MV_INT: ok = ms_mevent_set_int(e, f->name, f->value.i); break;
        case GSVM_MV_NUM: ok = ms_mevent_set_num(e, f->name, f->value.n); break;
        case GSVM_MV_STR: ok = ms_mevent_set_str(e, f->name, f->value.s ? f->value.s : "", f->value.len); break;
        default: ok = ms_mevent_set_nil(e, f->name); break;
        }
    }
    const wslot *ws = ms_world_slot(m, row);
    if (ok && ws) {
        if (!ms_mevent_get(e, "registry_key"))
            ok = ms_mevent_set_str(e, "registry_key", ws->registry_key, strlen(ws->registry_key));
        if (ok && !ms_mevent_get(e, "object_tag"))
            ok = ms_mevent_set_int(e, "object_tag", ws->tag);
        if (ok && !ms_mevent_get(e, "slot_index"))
            ok = ms_mevent_set_int(e, "slot_index", row);
        if (ok && !ms_mevent_get(e, "slot_type"))
            ok = ms_mevent_set_int(e, "slot_type", ws->type);
    }
    /* region_changed: previous_region_index is nil the first time. */
    if (ok && k == EV_region_changed && !ms_mevent_get(e, "previous_region_index") && previous_region >= 0)
        ok = ms_mevent_set_int(e, "previous_region_index", previous_region);
    if (ok && fr == FR_FLAG && !ms_mevent_get(e, "first_report"))
        ok = ms_mevent_set_bool(e, "first_report", first);
    if (!ok) {
        ms_mevent_free(e);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    }
    ms_input_push(m, e);
    if (run)
        ms_pump(m);
    return GSVM_OK;
}

gsvm_status gsvm_mission_report(gsvm_mission *m, const char *kind,
                                const gsvm_mission_field *fields, size_t nfields, gsvm_error *err)
{
    gsvm_error_clear(err);
    return report_one(m, kind, fields, nfields, true, err);
}

/* The place of a kind within one client packet: the report itself first
 * (region_changed right after its state report), then the derived events in
 * the documented order: trigger, Ghost link, object, damage monitor, actor
 * path, squad, combatant damage, device, scene, objective.  An incident's
 * player_trigger thus precedes its cinematic events. */
static int packet_rank(int kind)
{
    switch (kind) {
    case EV_sensor_sense_updated:
    case EV_client_state_changed:
    case EV_client_message_received:
    case EV_incident_received: return 0;
    case EV_region_changed: return 1;
    case EV_trigger_entered:
    case EV_trigger_exited:
    case EV_player_trigger: return 2;
    case EV_ghost_link_state: return 3;
    case EV_object_state:
    case EV_object_interacted: return 4;
    case EV_damage_state: return 5;
    case EV_actor_path_state: return 6;
    case EV_squad_state:
    case EV_entity_spawned:
    case EV_squad_provoked: return 7;
    case EV_entity_died: return 8;
    case EV_device_state: return 9;
    case EV_scene_finished:
    case EV_cinematic_started:
    case EV_cinematic_terminated:
    case EV_cinematic_skip_requested: return 10;
    case EV_objective_progress: return 11;
    default: return 12;
    }
}

gsvm_status gsvm_mission_report_packet(gsvm_mission *m, const gsvm_mission_report_item *items,
                                       size_t n, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (n > 1024)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "a packet holds at most 1024 reports");
    size_t order[1024];
    for (size_t i = 0; i < n; i++) {
        if (gsvm_mission_event_kind(items[i].kind) < 0)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "unknown event kind '%s'",
                                  items[i].kind ? items[i].kind : "(null)");
        int k = gsvm_mission_event_kind(items[i].kind);
        if (k == EV_timer_elapsed || k == EV_effect_result || k == EV_phase_entered)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                                  "%s is raised by the runtime, not reported", items[i].kind);
        /* The whole packet is checked before any of it is queued. */
        if (fields_check(m, items[i].fields, items[i].nfields, err) != GSVM_OK)
            return err->status;
        const gsvm_mission_value *sv = field_get(items[i].fields, items[i].nfields, "slot");
        if (sv && ms_event_reaches_script(k) && !resolve_selector(m, W_SLOT, sv) && !slot_selector_ok(m, sv))
            return slot_error(m, sv, err);
        /* A stable insertion by rank keeps the client's order within a rank. */
        int r = packet_rank(k);
        size_t j = i;
        while (j > 0 && packet_rank(gsvm_mission_event_kind(items[order[j - 1]].kind)) > r) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t i = 0; i < n; i++) {
        const gsvm_mission_report_item *it = &items[order[i]];
        gsvm_status st = report_one(m, it->kind, it->fields, it->nfields, false, err);
        if (st != GSVM_OK)
            return st;
    }
    ms_pump(m);
    return GSVM_OK;
}

/* The earliest simulated time at which something can run by itself: the
 * pending start (next tick), the delivery's next deadline, the earliest timer
 * (a due one that waits for its tick: the next tick); UINT64_MAX for none.
 * Reports and queued events need no tick: they run as soon as nothing holds
 * them back, which is one of these. */
static uint64_t next_wake(const gsvm_mission *m)
{
    uint64_t now = m->rec.clock;
    if (!m->L || m->rec.faulted)
        return UINT64_MAX;
    if (!m->rec.started)
        return m->start_waiting && m->published ? now + 1 : UINT64_MAX;
    uint64_t best = ms_dlv_next_deadline(m);
    if (m->nout)
        return best; /* nothing else runs during a delivery */
    for (int i = 0; i < m->rec.timers.n; i++) {
        uint64_t d = m->rec.timers.t[i].deadline;
        if (d <= now)
            d = now + 1;
        if (d < best)
            best = d;
    }
    if (m->inputs.n || m->events.n)
        best = now + 1; /* something waits for the pump (after a fault was cleared) */
    return best;
}

gsvm_status gsvm_mission_advance(gsvm_mission *m, uint64_t ms, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (ms > GSVM_MISSION_MAX_CLOCK_MS || m->rec.clock > GSVM_MISSION_MAX_CLOCK_MS - ms)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "the clock would pass 2^53 ms (now %llu ms, advance %llu ms)",
                              (unsigned long long)m->rec.clock, (unsigned long long)ms);
    uint64_t tick = m->cfg.tick_ms, target = m->rec.clock + ms;
    for (;;) {
        uint64_t next = (m->rec.clock / tick + 1) * tick;
        /* Skip the idle ticks: jump to the tick of the next thing that can happen. */
        uint64_t wake = next_wake(m);
        if (wake > next) {
            if (wake > target)
                break;
            next = (wake + tick - 1) / tick * tick;
        }
        if (next > target)
            break;
        m->rec.clock = next;
        m->timer_fired_this_tick = false;
        ms_run_pending_start(m);
        ms_pump(m);
    }
    m->rec.clock = target;
    return GSVM_OK;
}

gsvm_status gsvm_mission_report_outcome(gsvm_mission *m, uint64_t key, gsvm_mission_outcome outcome,
                                 gsvm_error *err)
{
    gsvm_error_clear(err);
    if (m->in_pump)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "an outcome is reported after the request callback returned, not inside it");
    gsvm_status st = ms_dlv_outcome(m, key, outcome, err);
    if (st == GSVM_OK)
        ms_pump(m);
    return st;
}

size_t gsvm_mission_memory_used(const gsvm_mission *m) { return m->lim.arena_used; }
