/* The per-script event queue, timer, sleep, script time and listens (see
 * sched.h for the Second Life rules they follow).
 *
 * Snapshot layout (all little-endian), version 1:
 *   u8  version                 1
 *   u64 now_ms                  <= LSL_SCHED_MAX_TIME_MS
 *   u64 time_base_ms            <= now_ms
 *   u64 wake_ms                 <= now_ms + LSL_SCHED_MAX_DELAY_MS
 *   u64 timer_period_ms         <= LSL_SCHED_MAX_DELAY_MS (0 = off)
 *   u64 timer_due_ms            0 when off, else now < due <= now + period
 *   u64 handled                 only bits of defined events
 *   u64 dropped
 *   i32 next_handle             >= 1
 *   u8  queue count             <= 64, then per event:
 *         u8 event index        a defined event other than state_entry/exit
 *         the arguments         value codec, types exactly the signature's
 *                               (at most one timer event in the queue)
 *   u8  listen count            <= 65, then per listen, in creation order:
 *         i32 handle            increasing, 1 <= handle < next_handle
 *         i32 channel
 *         u8  active            0 or 1
 *         u32 name length + bytes (no NUL byte, <= LSL_MAX_STRING_BYTES)
 *         u8  has key (0/1) [+ 36 bytes: a lower-case UUID, not NULL_KEY]
 *         u32 message length + bytes (as the name)
 * A queued entry costs the script nothing of its own (see sched.h); its
 * arguments' objects are in the script's heap and charged there. */
#include "lsl/sched.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "lsl/builtins.h"

#define SCHED_VERSION 1u

/* ---- helpers -------------------------------------------------------------- */

static const lsl_event_def *event_def(int event)
{
    size_t n;
    const lsl_event_def *defs = lsl_events(&n);
    if (event < 0 || (size_t)event >= n)
        return NULL;
    return &defs[event];
}

uint64_t lsl_sched_all_events(void)
{
    size_t n;
    lsl_events(&n);
    return n >= 64 ? UINT64_MAX : ((UINT64_C(1) << n) - 1);
}

static lsl_heap *value_heap(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: return v->u.s ? v->u.s->heap : NULL;
    case LSL_TYPE_LIST: return v->u.l ? v->u.l->heap : NULL;
    default: return NULL;
    }
}

static bool value_has_object(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: return v->u.s != NULL;
    case LSL_TYPE_LIST: return v->u.l != NULL;
    default: return false;
    }
}

/* Is `s` (36 bytes, a UUID) all zeros? */
static bool uuid_is_null(const char *s)
{
    for (size_t i = 0; i < 36; i++)
        if (s[i] != '-' && s[i] != '0')
            return false;
    return true;
}

/* Room for one more listen (at most LSL_SCHED_LISTEN_MAX). */
static bool listen_room(lsl_sched *s)
{
    if (s->nlistens < s->lcap)
        return true;
    unsigned nc = s->lcap ? s->lcap * 2 : 2;
    if (nc > LSL_SCHED_LISTEN_MAX)
        nc = LSL_SCHED_LISTEN_MAX;
    if (nc <= s->nlistens)
        return false;
    lsl_listen *n = lsl_heap_realloc(s->heap, s->listens, nc * sizeof *n);
    if (!n)
        return false;
    memset(n + s->lcap, 0, (nc - s->lcap) * sizeof *n);
    s->listens = n;
    s->lcap = nc;
    return true;
}

/* A filter's text, from the script heap's allocator (NUL-terminated). */
static char *dup_text(const lsl_sched *s, const void *p, size_t n)
{
    char *d = lsl_heap_realloc(s->heap, NULL, n + 1);
    if (d) {
        memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

static void listen_free(const lsl_sched *s, lsl_listen *l)
{
    lsl_heap_free(s->heap, l->name);
    lsl_heap_free(s->heap, l->key);
    lsl_heap_free(s->heap, l->msg);
    memset(l, 0, sizeof *l);
}

/* ---- life cycle ----------------------------------------------------------- */

void lsl_sched_init(lsl_sched *s, lsl_heap *heap, uint64_t now_ms)
{
    memset(s, 0, sizeof *s);
    s->heap = heap;
    s->now_ms = now_ms > LSL_SCHED_MAX_TIME_MS ? LSL_SCHED_MAX_TIME_MS : now_ms;
    s->time_base_ms = s->now_ms;
    s->handled = lsl_sched_all_events();
    s->next_handle = 1;
}

/* Room for one more queued event (false: the ring could not grow). */
static bool queue_room(lsl_sched *s)
{
    if (s->count < s->qcap)
        return true;
    unsigned nc = s->qcap ? s->qcap * 2 : 4;
    if (nc > LSL_SCHED_QUEUE_MAX)
        return false;
    lsl_sched_event *n = lsl_heap_realloc(s->heap, NULL, nc * sizeof *n);
    if (!n)
        return false;
    memset(n, 0, nc * sizeof *n);
    for (unsigned i = 0; i < s->count; i++)
        n[i] = s->queue[(s->head + i) & (s->qcap - 1)];
    lsl_heap_free(s->heap, s->queue);
    s->queue = n;
    s->qcap = nc;
    s->head = 0;
    return true;
}

static lsl_sched_event *queue_tail(lsl_sched *s)
{
    return &s->queue[(s->head + s->count) & (s->qcap - 1)];
}

void lsl_sched_trim(lsl_sched *s)
{
    if (s->count == 0 && s->queue) {
        lsl_heap_free(s->heap, s->queue);
        s->queue = NULL;
        s->qcap = 0;
        s->head = 0;
    }
}

void lsl_sched_clear_queue(lsl_sched *s)
{
    while (s->count > 0) {
        lsl_sched_event ev;
        lsl_sched_pop(s, &ev);
        lsl_sched_event_release(&ev);
    }
    s->head = 0;
    s->timer_queued = false;
}

static void clear_listens(lsl_sched *s)
{
    for (unsigned i = 0; i < s->nlistens; i++)
        listen_free(s, &s->listens[i]);
    s->nlistens = 0;
}

void lsl_sched_free(lsl_sched *s)
{
    lsl_heap *heap = s->heap;
    uint64_t now = s->now_ms;
    lsl_sched_clear_queue(s);
    clear_listens(s);
    lsl_heap_free(heap, s->queue);
    lsl_heap_free(heap, s->listens);
    lsl_sched_init(s, heap, now);
}

void lsl_sched_reset(lsl_sched *s)
{
    uint64_t dropped = s->dropped;
    lsl_sched_free(s);
    s->dropped = dropped;
}

void lsl_sched_state_change(lsl_sched *s)
{
    lsl_sched_clear_queue(s);
    clear_listens(s);
}

void lsl_sched_set_handled(lsl_sched *s, uint64_t mask)
{
    s->handled = mask & lsl_sched_all_events();
}

/* ---- clock ---------------------------------------------------------------- */

uint64_t lsl_sched_seconds_to_ms(double seconds)
{
    if (!(seconds > 0)) /* NaN, zero, negative */
        return 0;
    double ms = floor(seconds * 1000.0 + 0.5);
    if (ms >= (double)LSL_SCHED_MAX_DELAY_MS)
        return LSL_SCHED_MAX_DELAY_MS;
    return (uint64_t)ms;
}

bool lsl_sched_next_deadline(const lsl_sched *s, uint64_t *at_ms)
{
    bool any = false;
    uint64_t at = 0;
    if (s->timer_period_ms) {
        at = s->timer_due_ms;
        any = true;
    }
    if (lsl_sched_sleeping(s) && (!any || s->wake_ms < at)) {
        at = s->wake_ms;
        any = true;
    }
    if (any && at_ms)
        *at_ms = at;
    return any;
}

/* Tries to queue a timer event (no arguments).  Gives whether it was added. */
static bool queue_timer(lsl_sched *s)
{
    if (s->timer_queued || !(s->handled & (UINT64_C(1) << LSL_SCHED_EV_TIMER)))
        return false;
    if (s->count >= LSL_SCHED_QUEUE_MAX || !queue_room(s)) {
        s->dropped++;
        return false;
    }
    lsl_sched_event *ev = queue_tail(s);
    memset(ev, 0, sizeof *ev);
    ev->event = LSL_SCHED_EV_TIMER;
    ev->nargs = 0;
    s->count++;
    s->timer_queued = true;
    return true;
}

gsvm_status lsl_sched_advance(lsl_sched *s, uint64_t ms, lsl_sched_report *rep, gsvm_error *err)
{
    lsl_sched_report r = {0};
    if (ms > LSL_SCHED_MAX_TIME_MS - s->now_ms)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL,
                              "advancing %llu ms would pass the simulation clock's limit",
                              (unsigned long long)ms);
    uint64_t target = s->now_ms + ms;
    bool was_sleeping = lsl_sched_sleeping(s);
    if (s->timer_period_ms && s->timer_due_ms <= target) {
        /* The first due time may queue an event; nothing can take it out of
         * the queue before `target` (no code runs inside an advance), so
         * every later due time on the way is coalesced: count them at once
         * instead of looping over possibly billions of periods. */
        if (queue_timer(s))
            r.timers_queued++;
        else
            r.timers_coalesced++;
        s->timer_due_ms += s->timer_period_ms;
        if (s->timer_due_ms <= target) {
            uint64_t k = (target - s->timer_due_ms) / s->timer_period_ms + 1;
            r.timers_coalesced += k > UINT32_MAX ? UINT32_MAX : (unsigned)k;
            s->timer_due_ms += k * s->timer_period_ms;
        }
    }
    s->now_ms = target;
    r.woke = was_sleeping && !lsl_sched_sleeping(s);
    r.runnable = lsl_sched_runnable(s);
    if (rep)
        *rep = r;
    return GSVM_OK;
}

/* ---- sleep, time, timer --------------------------------------------------- */

void lsl_sched_sleep_ms(lsl_sched *s, uint64_t ms)
{
    if (ms == 0)
        return;
    if (ms > LSL_SCHED_MAX_DELAY_MS)
        ms = LSL_SCHED_MAX_DELAY_MS;
    uint64_t wake = s->now_ms + ms;
    if (wake > s->wake_ms)
        s->wake_ms = wake;
}

void lsl_sched_sleep(lsl_sched *s, double seconds)
{
    lsl_sched_sleep_ms(s, lsl_sched_seconds_to_ms(seconds));
}

float lsl_sched_get_time(const lsl_sched *s)
{
    return (float)((double)(s->now_ms - s->time_base_ms) / 1000.0);
}

void lsl_sched_reset_time(lsl_sched *s) { s->time_base_ms = s->now_ms; }

float lsl_sched_get_and_reset_time(lsl_sched *s)
{
    float t = lsl_sched_get_time(s);
    lsl_sched_reset_time(s);
    return t;
}

void lsl_sched_set_timer(lsl_sched *s, double seconds)
{
    if (!(seconds > 0)) {
        s->timer_period_ms = 0;
        s->timer_due_ms = 0;
        return;
    }
    uint64_t ms = lsl_sched_seconds_to_ms(seconds);
    if (ms == 0)
        ms = 1; /* any positive period enables the timer */
    s->timer_period_ms = ms;
    s->timer_due_ms = s->now_ms + ms;
}

/* ---- event queue ---------------------------------------------------------- */

gsvm_status lsl_sched_push(lsl_sched *s, int event, const lsl_value *args, size_t n, bool *queued,
                           gsvm_error *err)
{
    if (queued)
        *queued = false;
    const lsl_event_def *def = event_def(event);
    if (!def)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no event with index %d", event);
    if (event == LSL_SCHED_EV_STATE_ENTRY || event == LSL_SCHED_EV_STATE_EXIT)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s is run by the VM, never queued",
                              def->name);
    if (n != def->nargs || n > LSL_SCHED_EVENT_MAX_ARGS)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s takes %u arguments, not %zu",
                              def->name, def->nargs, n);
    for (size_t i = 0; i < n; i++) {
        lsl_type want = lsl_type_from_letter(def->argtypes[i]);
        lsl_type got = args[i].type;
        bool ok = got == want || ((got == LSL_TYPE_STRING || got == LSL_TYPE_KEY) &&
                                  (want == LSL_TYPE_STRING || want == LSL_TYPE_KEY));
        if (!ok)
            return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                                  "%s argument %zu must be %s, not %s", def->name, i + 1,
                                  lsl_type_name(want), lsl_type_name(got));
    }
    if (!(s->handled & (UINT64_C(1) << event)))
        return GSVM_OK; /* no handler in this state: SL does not queue it */
    if (event == LSL_SCHED_EV_TIMER && s->timer_queued)
        return GSVM_OK; /* coalesced */
    if (s->count >= LSL_SCHED_QUEUE_MAX) {
        s->dropped++;
        return GSVM_OK;
    }
    if (!queue_room(s))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory for the event queue");
    lsl_sched_event ev;
    memset(&ev, 0, sizeof ev);
    ev.event = event;
    ev.nargs = (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        lsl_type want = lsl_type_from_letter(def->argtypes[i]);
        gsvm_status st = GSVM_OK;
        if (value_has_object(&args[i]) && value_heap(&args[i]) != s->heap) {
            st = lsl_value_copy_to(s->heap, &args[i], &ev.args[i], err);
        } else {
            ev.args[i] = args[i];
            lsl_value_retain(&ev.args[i]);
        }
        if (st) {
            for (size_t k = 0; k < i; k++)
                lsl_value_release(&ev.args[k]);
            return st;
        }
        ev.args[i].type = want; /* a string given for a key, or the reverse */
    }
    *queue_tail(s) = ev;
    s->count++;
    if (event == LSL_SCHED_EV_TIMER)
        s->timer_queued = true;
    if (queued)
        *queued = true;
    return GSVM_OK;
}

bool lsl_sched_pop(lsl_sched *s, lsl_sched_event *out)
{
    if (s->count == 0)
        return false;
    lsl_sched_event *ev = &s->queue[s->head];
    *out = *ev;
    memset(ev, 0, sizeof *ev);
    s->head = (s->head + 1) & (s->qcap - 1);
    s->count--;
    if (out->event == LSL_SCHED_EV_TIMER)
        s->timer_queued = false;
    return true;
}

const lsl_sched_event *lsl_sched_peek(const lsl_sched *s, unsigned i)
{
    if (i >= s->count)
        return NULL;
    return &s->queue[(s->head + i) & (s->qcap - 1)];
}

void lsl_sched_event_release(lsl_sched_event *ev)
{
    for (unsigned i = 0; i < ev->nargs && i < LSL_SCHED_EVENT_MAX_ARGS; i++)
        lsl_value_release(&ev->args[i]);
    ev->nargs = 0;
}

/* ---- listens -------------------------------------------------------------- */

static bool same_filter(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int listen_index(const lsl_sched *s, int32_t handle)
{
    for (unsigned i = 0; i < s->nlistens; i++)
        if (s->listens[i].handle == handle)
            return (int)i;
    return -1;
}

gsvm_status lsl_sched_listen(lsl_sched *s, int32_t channel, const lsl_value *name,
                             const lsl_value *key, const lsl_value *msg, int32_t *handle,
                             gsvm_error *err)
{
    lsl_listen l;
    memset(&l, 0, sizeof l);
    l.channel = channel;
    l.active = true;
    size_t nlen = lsl_str_len(name), mlen = lsl_str_len(msg), klen = lsl_str_len(key);
    const char *kd = lsl_str_data(key);
    bool key_filter = lsl_is_uuid(kd, klen) && !uuid_is_null(kd);
    if ((nlen && !(l.name = dup_text(s, lsl_str_data(name), nlen))) ||
        (mlen && !(l.msg = dup_text(s, lsl_str_data(msg), mlen))) ||
        (key_filter && !(l.key = dup_text(s, kd, 36)))) {
        listen_free(s, &l);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory for a listen");
    }
    l.name_len = (uint32_t)nlen;
    l.msg_len = (uint32_t)mlen;
    if (l.key)
        for (size_t i = 0; i < 36; i++)
            l.key[i] = (char)tolower((unsigned char)l.key[i]);
    for (unsigned i = 0; i < s->nlistens; i++) {
        const lsl_listen *o = &s->listens[i];
        if (o->channel == l.channel && same_filter(o->name, l.name) &&
            same_filter(o->key, l.key) && same_filter(o->msg, l.msg)) {
            listen_free(s, &l);
            *handle = o->handle;
            return GSVM_OK;
        }
    }
    if (s->nlistens >= LSL_SCHED_LISTEN_MAX) {
        listen_free(s, &l);
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Too Many Listens");
    }
    if (!listen_room(s)) {
        listen_free(s, &l);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory for a listen");
    }
    /* Handles count up from 1.  After 2^31 - 1 listens in one script life
     * (impossible in practice) the count wraps to 1, skipping handles still
     * open, rather than overflow. */
    int32_t h = s->next_handle;
    while (listen_index(s, h) >= 0)
        h = h == INT32_MAX ? 1 : h + 1;
    l.handle = h;
    s->next_handle = h == INT32_MAX ? 1 : h + 1;
    s->listens[s->nlistens++] = l;
    *handle = l.handle;
    return GSVM_OK;
}

void lsl_sched_listen_remove(lsl_sched *s, int32_t handle)
{
    int i = listen_index(s, handle);
    if (i < 0)
        return;
    listen_free(s, &s->listens[i]);
    memmove(&s->listens[i], &s->listens[i + 1],
            (s->nlistens - (unsigned)i - 1) * sizeof s->listens[0]);
    s->nlistens--;
    memset(&s->listens[s->nlistens], 0, sizeof s->listens[0]);
}

void lsl_sched_listen_control(lsl_sched *s, int32_t handle, bool active)
{
    int i = listen_index(s, handle);
    if (i >= 0)
        s->listens[i].active = active;
}

const lsl_listen *lsl_sched_listen_find(const lsl_sched *s, int32_t handle)
{
    int i = listen_index(s, handle);
    return i < 0 ? NULL : &s->listens[i];
}

bool lsl_listen_matches(const lsl_listen *l, int32_t channel, const char *name, size_t name_len,
                        const char *key, size_t key_len, const char *msg, size_t msg_len)
{
    if (l->channel != channel)
        return false;
    if (l->name && (name_len != l->name_len || memcmp(name, l->name, name_len) != 0))
        return false;
    if (l->msg && (msg_len != l->msg_len || memcmp(msg, l->msg, msg_len) != 0))
        return false;
    if (l->key) {
        if (key_len != 36)
            return false;
        for (size_t i = 0; i < 36; i++)
            if (tolower((unsigned char)key[i]) != l->key[i])
                return false;
    }
    return true;
}

gsvm_status lsl_sched_hear(lsl_sched *s, int32_t channel, const char *name, size_t name_len,
                           const char *key, size_t key_len, const char *msg, size_t msg_len,
                           unsigned *matched, bool *queued, gsvm_error *err)
{
    unsigned m = 0;
    if (queued)
        *queued = false;
    for (unsigned i = 0; i < s->nlistens; i++)
        if (s->listens[i].active &&
            lsl_listen_matches(&s->listens[i], channel, name, name_len, key, key_len, msg, msg_len))
            m++;
    if (matched)
        *matched = m;
    if (m == 0)
        return GSVM_OK;
    if (!(s->handled & (UINT64_C(1) << LSL_SCHED_EV_LISTEN)))
        return GSVM_OK;
    if (s->count >= LSL_SCHED_QUEUE_MAX) {
        s->dropped++;
        return GSVM_OK;
    }
    lsl_value args[4] = {lsl_int(channel), lsl_empty(LSL_TYPE_STRING), lsl_empty(LSL_TYPE_KEY),
                         lsl_empty(LSL_TYPE_STRING)};
    gsvm_status st = lsl_string_new(s->heap, LSL_TYPE_STRING, name, name_len, &args[1], err);
    if (!st)
        st = lsl_string_new(s->heap, LSL_TYPE_KEY, key, key_len, &args[2], err);
    if (!st)
        st = lsl_string_new(s->heap, LSL_TYPE_STRING, msg, msg_len, &args[3], err);
    if (!st)
        st = lsl_sched_push(s, LSL_SCHED_EV_LISTEN, args, 4, queued, err);
    for (int i = 0; i < 4; i++)
        lsl_value_release(&args[i]);
    return st;
}

/* ---- snapshot ------------------------------------------------------------- */

static void put_bytes(gsvm_buf *b, const char *p, uint32_t n)
{
    gsvm_buf_u32(b, n, false);
    if (n)
        gsvm_buf_append(b, p, n);
}

void lsl_sched_encode(const lsl_sched *s, lsl_value_encoder *e)
{
    gsvm_buf *b = e->out;
    gsvm_buf_u8(b, SCHED_VERSION);
    gsvm_buf_u64(b, s->now_ms, false);
    gsvm_buf_u64(b, s->time_base_ms, false);
    gsvm_buf_u64(b, s->wake_ms, false);
    gsvm_buf_u64(b, s->timer_period_ms, false);
    gsvm_buf_u64(b, s->timer_due_ms, false);
    gsvm_buf_u64(b, s->handled, false);
    gsvm_buf_u64(b, s->dropped, false);
    gsvm_buf_u32(b, (uint32_t)s->next_handle, false);
    gsvm_buf_u8(b, (uint8_t)s->count);
    for (unsigned i = 0; i < s->count; i++) {
        const lsl_sched_event *ev = lsl_sched_peek(s, i);
        gsvm_buf_u8(b, (uint8_t)ev->event);
        for (unsigned a = 0; a < ev->nargs; a++)
            lsl_value_encode(e, &ev->args[a]);
    }
    gsvm_buf_u8(b, (uint8_t)s->nlistens);
    for (unsigned i = 0; i < s->nlistens; i++) {
        const lsl_listen *l = &s->listens[i];
        gsvm_buf_u32(b, (uint32_t)l->handle, false);
        gsvm_buf_u32(b, (uint32_t)l->channel, false);
        gsvm_buf_u8(b, l->active ? 1 : 0);
        put_bytes(b, l->name, l->name ? l->name_len : 0);
        gsvm_buf_u8(b, l->key ? 1 : 0);
        if (l->key)
            gsvm_buf_append(b, l->key, 36);
        put_bytes(b, l->msg, l->msg ? l->msg_len : 0);
    }
}

/* Reads a filter text (u32 length + bytes); NULL for the empty one. */
static bool read_text(const lsl_sched *s, gsvm_reader *r, char **out, uint32_t *len, const char *what)
{
    uint32_t n;
    const uint8_t *p;
    *out = NULL;
    *len = 0;
    if (!gsvm_read_u32(r, &n, what))
        return false;
    if (n > LSL_MAX_STRING_BYTES)
        return gsvm_reader_fail(r, "%s length %u is over the string limit", what, n);
    if (!gsvm_read_bytes(r, n, &p, what))
        return false;
    if (n && memchr(p, 0, n))
        return gsvm_reader_fail(r, "%s holds a NUL byte", what);
    if (n) {
        *out = dup_text(s, p, n);
        if (!*out)
            return gsvm_reader_fail(r, "out of memory for %s", what);
    }
    *len = n;
    return true;
}

static gsvm_status decode_fail(lsl_sched *s, gsvm_status st)
{
    lsl_sched_free(s);
    return st;
}

gsvm_status lsl_sched_decode(lsl_sched *s, lsl_value_decoder *d, gsvm_error *err)
{
    gsvm_reader *r = d->in;
    if (d->heap != s->heap)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "the decoder charges another heap than the scheduler's");
    if (s->count || s->nlistens)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "restoring into a scheduler in use");
    uint8_t version, qcount, lcount;
    uint64_t now, base, wake, period, due, handled, dropped;
    uint32_t next;
    size_t field = r->pos; /* where the field being checked starts */
#define FAIL_AT(...)                                                                    \
    do {                                                                                \
        r->pos = field;                                                                 \
        gsvm_reader_fail(r, __VA_ARGS__);                                               \
        return decode_fail(s, GSVM_ERR_INPUT);                                          \
    } while (0)
    field = r->pos;
    if (!gsvm_read_u8(r, &version, "scheduler version"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (version != SCHED_VERSION)
        FAIL_AT("scheduler version %u is not %u", version, SCHED_VERSION);
    field = r->pos;
    if (!gsvm_read_u64(r, &now, "clock"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (now > LSL_SCHED_MAX_TIME_MS)
        FAIL_AT("clock %llu ms is over the limit", (unsigned long long)now);
    field = r->pos;
    if (!gsvm_read_u64(r, &base, "script time base"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (base > now)
        FAIL_AT("script time base %llu is after the clock", (unsigned long long)base);
    field = r->pos;
    if (!gsvm_read_u64(r, &wake, "wake time"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (wake > now + LSL_SCHED_MAX_DELAY_MS)
        FAIL_AT("wake time %llu is beyond the longest sleep", (unsigned long long)wake);
    field = r->pos;
    if (!gsvm_read_u64(r, &period, "timer period"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (period > LSL_SCHED_MAX_DELAY_MS)
        FAIL_AT("timer period %llu is over the limit", (unsigned long long)period);
    field = r->pos;
    if (!gsvm_read_u64(r, &due, "timer due time"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (period == 0 ? due != 0 : (due <= now || due > now + period))
        FAIL_AT("timer due time %llu does not fit the clock and period", (unsigned long long)due);
    field = r->pos;
    if (!gsvm_read_u64(r, &handled, "handled events"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (handled & ~lsl_sched_all_events())
        FAIL_AT("handled-event mask names undefined events");
    if (!gsvm_read_u64(r, &dropped, "dropped count"))
        return decode_fail(s, GSVM_ERR_INPUT);
    field = r->pos;
    if (!gsvm_read_u32(r, &next, "next handle"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (next < 1 || next > INT32_MAX)
        FAIL_AT("next listen handle %u is out of range", next);
    s->now_ms = now;
    s->time_base_ms = base;
    s->wake_ms = wake;
    s->timer_period_ms = period;
    s->timer_due_ms = due;
    s->handled = handled;
    s->dropped = dropped;
    s->next_handle = (int32_t)next;

    field = r->pos;
    if (!gsvm_read_u8(r, &qcount, "queue length"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (qcount > LSL_SCHED_QUEUE_MAX)
        FAIL_AT("queue length %u is over %u", qcount, LSL_SCHED_QUEUE_MAX);
    for (unsigned q = 0; q < qcount; q++) {
        uint8_t idx;
        size_t at = r->pos;
        if (!gsvm_read_u8(r, &idx, "event index"))
            return decode_fail(s, GSVM_ERR_INPUT);
        const lsl_event_def *def = event_def(idx);
        if (!def || idx == LSL_SCHED_EV_STATE_ENTRY || idx == LSL_SCHED_EV_STATE_EXIT ||
            def->nargs > LSL_SCHED_EVENT_MAX_ARGS) {
            field = at;
            FAIL_AT("event index %u cannot be queued", idx);
        }
        if (idx == LSL_SCHED_EV_TIMER && s->timer_queued) {
            field = at;
            FAIL_AT("a second timer event in the queue");
        }
        lsl_sched_event ev;
        memset(&ev, 0, sizeof ev);
        ev.event = idx;
        for (unsigned a = 0; a < def->nargs; a++) {
            size_t vat = r->pos;
            gsvm_status st = lsl_value_decode(d, &ev.args[a], err);
            if (st) {
                lsl_sched_event_release(&ev);
                return decode_fail(s, st);
            }
            ev.nargs = a + 1;
            if (ev.args[a].type != lsl_type_from_letter(def->argtypes[a])) {
                lsl_sched_event_release(&ev);
                field = vat;
                FAIL_AT("%s argument %u is a %s, not a %s", def->name, a + 1,
                        lsl_type_name(ev.args[a].type),
                        lsl_type_name(lsl_type_from_letter(def->argtypes[a])));
            }
        }
        ev.nargs = def->nargs;
        if (!queue_room(s)) {
            lsl_sched_event_release(&ev);
            gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory for the event queue");
            return decode_fail(s, GSVM_ERR_NOMEM);
        }
        s->queue[s->count++] = ev;
        if (idx == LSL_SCHED_EV_TIMER)
            s->timer_queued = true;
    }

    field = r->pos;
    if (!gsvm_read_u8(r, &lcount, "listen count"))
        return decode_fail(s, GSVM_ERR_INPUT);
    if (lcount > LSL_SCHED_LISTEN_MAX)
        FAIL_AT("listen count %u is over %u", lcount, LSL_SCHED_LISTEN_MAX);
    for (unsigned i = 0; i < lcount; i++) {
        if (!listen_room(s)) {
            gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory for a listen");
            return decode_fail(s, GSVM_ERR_NOMEM);
        }
        lsl_listen *l = &s->listens[s->nlistens];
        memset(l, 0, sizeof *l);
        int32_t handle, channel;
        uint8_t active, has_key;
        size_t at = r->pos;
        if (!gsvm_read_i32(r, &handle, "listen handle"))
            return decode_fail(s, GSVM_ERR_INPUT);
        if (handle < 1 || listen_index(s, handle) >= 0) {
            field = at;
            FAIL_AT("listen handle %d is not a new positive handle", handle);
        }
        if (!gsvm_read_i32(r, &channel, "listen channel"))
            return decode_fail(s, GSVM_ERR_INPUT);
        field = r->pos;
        if (!gsvm_read_u8(r, &active, "listen active flag"))
            return decode_fail(s, GSVM_ERR_INPUT);
        if (active > 1)
            FAIL_AT("listen active flag %u is not 0 or 1", active);
        l->handle = handle;
        l->channel = channel;
        l->active = active;
        s->nlistens++; /* from here listen_free on failure covers it */
        if (!read_text(s, r, &l->name, &l->name_len, "listen name filter"))
            return decode_fail(s, GSVM_ERR_INPUT);
        field = r->pos;
        if (!gsvm_read_u8(r, &has_key, "listen key flag"))
            return decode_fail(s, GSVM_ERR_INPUT);
        if (has_key > 1)
            FAIL_AT("listen key flag %u is not 0 or 1", has_key);
        if (has_key) {
            const uint8_t *p;
            field = r->pos;
            if (!gsvm_read_bytes(r, 36, &p, "listen key filter"))
                return decode_fail(s, GSVM_ERR_INPUT);
            bool lower = true;
            for (size_t k = 0; k < 36; k++)
                if (isupper(p[k]))
                    lower = false;
            if (!lower || !lsl_is_uuid((const char *)p, 36) || uuid_is_null((const char *)p)) {
                FAIL_AT("listen key filter is not a lower-case, non-null UUID");
            }
            l->key = dup_text(s, p, 36);
            if (!l->key)
                return decode_fail(s, gsvm_error_set(err, GSVM_ERR_NOMEM, NULL,
                                                     "out of memory for a listen"));
        }
        if (!read_text(s, r, &l->msg, &l->msg_len, "listen message filter"))
            return decode_fail(s, GSVM_ERR_INPUT);
    }
#undef FAIL_AT
    return GSVM_OK;
}

gsvm_status lsl_sched_save(const lsl_sched *s, gsvm_buf *out, gsvm_error *err)
{
    lsl_value_encoder e;
    lsl_value_encoder_init(&e, out);
    lsl_sched_encode(s, &e);
    bool oom = e.oom || out->oom;
    lsl_value_encoder_free(&e);
    if (oom)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory writing the scheduler");
    return GSVM_OK;
}

gsvm_status lsl_sched_load(lsl_sched *s, const void *data, size_t len, gsvm_error *err)
{
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, NULL, err);
    lsl_value_decoder d;
    lsl_value_decoder_init(&d, &r, s->heap);
    gsvm_status st = lsl_sched_decode(s, &d, err);
    if (!st && gsvm_reader_left(&r) != 0) {
        gsvm_reader_fail(&r, "%zu bytes after the scheduler state", gsvm_reader_left(&r));
        lsl_sched_free(s);
        st = GSVM_ERR_INPUT;
    }
    lsl_value_decoder_free(&d);
    return st;
}
