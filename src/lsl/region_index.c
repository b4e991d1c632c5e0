/* The region's indexes (gsvm/lsl_region.h): the run queue of scripts with
 * work, the one timer heap of every script's next deadline, and the listen
 * index from channel to the scripts listening on it.  Each is touched only
 * for scripts whose state changes, so idle scripts cost nothing per frame. */
#include <stdlib.h>
#include <string.h>

#include "lsl/region_int.h"

/* ---- the run queue ----------------------------------------------------------- */

static bool runq_reserve(gsvm_lsl_region *r)
{
    if (r->rq_cap >= r->nscripts + 1)
        return true;
    size_t nc = r->rq_cap ? r->rq_cap : 16;
    while (nc < r->nscripts + 1)
        nc *= 2;
    uint32_t *n = rg_realloc(r, NULL, nc * sizeof *n);
    if (!n)
        return false;
    for (size_t i = 0; i < r->rq_count; i++)
        n[i] = r->runq[(r->rq_head + i) % r->rq_cap];
    rg_free(r, r->runq);
    r->runq = n;
    r->rq_cap = nc;
    r->rq_head = 0;
    return true;
}

void rg_runq_push(gsvm_lsl_region *r, rg_script *s, bool front)
{
    if (s->in_runq || s->dead || !runq_reserve(r))
        return;
    if (front) {
        r->rq_head = (r->rq_head + r->rq_cap - 1) % r->rq_cap;
        r->runq[r->rq_head] = s->index;
    } else {
        r->runq[(r->rq_head + r->rq_count) % r->rq_cap] = s->index;
    }
    r->rq_count++;
    s->in_runq = true;
}

rg_script *rg_runq_pop(gsvm_lsl_region *r)
{
    if (r->rq_count == 0)
        return NULL;
    rg_script *s = r->scripts[r->runq[r->rq_head]];
    r->rq_head = (r->rq_head + 1) % r->rq_cap;
    r->rq_count--;
    s->in_runq = false;
    return s;
}

void rg_make_runnable(gsvm_lsl_region *r, rg_script *s) { rg_runq_push(r, s, false); }

/* ---- the timer heap ----------------------------------------------------------- */

static void heap_swap(gsvm_lsl_region *r, size_t a, size_t b)
{
    uint32_t t = r->heap[a];
    r->heap[a] = r->heap[b];
    r->heap[b] = t;
    r->scripts[r->heap[a]]->heap_pos = (uint32_t)a;
    r->scripts[r->heap[b]]->heap_pos = (uint32_t)b;
}

static uint64_t heap_key(const gsvm_lsl_region *r, size_t i) { return r->scripts[r->heap[i]]->deadline; }

static void heap_up(gsvm_lsl_region *r, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (heap_key(r, p) <= heap_key(r, i))
            break;
        heap_swap(r, i, p);
        i = p;
    }
}

static void heap_down(gsvm_lsl_region *r, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < r->nheap && heap_key(r, l) < heap_key(r, m))
            m = l;
        if (l + 1 < r->nheap && heap_key(r, l + 1) < heap_key(r, m))
            m = l + 1;
        if (m == i)
            return;
        heap_swap(r, i, m);
        i = m;
    }
}


void rg_heap_remove(gsvm_lsl_region *r, rg_script *s)
{
    if (s->heap_pos == RG_NO_POS)
        return;
    size_t i = s->heap_pos;
    r->nheap--;
    if (i != r->nheap) {
        heap_swap(r, i, r->nheap);
        heap_down(r, i);
        heap_up(r, i);
    }
    s->heap_pos = RG_NO_POS;
}

/* Puts the script in the heap under its next deadline (timer due or wake),
 * or takes it out when it has none. */
void rg_heap_update(gsvm_lsl_region *r, rg_script *s)
{
    uint64_t at;
    if (s->dead || !s->vm || !lsl_sched_next_deadline(&s->vm->sched, &at)) {
        rg_heap_remove(r, s);
        return;
    }
    if (s->heap_pos != RG_NO_POS) {
        if (at == s->deadline)
            return;
        s->deadline = at;
        heap_down(r, s->heap_pos);
        heap_up(r, s->heap_pos);
        return;
    }
    if (!GROW(r->heap, r->capheap, r->nheap + 1))
        return; /* out of memory: the timer stays silent until the next update */
    s->deadline = at;
    r->heap[r->nheap] = s->index;
    s->heap_pos = (uint32_t)r->nheap++;
    heap_up(r, s->heap_pos);
}

void rg_sync_clock(gsvm_lsl_region *r, rg_script *s)
{
    if (!s->vm)
        return; /* ABI 2: no timers, no sleeps */
    lsl_sched *sc = &s->vm->sched;
    if (sc->now_ms >= r->now_ms)
        return;
    lsl_sched_report rep;
    if (s->dead || lsl_sched_advance(sc, r->now_ms - sc->now_ms, &rep, NULL) != GSVM_OK)
        return;
    r->st.timers_fired += rep.timers_queued;
    if (rep.timers_queued || rep.woke)
        rg_make_runnable(r, s);
    rg_heap_update(r, s);
}

bool rg_handles(const rg_script *s, int event)
{
    if (s->vm)
        return (s->vm->sched.handled >> event) & 1u;
    return event == RG_EV_TOUCH_START ? gsvm_lsl_program_has_event(s->region->progs[s->prog].prog2, "touch_start")
                                      : event == RG_EV_STATE_ENTRY;
}

/* ---- the listen index ----------------------------------------------------------- */

static uint32_t chan_hash(int32_t c)
{
    uint32_t x = (uint32_t)c * 0x9e3779b1u;
    return x ^ (x >> 15);
}

rg_chan *rg_chan_find(gsvm_lsl_region *r, int32_t c)
{
    if (!r->capchans)
        return NULL;
    for (size_t i = chan_hash(c) & (r->capchans - 1);; i = (i + 1) & (r->capchans - 1)) {
        if (!r->chans[i].used)
            return NULL;
        if (r->chans[i].channel == c)
            return &r->chans[i];
    }
}

static rg_chan *chan_add(gsvm_lsl_region *r, int32_t c)
{
    rg_chan *f = rg_chan_find(r, c);
    if (f)
        return f;
    if ((r->nchans_used + 1) * 2 > r->capchans) {
        size_t nc = r->capchans ? r->capchans * 2 : 64;
        rg_chan *n = rg_calloc(r, nc, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < r->capchans; i++) {
            if (!r->chans[i].used)
                continue;
            size_t k = chan_hash(r->chans[i].channel) & (nc - 1);
            while (n[k].used)
                k = (k + 1) & (nc - 1);
            n[k] = r->chans[i];
        }
        rg_free(r, r->chans);
        r->chans = n;
        r->capchans = nc;
    }
    size_t k = chan_hash(c) & (r->capchans - 1);
    while (r->chans[k].used)
        k = (k + 1) & (r->capchans - 1);
    r->chans[k].used = true;
    r->chans[k].channel = c;
    r->nchans_used++;
    return &r->chans[k];
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Brings the index to the script's open listens (a channel stays listed,
 * empty, once used: channels are few and lookups stay O(1)). */
void rg_reindex(gsvm_lsl_region *r, rg_script *s)
{
    const lsl_sched *sc = s->vm ? &s->vm->sched : NULL; /* ABI 2 has no listens */
    int32_t now[LSL_SCHED_LISTEN_MAX];
    unsigned n = 0;
    if (!s->dead && sc)
        for (unsigned i = 0; i < sc->nlistens; i++)
            now[n++] = sc->listens[i].channel;
    qsort(now, n, sizeof now[0], cmp_i32);
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++)
        if (u == 0 || now[u - 1] != now[i])
            now[u++] = now[i];
    if (u == s->nchans && (u == 0 || memcmp(now, s->chans, u * sizeof now[0]) == 0))
        return;
    for (unsigned i = 0; i < s->nchans; i++) {
        rg_chan *c = rg_chan_find(r, s->chans[i]);
        for (uint32_t k = 0; c && k < c->n; k++)
            if (c->scripts[k] == s->index) {
                memmove(&c->scripts[k], &c->scripts[k + 1], (c->n - k - 1) * sizeof c->scripts[0]);
                c->n--;
                break;
            }
    }
    s->nchans = 0;
    if (u > s->capchans) {
        int32_t *nc = rg_realloc(r, s->chans, u * sizeof *nc);
        if (!nc)
            return;
        s->chans = nc;
        s->capchans = u;
    }
    for (unsigned i = 0; i < u; i++) {
        rg_chan *c = chan_add(r, now[i]);
        if (!c)
            break;
        size_t cap = c->cap;
        if (!GROW(c->scripts, cap, c->n + 1))
            break;
        c->cap = (uint32_t)cap;
        /* kept in script order so delivery order is the world's order */
        uint32_t k = c->n;
        while (k > 0 && c->scripts[k - 1] > s->index)
            k--;
        memmove(&c->scripts[k + 1], &c->scripts[k], (c->n - k) * sizeof c->scripts[0]);
        c->scripts[k] = s->index;
        c->n++;
        s->chans[s->nchans++] = now[i];
    }
}
