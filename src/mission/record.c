/* What a host reads of a mission's committed record (gsvm/mission.h):
 * phase, revision, attempt, clock, fault, variables and timers. */
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

uint32_t gsvm_mission_phase(const gsvm_mission *m) { return m->rec.phase; }
uint64_t gsvm_mission_revision(const gsvm_mission *m) { return m->rec.revision; }
uint64_t gsvm_mission_attempt(const gsvm_mission *m) { return m->rec.attempt; }
uint64_t gsvm_mission_now_ms(const gsvm_mission *m) { return m->rec.clock; }
uint32_t gsvm_mission_tick_ms(const gsvm_mission *m) { return m->cfg.tick_ms; }
bool gsvm_mission_faulted(const gsvm_mission *m) { return m->rec.faulted; }
const char *gsvm_mission_fault_text(const gsvm_mission *m) { return m->rec.faulted ? m->rec.fault : ""; }
size_t gsvm_mission_variable_count(const gsvm_mission *m) { return m->rec.vars.count; }
size_t gsvm_mission_timer_count(const gsvm_mission *m) { return (size_t)m->rec.timers.n; }
size_t gsvm_mission_pending_requests(const gsvm_mission *m) { return (size_t)m->nout; }
uint64_t gsvm_mission_callbacks_run(const gsvm_mission *m) { return m->callbacks; }

static void export_value(const mval *v, gsvm_mission_value *out)
{
    memset(out, 0, sizeof *out);
    out->type = (gsvm_mission_vtype)v->type;
    out->b = v->b;
    out->i = v->i;
    out->n = v->n;
    out->s = v->s;
    out->len = v->len;
}

bool gsvm_mission_foreach_variable(const gsvm_mission *m,
                                   void (*fn)(void *ud, const char *name, const gsvm_mission_value *v),
                                   void *ud)
{
    mvar **sorted = ms_vmap_sorted(&m->rec.vars);
    if (!sorted)
        return false;
    for (uint32_t i = 0; i < m->rec.vars.count; i++) {
        gsvm_mission_value v;
        export_value(&sorted[i]->v, &v);
        fn(ud, sorted[i]->name, &v);
    }
    free(sorted);
    return true;
}

bool gsvm_mission_variable(const gsvm_mission *m, const char *name, gsvm_mission_value *value)
{
    mvar *v = ms_vmap_get(&m->rec.vars, name, strlen(name));
    if (!v)
        return false;
    export_value(&v->v, value);
    return true;
}

bool gsvm_mission_timer_at(const gsvm_mission *m, size_t i, const char **name,
                           uint64_t *deadline_ms, uint64_t *sequence)
{
    if (i >= (size_t)m->rec.timers.n)
        return false;
    *name = m->rec.timers.t[i].name;
    *deadline_ms = m->rec.timers.t[i].deadline;
    *sequence = m->rec.timers.t[i].seq;
    return true;
}
