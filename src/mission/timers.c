/* Mission timers: at most 32, kept sorted by name in a fixed array, so a
 * transaction copies them whole (a bounded, constant cost) on first write. */
#include <string.h>

#include "mission/internal.h"

int ms_timers_find(const mtimers *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->t[i].name, name) == 0)
            return i;
    return -1;
}

bool ms_timers_set(mtimers *t, const char *name, uint64_t deadline, uint64_t seq)
{
    int i = ms_timers_find(t, name);
    if (i >= 0) {
        t->t[i].deadline = deadline;
        t->t[i].seq = seq;
        return true;
    }
    if (t->n >= (int)GSVM_MISSION_MAX_TIMERS)
        return false;
    int at = 0;
    while (at < t->n && strcmp(t->t[at].name, name) < 0)
        at++;
    memmove(&t->t[at + 1], &t->t[at], (size_t)(t->n - at) * sizeof t->t[0]);
    memset(&t->t[at], 0, sizeof t->t[at]);
    strncpy(t->t[at].name, name, GSVM_MISSION_MAX_NAME);
    t->t[at].deadline = deadline;
    t->t[at].seq = seq;
    t->n++;
    return true;
}

bool ms_timers_remove(mtimers *t, const char *name)
{
    int i = ms_timers_find(t, name);
    if (i < 0)
        return false;
    memmove(&t->t[i], &t->t[i + 1], (size_t)(t->n - i - 1) * sizeof t->t[0]);
    t->n--;
    return true;
}

int ms_timers_due(const mtimers *t, uint64_t now)
{
    int best = -1;
    for (int i = 0; i < t->n; i++) {
        if (t->t[i].deadline > now)
            continue;
        if (best < 0 || t->t[i].deadline < t->t[best].deadline ||
            (t->t[i].deadline == t->t[best].deadline && t->t[i].seq < t->t[best].seq))
            best = i;
    }
    return best;
}
