/* Unit tests of the per-script scheduler (src/lsl/sched.c): the 64-event
 * queue dropping new events, timer coalescing and re-arming, sleeps, script
 * time, listens with Second Life's filter rules and limits, state change and
 * reset, memory accounting of queued events, and the validated snapshot.
 *
 * With an argument DIR it also writes fuzz seeds (saved states) to DIR. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lsl/builtins.h"
#include "lsl/sched.h"
#include "test.h"

#define TOTAL(h) ((h).used + (h).extra)
#define EV(name) (lsl_event_by_name(#name, strlen(#name))->index)

static const char *K1 = "a2e76fcd-9360-4f6d-a924-938f923df11d";
static const char *K1_UPPER = "A2E76FCD-9360-4F6D-A924-938F923DF11D";
static const char *K2 = "00000000-0000-0000-0000-00000000000b";
static const char *NULLK = "00000000-0000-0000-0000-000000000000";

static lsl_value str(lsl_heap *h, const char *s)
{
    lsl_value v;
    gsvm_error err;
    lsl_string_cstr(h, s, &v, &err);
    return v;
}

static lsl_value key(lsl_heap *h, const char *s)
{
    lsl_value v;
    gsvm_error err;
    lsl_string_new(h, LSL_TYPE_KEY, s, strlen(s), &v, &err);
    return v;
}

static gsvm_status push_touch(lsl_sched *s, int n, bool *queued)
{
    gsvm_error err;
    lsl_value a = lsl_int(n);
    return lsl_sched_push(s, EV(touch_start), &a, 1, queued, &err);
}

static void test_event_indexes(void)
{
    CHECK_INT(EV(listen), LSL_SCHED_EV_LISTEN);
    CHECK_INT(EV(timer), LSL_SCHED_EV_TIMER);
    CHECK_INT(EV(state_entry), LSL_SCHED_EV_STATE_ENTRY);
    CHECK_INT(EV(state_exit), LSL_SCHED_EV_STATE_EXIT);
    size_t n;
    lsl_events(&n);
    CHECK_INT(n, 43);
    CHECK(lsl_sched_all_events() == (UINT64_C(1) << 43) - 1);
    for (size_t i = 0; i < n; i++)
        CHECK(lsl_events(&n)[i].nargs <= LSL_SCHED_EVENT_MAX_ARGS);
}

static void test_queue_fifo_and_drop(void)
{
    lsl_sched s;
    lsl_sched_init(&s, NULL, 0);
    bool q;
    for (int i = 0; i < 64; i++) {
        CHECK_INT(push_touch(&s, i + 1, &q), GSVM_OK);
        CHECK(q);
    }
    CHECK_INT(s.count, 64);
    /* the 65th is dropped: a NEW event, not an old one */
    CHECK_INT(push_touch(&s, 999, &q), GSVM_OK);
    CHECK(!q);
    CHECK_INT(s.dropped, 1);
    CHECK_INT(s.count, 64);
    CHECK_INT(lsl_sched_peek(&s, 0)->args[0].u.i, 1);
    CHECK_INT(lsl_sched_peek(&s, 63)->args[0].u.i, 64);
    CHECK(lsl_sched_peek(&s, 64) == NULL);
    lsl_sched_event ev;
    for (int i = 0; i < 10; i++) {
        CHECK(lsl_sched_pop(&s, &ev));
        CHECK_INT(ev.event, EV(touch_start));
        CHECK_INT(ev.args[0].u.i, i + 1);
        lsl_sched_event_release(&ev);
    }
    /* ring wraps: 10 more fit, then full again */
    for (int i = 0; i < 10; i++)
        push_touch(&s, 100 + i, &q);
    CHECK_INT(s.count, 64);
    push_touch(&s, 1000, &q);
    CHECK(!q);
    CHECK_INT(s.dropped, 2);
    int want = 11;
    unsigned popped = 0;
    while (lsl_sched_pop(&s, &ev)) {
        int w = popped < 54 ? want + (int)popped : 100 + (int)popped - 54;
        CHECK_INT(ev.args[0].u.i, w);
        lsl_sched_event_release(&ev);
        popped++;
    }
    CHECK_INT(popped, 64);
    CHECK(!lsl_sched_pop(&s, &ev));
    lsl_sched_free(&s);
}

static void test_push_checks(void)
{
    lsl_sched s;
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched_init(&s, &h, 0);
    gsvm_error err;
    bool q = true;
    lsl_value a[4] = {lsl_int(1)};
    CHECK_INT(lsl_sched_push(&s, 43, a, 0, &q, &err), GSVM_ERR_USAGE);
    CHECK_INT(lsl_sched_push(&s, -1, a, 0, &q, &err), GSVM_ERR_USAGE);
    CHECK(!q);
    CHECK_INT(lsl_sched_push(&s, EV(state_entry), a, 0, &q, &err), GSVM_ERR_USAGE);
    CHECK_INT(lsl_sched_push(&s, EV(state_exit), a, 0, &q, &err), GSVM_ERR_USAGE);
    CHECK_INT(lsl_sched_push(&s, EV(touch_start), a, 0, &q, &err), GSVM_ERR_USAGE);
    a[0] = lsl_float(1);
    CHECK_INT(lsl_sched_push(&s, EV(touch_start), a, 1, &q, &err), GSVM_ERR_USAGE);
    CHECK(strstr(err.message, "touch_start") != NULL);
    CHECK_INT(s.count, 0);
    /* a string where a key is wanted is accepted and re-tagged */
    a[0] = lsl_int(5);
    a[1] = str(&h, "Bob");
    a[2] = str(&h, K1);
    a[3] = str(&h, "hi");
    CHECK_INT(lsl_sched_push(&s, EV(listen), a, 4, &q, &err), GSVM_OK);
    CHECK(q);
    const lsl_sched_event *ev = lsl_sched_peek(&s, 0);
    CHECK_INT(ev->args[2].type, LSL_TYPE_KEY);
    CHECK_INT(a[2].type, LSL_TYPE_STRING); /* the caller's value unchanged */
    CHECK_STR(lsl_str_data(&ev->args[3]), "hi");
    /* the queue shares the caller's objects (same heap) */
    CHECK(ev->args[1].u.s == a[1].u.s);
    CHECK_INT(a[1].u.s->refs, 2);
    for (int i = 1; i < 4; i++)
        lsl_value_release(&a[i]);
    lsl_sched_free(&s);
    CHECK_INT(TOTAL(h), 0);
}

static void test_handled_mask(void)
{
    lsl_sched s;
    lsl_sched_init(&s, NULL, 0);
    bool q;
    lsl_sched_set_handled(&s, UINT64_C(1) << LSL_SCHED_EV_TIMER);
    CHECK_INT(push_touch(&s, 1, &q), GSVM_OK);
    CHECK(!q);
    CHECK_INT(s.count, 0);
    CHECK_INT(s.dropped, 0); /* not a drop: the state has no handler */
    lsl_sched_set_handled(&s, ~UINT64_C(0));
    CHECK(s.handled == lsl_sched_all_events());
    push_touch(&s, 1, &q);
    CHECK(q);
    lsl_sched_free(&s);
}

static void test_memory_accounting(void)
{
    lsl_heap h;
    lsl_heap_init(&h, 4096);
    lsl_sched s;
    lsl_sched_init(&s, &h, 0);
    gsvm_error err;
    bool q;
    /* a string owned by no heap is copied into the script's heap */
    lsl_value a[4];
    a[0] = lsl_int(7);
    a[1] = str(NULL, "Alice");
    a[2] = key(NULL, K1);
    a[3] = str(NULL, "hello world");
    size_t before = TOTAL(h);
    CHECK_INT(lsl_sched_push(&s, EV(listen), a, 4, &q, &err), GSVM_OK);
    const lsl_sched_event *ev = lsl_sched_peek(&s, 0);
    CHECK(ev->args[1].u.s != a[1].u.s);
    CHECK(ev->args[1].u.s->heap == &h);
    size_t objects = lsl_value_object_size(&ev->args[1]) + lsl_value_object_size(&ev->args[2]) +
                     lsl_value_object_size(&ev->args[3]);
    /* only the objects: the entry itself is the simulator's (sched.h) */
    CHECK_INT(TOTAL(h) - before, objects);
    for (int i = 1; i < 4; i++)
        lsl_value_release(&a[i]);
    /* a vector event takes no script memory while it waits */
    lsl_value v = lsl_vector(1, 2, 3);
    CHECK_INT(lsl_sched_push(&s, EV(land_collision), &v, 1, &q, &err), GSVM_OK);
    CHECK(q);
    CHECK_INT(TOTAL(h), objects);
    /* popping hands the objects over; releasing them credits them */
    lsl_sched_event out;
    lsl_sched_pop(&s, &out);
    CHECK_INT(TOTAL(h), objects);
    lsl_sched_event_release(&out);
    CHECK_INT(TOTAL(h), 0);
    lsl_sched_clear_queue(&s);
    CHECK_INT(TOTAL(h), 0);
    /* an event that does not fit: Stack-Heap Collision, nothing queued */
    lsl_heap_init(&h, 100);
    char big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    a[1] = str(NULL, big);
    a[2] = key(NULL, K1);
    a[3] = str(NULL, "");
    CHECK_INT(lsl_sched_push(&s, EV(listen), a, 4, &q, &err), GSVM_ERR_FAULT);
    CHECK_STR(err.message, "Stack-Heap Collision");
    CHECK(!q);
    CHECK_INT(s.count, 0);
    CHECK_INT(TOTAL(h), 0);
    for (int i = 1; i < 4; i++)
        lsl_value_release(&a[i]);
    /* events without objects queue even in a full heap: 64 of them, free */
    lsl_heap_init(&h, 1);
    for (int i = 0; i < (int)LSL_SCHED_QUEUE_MAX; i++)
        CHECK_INT(push_touch(&s, 1, &q), GSVM_OK);
    CHECK_INT(s.count, LSL_SCHED_QUEUE_MAX);
    CHECK_INT(TOTAL(h), 0);
    lsl_sched_free(&s);
    CHECK_INT(TOTAL(h), 0);
}

/* An idle scheduler holds no queue: the ring is allocated by the first
 * push, grows in order (FIFO kept across a wrapped ring), and trim gives it
 * back only while it is empty. */
static void test_queue_memory(void)
{
    lsl_sched s;
    lsl_sched_init(&s, NULL, 0);
    bool q;
    CHECK(s.queue == NULL && s.qcap == 0);
    /* wrap the ring: 3 in, 2 out, then grow past 4 */
    for (int i = 0; i < 3; i++)
        push_touch(&s, i, &q);
    CHECK_INT(s.qcap, 4);
    lsl_sched_event ev;
    for (int i = 0; i < 2; i++) {
        CHECK(lsl_sched_pop(&s, &ev));
        lsl_sched_event_release(&ev);
    }
    for (int i = 3; i < 10; i++)
        push_touch(&s, i, &q);
    CHECK_INT(s.count, 8);
    CHECK_INT(s.qcap, 8);
    for (unsigned i = 0; i < s.count; i++)
        CHECK_INT(lsl_sched_peek(&s, i)->args[0].u.i, (int)i + 2);
    lsl_sched_trim(&s); /* not empty: kept */
    CHECK(s.queue != NULL);
    CHECK_INT(lsl_sched_peek(&s, 7)->args[0].u.i, 9);
    lsl_sched_clear_queue(&s);
    lsl_sched_trim(&s);
    CHECK(s.queue == NULL && s.qcap == 0);
    CHECK_INT(push_touch(&s, 42, &q), GSVM_OK);
    CHECK(q);
    CHECK_INT(lsl_sched_peek(&s, 0)->args[0].u.i, 42);
    /* listens grow one step at a time up to the 65 SL allows */
    gsvm_error err;
    lsl_value none = lsl_empty(LSL_TYPE_STRING);
    int32_t h;
    for (int i = 0; i < (int)LSL_SCHED_LISTEN_MAX; i++)
        CHECK_INT(lsl_sched_listen(&s, i, &none, &none, &none, &h, &err), GSVM_OK);
    CHECK_INT(s.lcap, LSL_SCHED_LISTEN_MAX);
    CHECK_INT(lsl_sched_listen(&s, 99, &none, &none, &none, &h, &err), GSVM_ERR_FAULT);
    CHECK_STR(err.message, "Too Many Listens");
    lsl_sched_free(&s);
    CHECK(s.queue == NULL && s.listens == NULL);
}

static void test_seconds(void)
{
    CHECK_INT(lsl_sched_seconds_to_ms(0.1), 100);
    CHECK_INT(lsl_sched_seconds_to_ms((float)0.1), 100);
    CHECK_INT(lsl_sched_seconds_to_ms(2.5), 2500);
    CHECK_INT(lsl_sched_seconds_to_ms(0.0004), 0);
    CHECK_INT(lsl_sched_seconds_to_ms(0.0005), 1);
    CHECK_INT(lsl_sched_seconds_to_ms(-3), 0);
    CHECK_INT(lsl_sched_seconds_to_ms(NAN), 0);
    CHECK(lsl_sched_seconds_to_ms(INFINITY) == LSL_SCHED_MAX_DELAY_MS);
    CHECK(lsl_sched_seconds_to_ms(1e30) == LSL_SCHED_MAX_DELAY_MS);
}

static void test_timer(void)
{
    lsl_sched s;
    lsl_sched_init(&s, NULL, 1000);
    lsl_sched_report r;
    gsvm_error err;
    uint64_t at;
    CHECK(!lsl_sched_next_deadline(&s, &at));
    lsl_sched_set_timer(&s, 0.5);
    CHECK_INT(s.timer_period_ms, 500);
    CHECK(lsl_sched_next_deadline(&s, &at));
    CHECK_INT(at, 1500);
    /* not yet due */
    CHECK_INT(lsl_sched_advance(&s, 499, &r, &err), GSVM_OK);
    CHECK_INT(r.timers_queued, 0);
    CHECK(!r.runnable);
    CHECK_INT(s.count, 0);
    /* exactly due */
    lsl_sched_advance(&s, 1, &r, &err);
    CHECK_INT(r.timers_queued, 1);
    CHECK(r.runnable);
    CHECK_INT(s.count, 1);
    CHECK_INT(lsl_sched_peek(&s, 0)->event, LSL_SCHED_EV_TIMER);
    CHECK_INT(s.timer_due_ms, 2000);
    /* while a timer event waits, later due times are coalesced */
    lsl_sched_advance(&s, 1600, &r, &err); /* now 3100: dues 2000, 2500, 3000 */
    CHECK_INT(r.timers_queued, 0);
    CHECK_INT(r.timers_coalesced, 3);
    CHECK_INT(s.count, 1);
    CHECK_INT(s.timer_due_ms, 3500);
    /* a pushed timer event is coalesced as well */
    bool q = true;
    CHECK_INT(lsl_sched_push(&s, LSL_SCHED_EV_TIMER, NULL, 0, &q, &err), GSVM_OK);
    CHECK(!q);
    CHECK_INT(s.count, 1);
    /* handled: the next due time queues again */
    lsl_sched_event ev;
    CHECK(lsl_sched_pop(&s, &ev));
    CHECK(!s.timer_queued);
    lsl_sched_advance(&s, 400, &r, &err);
    CHECK_INT(r.timers_queued, 1);
    CHECK_INT(s.timer_due_ms, 4000);
    lsl_sched_pop(&s, &ev);
    /* one long advance queues one event and skips the rest arithmetically */
    lsl_sched_advance(&s, 1000000000, &r, &err);
    CHECK_INT(r.timers_queued, 1);
    CHECK_INT(r.timers_coalesced, 1000000000 / 500 - 1);
    CHECK(s.timer_due_ms > s.now_ms && s.timer_due_ms <= s.now_ms + 500);
    lsl_sched_pop(&s, &ev);
    /* setting the timer restarts the countdown */
    uint64_t t0 = s.now_ms;
    lsl_sched_advance(&s, 300, &r, &err);
    lsl_sched_set_timer(&s, 0.5);
    CHECK_INT(s.timer_due_ms, t0 + 800);
    lsl_sched_advance(&s, 499, &r, &err);
    CHECK_INT(s.count, 0);
    /* zero or negative stops it; a tiny positive period is 1 ms */
    lsl_sched_set_timer(&s, 0);
    CHECK_INT(s.timer_period_ms, 0);
    lsl_sched_advance(&s, 10000, &r, &err);
    CHECK_INT(s.count, 0);
    lsl_sched_set_timer(&s, -1);
    CHECK_INT(s.timer_period_ms, 0);
    lsl_sched_set_timer(&s, NAN);
    CHECK_INT(s.timer_period_ms, 0);
    lsl_sched_set_timer(&s, 1e-9);
    CHECK_INT(s.timer_period_ms, 1);
    /* a full queue drops the timer event (counted) */
    lsl_sched_set_timer(&s, 1);
    for (int i = 0; i < 64; i++)
        push_touch(&s, i, &q);
    uint64_t dropped = s.dropped;
    lsl_sched_advance(&s, 1000, &r, &err);
    CHECK_INT(r.timers_queued, 0);
    CHECK_INT(r.timers_coalesced, 1);
    CHECK_INT(s.dropped, dropped + 1);
    CHECK(!s.timer_queued);
    /* no timer handler in this state: the timer keeps its rhythm silently */
    lsl_sched_clear_queue(&s);
    lsl_sched_set_handled(&s, 0);
    lsl_sched_advance(&s, 1000, &r, &err);
    CHECK_INT(s.count, 0);
    CHECK_INT(s.timer_due_ms, s.now_ms + 1000);
    lsl_sched_free(&s);
}

static void test_timer_event_order(void)
{
    /* a timer event takes its place in FIFO order among other events */
    lsl_sched s;
    lsl_sched_init(&s, NULL, 0);
    gsvm_error err;
    bool q;
    lsl_sched_set_timer(&s, 1);
    push_touch(&s, 1, &q);
    lsl_sched_advance(&s, 1000, NULL, &err);
    push_touch(&s, 2, &q);
    CHECK_INT(s.count, 3);
    CHECK_INT(lsl_sched_peek(&s, 0)->event, EV(touch_start));
    CHECK_INT(lsl_sched_peek(&s, 1)->event, LSL_SCHED_EV_TIMER);
    CHECK_INT(lsl_sched_peek(&s, 2)->args[0].u.i, 2);
    /* advancing past the limit is refused and changes nothing */
    uint64_t now = s.now_ms;
    CHECK_INT(lsl_sched_advance(&s, LSL_SCHED_MAX_TIME_MS, NULL, &err), GSVM_ERR_LIMIT);
    CHECK_INT(s.now_ms, now);
    CHECK_INT(lsl_sched_advance(&s, LSL_SCHED_MAX_TIME_MS - now, NULL, &err), GSVM_OK);
    CHECK(s.now_ms == LSL_SCHED_MAX_TIME_MS);
    lsl_sched_free(&s);
}

static void test_sleep_and_time(void)
{
    lsl_sched s;
    lsl_sched_init(&s, NULL, 5000);
    gsvm_error err;
    lsl_sched_report r;
    bool q;
    CHECK(!lsl_sched_sleeping(&s));
    CHECK(lsl_sched_get_time(&s) == 0.0f);
    lsl_sched_sleep(&s, 2.0);
    CHECK(lsl_sched_sleeping(&s));
    uint64_t at;
    CHECK(lsl_sched_next_deadline(&s, &at));
    CHECK_INT(at, 7000);
    push_touch(&s, 1, &q); /* events still queue while sleeping */
    CHECK(q);
    CHECK(!lsl_sched_runnable(&s));
    lsl_sched_advance(&s, 1999, &r, &err);
    CHECK(!r.woke);
    CHECK(!r.runnable);
    lsl_sched_advance(&s, 1, &r, &err);
    CHECK(r.woke);
    CHECK(r.runnable);
    CHECK(!lsl_sched_sleeping(&s));
    CHECK(lsl_sched_get_time(&s) == 2.0f);
    /* the timer's due time and the wake time: the earlier is the deadline */
    lsl_sched_set_timer(&s, 1.0);
    lsl_sched_sleep(&s, 0.25);
    CHECK(lsl_sched_next_deadline(&s, &at));
    CHECK_INT(at, 7250);
    lsl_sched_sleep(&s, 3.0);
    lsl_sched_next_deadline(&s, &at);
    CHECK_INT(at, 8000);
    lsl_sched_sleep(&s, -1);
    lsl_sched_sleep(&s, 0);
    CHECK_INT(s.wake_ms, 10000);
    lsl_sched_advance(&s, 3000, &r, &err);
    CHECK(r.woke);
    CHECK_INT(r.timers_queued, 1);
    /* script time */
    CHECK(lsl_sched_get_time(&s) == 5.0f);
    CHECK(lsl_sched_get_and_reset_time(&s) == 5.0f);
    CHECK(lsl_sched_get_time(&s) == 0.0f);
    lsl_sched_advance(&s, 1500, &r, &err);
    CHECK(fabsf(lsl_sched_get_time(&s) - 1.5f) < 1e-6f);
    lsl_sched_reset_time(&s);
    CHECK(lsl_sched_get_time(&s) == 0.0f);
    lsl_sched_advance(&s, 250, &r, &err);
    /* a state change keeps script time, the timer and the sleep */
    lsl_sched_sleep(&s, 1);
    lsl_sched_state_change(&s);
    CHECK(lsl_sched_get_time(&s) == 0.25f);
    CHECK_INT(s.timer_period_ms, 1000);
    CHECK(lsl_sched_sleeping(&s));
    CHECK_INT(s.count, 0);
    lsl_sched_free(&s);
}

static void test_listens(void)
{
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched s;
    lsl_sched_init(&s, &h, 0);
    gsvm_error err;
    lsl_value empty = lsl_empty(LSL_TYPE_STRING), ekey = lsl_empty(LSL_TYPE_KEY);
    lsl_value bob = str(&h, "Bob"), hello = str(&h, "hello"), k1 = key(&h, K1_UPPER),
              nk = key(&h, NULLK), junk = key(&h, "not a key");
    int32_t h1, h2, h3, h4, h5, h6;
    size_t used = TOTAL(h);
    CHECK_INT(lsl_sched_listen(&s, 0, &empty, &ekey, &empty, &h1, &err), GSVM_OK);
    CHECK_INT(h1, 1);
    CHECK_INT(TOTAL(h), used); /* filters are not charged to the script */
    CHECK_INT(lsl_sched_listen(&s, 5, &bob, &ekey, &empty, &h2, &err), GSVM_OK);
    CHECK_INT(h2, 2);
    CHECK_INT(lsl_sched_listen(&s, 5, &empty, &k1, &empty, &h3, &err), GSVM_OK);
    CHECK_INT(h3, 3);
    CHECK_STR(lsl_sched_listen_find(&s, h3)->key, K1); /* stored lower-case */
    CHECK_INT(lsl_sched_listen(&s, 6, &empty, &nk, &hello, &h4, &err), GSVM_OK);
    CHECK(lsl_sched_listen_find(&s, h4)->key == NULL); /* NULL_KEY: no filter */
    CHECK_INT(lsl_sched_listen(&s, 7, &empty, &junk, &empty, &h5, &err), GSVM_OK);
    CHECK(lsl_sched_listen_find(&s, h5)->key == NULL); /* not a key: no filter */
    /* the same listen again: the same handle, nothing new */
    CHECK_INT(lsl_sched_listen(&s, 5, &bob, &ekey, &empty, &h6, &err), GSVM_OK);
    CHECK_INT(h6, h2);
    CHECK_INT(s.nlistens, 5);

    const lsl_listen *l = lsl_sched_listen_find(&s, h2);
    CHECK(lsl_listen_matches(l, 5, "Bob", 3, K2, 36, "x", 1));
    CHECK(!lsl_listen_matches(l, 5, "bob", 3, K2, 36, "x", 1)); /* case-sensitive */
    CHECK(!lsl_listen_matches(l, 5, "Bobby", 5, K2, 36, "x", 1));
    CHECK(!lsl_listen_matches(l, 4, "Bob", 3, K2, 36, "x", 1));
    l = lsl_sched_listen_find(&s, h3);
    CHECK(lsl_listen_matches(l, 5, "Anyone", 6, K1, 36, "", 0));
    CHECK(lsl_listen_matches(l, 5, "Anyone", 6, K1_UPPER, 36, "", 0)); /* keys: any case */
    CHECK(!lsl_listen_matches(l, 5, "Anyone", 6, K2, 36, "", 0));
    CHECK(!lsl_listen_matches(l, 5, "Anyone", 6, "", 0, "", 0));
    l = lsl_sched_listen_find(&s, h4);
    CHECK(lsl_listen_matches(l, 6, "X", 1, K2, 36, "hello", 5));
    CHECK(!lsl_listen_matches(l, 6, "X", 1, K2, 36, "Hello", 5));
    CHECK(!lsl_listen_matches(l, 6, "X", 1, K2, 36, "hello!", 6));

    /* hearing: one event per message however many listens match */
    unsigned m;
    bool q;
    CHECK_INT(lsl_sched_hear(&s, 5, "Bob", 3, K1, 36, "hi", 2, &m, &q, &err), GSVM_OK);
    CHECK_INT(m, 2);
    CHECK(q);
    CHECK_INT(s.count, 1);
    const lsl_sched_event *ev = lsl_sched_peek(&s, 0);
    CHECK_INT(ev->event, LSL_SCHED_EV_LISTEN);
    CHECK_INT(ev->args[0].u.i, 5);
    CHECK_STR(lsl_str_data(&ev->args[1]), "Bob");
    CHECK_INT(ev->args[2].type, LSL_TYPE_KEY);
    CHECK_STR(lsl_str_data(&ev->args[2]), K1);
    CHECK_STR(lsl_str_data(&ev->args[3]), "hi");
    CHECK_INT(lsl_sched_hear(&s, 5, "Ann", 3, K2, 36, "hi", 2, &m, &q, &err), GSVM_OK);
    CHECK_INT(m, 0);
    CHECK(!q);
    CHECK_INT(lsl_sched_hear(&s, 0, "Ann", 3, K2, 36, "anything", 8, &m, &q, &err), GSVM_OK);
    CHECK_INT(m, 1);
    CHECK_INT(s.count, 2);
    /* llListenControl: an inactive listen hears nothing; unknown handles ignored */
    lsl_sched_listen_control(&s, h1, false);
    CHECK(!lsl_sched_listen_find(&s, h1)->active);
    lsl_sched_hear(&s, 0, "Ann", 3, K2, 36, "anything", 8, &m, &q, &err);
    CHECK_INT(m, 0);
    CHECK_INT(s.count, 2);
    lsl_sched_listen_control(&s, 999, false);
    lsl_sched_listen_control(&s, h1, true);
    lsl_sched_hear(&s, 0, "Ann", 3, K2, 36, "again", 5, &m, &q, &err);
    CHECK_INT(m, 1);
    CHECK_INT(s.count, 3);
    /* llListenRemove: gone; unknown and repeated removals are no-ops */
    lsl_sched_listen_remove(&s, h1);
    CHECK(lsl_sched_listen_find(&s, h1) == NULL);
    lsl_sched_listen_remove(&s, h1);
    lsl_sched_listen_remove(&s, 0);
    lsl_sched_listen_remove(&s, -5);
    CHECK_INT(s.nlistens, 4);
    CHECK(lsl_sched_listen_find(&s, h5) != NULL);
    lsl_sched_hear(&s, 0, "Ann", 3, K2, 36, "x", 1, &m, &q, &err);
    CHECK_INT(m, 0);
    /* handles keep counting after a removal */
    int32_t h7;
    lsl_sched_listen(&s, 0, &empty, &ekey, &empty, &h7, &err);
    CHECK_INT(h7, 6);
    /* no listen handler in the state: matched but not queued */
    lsl_sched_set_handled(&s, 0);
    lsl_sched_hear(&s, 0, "Ann", 3, K2, 36, "x", 1, &m, &q, &err);
    CHECK_INT(m, 1);
    CHECK(!q);
    lsl_sched_set_handled(&s, lsl_sched_all_events());

    /* the limit: 65 open listens, the 66th is "Too Many Listens" */
    int32_t hh = 0;
    unsigned open = s.nlistens;
    for (int c = 100; open < 65; c++, open++)
        CHECK_INT(lsl_sched_listen(&s, c, &empty, &ekey, &empty, &hh, &err), GSVM_OK);
    CHECK_INT(s.nlistens, 65);
    CHECK_INT(lsl_sched_listen(&s, 9999, &empty, &ekey, &empty, &hh, &err), GSVM_ERR_FAULT);
    CHECK_STR(err.message, "Too Many Listens");
    CHECK_INT(s.nlistens, 65);
    /* an identical one is still fine (no new listen) */
    CHECK_INT(lsl_sched_listen(&s, 5, &bob, &ekey, &empty, &hh, &err), GSVM_OK);
    CHECK_INT(hh, h2);
    /* removing one makes room */
    lsl_sched_listen_remove(&s, h3);
    CHECK_INT(lsl_sched_listen(&s, 9999, &empty, &ekey, &empty, &hh, &err), GSVM_OK);
    int32_t last = hh;

    /* a state change removes every listen and the queue; handles continue */
    lsl_sched_state_change(&s);
    CHECK_INT(s.nlistens, 0);
    CHECK_INT(s.count, 0);
    lsl_sched_hear(&s, 5, "Bob", 3, K1, 36, "hi", 2, &m, &q, &err);
    CHECK_INT(m, 0);
    lsl_sched_listen(&s, 1, &empty, &ekey, &empty, &hh, &err);
    CHECK_INT(hh, last + 1);
    /* a reset starts the numbering again */
    lsl_sched_reset(&s);
    lsl_sched_listen(&s, 1, &empty, &ekey, &empty, &hh, &err);
    CHECK_INT(hh, 1);
    lsl_sched_free(&s);
    lsl_value *vals[] = {&bob, &hello, &k1, &nk, &junk};
    for (size_t i = 0; i < 5; i++)
        lsl_value_release(vals[i]);
    CHECK_INT(TOTAL(h), 0);
}

static void test_reset(void)
{
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched s;
    lsl_sched_init(&s, &h, 0);
    gsvm_error err;
    bool q;
    lsl_sched_set_timer(&s, 1);
    for (int i = 0; i < 70; i++)
        push_touch(&s, i, &q);
    lsl_value e = lsl_empty(LSL_TYPE_STRING), k = lsl_empty(LSL_TYPE_KEY);
    int32_t hh;
    lsl_sched_listen(&s, 3, &e, &k, &e, &hh, &err);
    lsl_sched_advance(&s, 2500, NULL, &err);
    lsl_sched_sleep(&s, 10);
    lsl_sched_set_handled(&s, 1);
    lsl_sched_reset(&s);
    CHECK_INT(s.count, 0);
    CHECK_INT(s.nlistens, 0);
    CHECK_INT(s.timer_period_ms, 0);
    CHECK(!lsl_sched_sleeping(&s));
    CHECK(lsl_sched_get_time(&s) == 0.0f);
    CHECK_INT(s.now_ms, 2500);
    CHECK_INT(s.dropped, 7); /* 6 touches and 1 timer; a host statistic: kept */
    CHECK(s.handled == lsl_sched_all_events());
    CHECK_INT(TOTAL(h), 0);
    uint64_t at;
    CHECK(!lsl_sched_next_deadline(&s, &at));
    lsl_sched_free(&s);
}

/* A scheduler with a bit of everything, for the snapshot tests and seeds. */
static void build_busy(lsl_sched *s, lsl_heap *h)
{
    gsvm_error err;
    bool q;
    lsl_sched_init(s, h, 12345);
    lsl_sched_advance(s, 1000, NULL, &err);
    lsl_sched_reset_time(s);
    lsl_sched_set_timer(s, 0.75);
    lsl_value shared = str(h, "shared text");
    lsl_value a[6];
    a[0] = lsl_int(-3);
    a[1] = shared;
    a[2] = key(h, K1);
    a[3] = shared;
    lsl_sched_push(s, EV(listen), a, 4, &q, &err);
    lsl_value_release(&a[2]);
    lsl_value items[3] = {lsl_float(1.5f), shared, lsl_rotation(0, 0, 0, 1)};
    lsl_value list;
    lsl_list_new(h, items, 3, &list, &err);
    a[0] = key(h, K2);
    a[1] = lsl_int(0);
    a[2] = list;
    lsl_sched_push(s, EV(game_control), a, 3, &q, &err);
    lsl_value_release(&a[0]);
    lsl_value_release(&list);
    a[0] = lsl_int(1);
    a[1] = lsl_rotation(1, 2, 3, 4);
    a[2] = lsl_rotation(-1, -2, -3, -4);
    lsl_sched_push(s, EV(at_rot_target), a, 3, &q, &err);
    lsl_sched_advance(s, 800, NULL, &err); /* timer queued */
    a[0] = lsl_int(1);
    a[1] = key(h, K1);
    a[2] = key(h, K2);
    a[3] = str(h, "s");
    a[4] = lsl_int(9);
    a[5] = shared;
    lsl_sched_push(s, EV(remote_data), a, 6, &q, &err);
    lsl_value_release(&a[1]);
    lsl_value_release(&a[2]);
    lsl_value_release(&a[3]);
    lsl_value_release(&shared);
    lsl_value bob = str(h, "Bob"), msg = str(h, "open"), k = key(h, K1_UPPER);
    lsl_value e = lsl_empty(LSL_TYPE_STRING), ek = lsl_empty(LSL_TYPE_KEY);
    int32_t hh;
    lsl_sched_listen(s, 0, &e, &ek, &e, &hh, &err);
    lsl_sched_listen(s, -77, &bob, &k, &msg, &hh, &err);
    lsl_sched_listen(s, 2147483647, &e, &k, &e, &hh, &err);
    lsl_sched_listen(s, 4, &bob, &ek, &e, &hh, &err);
    lsl_sched_listen_remove(s, 1);
    lsl_sched_listen_control(s, 3, false);
    lsl_value_release(&bob);
    lsl_value_release(&msg);
    lsl_value_release(&k);
    lsl_sched_sleep(s, 0.3);
    lsl_sched_set_handled(s, lsl_sched_all_events() & ~(UINT64_C(1) << 7));
    s->dropped = 17;
}

static bool same_sched(const lsl_sched *a, const lsl_sched *b)
{
    if (a->now_ms != b->now_ms || a->time_base_ms != b->time_base_ms || a->wake_ms != b->wake_ms ||
        a->timer_period_ms != b->timer_period_ms || a->timer_due_ms != b->timer_due_ms ||
        a->handled != b->handled || a->dropped != b->dropped || a->next_handle != b->next_handle ||
        a->count != b->count || a->nlistens != b->nlistens || a->timer_queued != b->timer_queued)
        return false;
    for (unsigned i = 0; i < a->count; i++) {
        const lsl_sched_event *x = lsl_sched_peek(a, i), *y = lsl_sched_peek(b, i);
        if (x->event != y->event || x->nargs != y->nargs)
            return false;
        for (unsigned k = 0; k < x->nargs; k++) {
            if (x->args[k].type != y->args[k].type || !lsl_value_equal(&x->args[k], &y->args[k]))
                return false;
            if (x->args[k].type == LSL_TYPE_LIST) {
                for (size_t j = 0; j < lsl_list_len(&x->args[k]); j++)
                    if (!lsl_value_equal(&lsl_list_items(&x->args[k])[j],
                                         &lsl_list_items(&y->args[k])[j]))
                        return false;
            }
        }
    }
    for (unsigned i = 0; i < a->nlistens; i++) {
        const lsl_listen *x = &a->listens[i], *y = &b->listens[i];
        if (x->handle != y->handle || x->channel != y->channel || x->active != y->active ||
            !x->name != !y->name || !x->key != !y->key || !x->msg != !y->msg)
            return false;
        if ((x->name && strcmp(x->name, y->name)) || (x->key && strcmp(x->key, y->key)) ||
            (x->msg && strcmp(x->msg, y->msg)))
            return false;
    }
    return true;
}

static void test_snapshot_roundtrip(void)
{
    lsl_heap h1, h2;
    lsl_heap_init(&h1, 0);
    lsl_heap_init(&h2, 0);
    lsl_sched a, b;
    build_busy(&a, &h1);
    CHECK_INT(a.count, 5);
    CHECK_INT(a.nlistens, 3);
    CHECK(a.timer_queued);
    gsvm_buf buf;
    gsvm_buf_init(&buf);
    gsvm_error err;
    CHECK_INT(lsl_sched_save(&a, &buf, &err), GSVM_OK);
    lsl_sched_init(&b, &h2, 0);
    CHECK_INT(lsl_sched_load(&b, buf.data, buf.len, &err), GSVM_OK);
    CHECK(same_sched(&a, &b));
    /* shared objects come back shared: identical memory accounting */
    CHECK_INT(TOTAL(h2), TOTAL(h1));
    CHECK(lsl_sched_peek(&b, 0)->args[1].u.s == lsl_sched_peek(&b, 0)->args[3].u.s);
    /* and it saves back to the same bytes */
    gsvm_buf again;
    gsvm_buf_init(&again);
    lsl_sched_save(&b, &again, &err);
    CHECK(again.len == buf.len && memcmp(again.data, buf.data, buf.len) == 0);
    gsvm_buf_free(&again);
    /* both continue identically */
    lsl_sched_report ra, rb;
    lsl_sched_advance(&a, 5000, &ra, &err);
    lsl_sched_advance(&b, 5000, &rb, &err);
    /* field by field: the padding of a struct copy is unspecified */
    CHECK_INT(ra.timers_queued, rb.timers_queued);
    CHECK_INT(ra.timers_coalesced, rb.timers_coalesced);
    CHECK(ra.woke == rb.woke && ra.runnable == rb.runnable);
    CHECK(same_sched(&a, &b));
    unsigned ma, mb;
    lsl_sched_hear(&a, -77, "Bob", 3, K1, 36, "open", 4, &ma, NULL, &err);
    lsl_sched_hear(&b, -77, "Bob", 3, K1, 36, "open", 4, &mb, NULL, &err);
    CHECK_INT(ma, 1);
    CHECK_INT(mb, 1);
    CHECK(same_sched(&a, &b));

    /* every truncation is rejected, leaving the scheduler empty */
    for (size_t n = 0; n < buf.len; n++) {
        lsl_sched c;
        lsl_heap hc;
        lsl_heap_init(&hc, 0);
        lsl_sched_init(&c, &hc, 0);
        gsvm_status st = lsl_sched_load(&c, buf.data, n, &err);
        if (st == GSVM_OK) {
            CHECK(!"a truncated state loaded");
            fprintf(stderr, "  (length %zu of %zu)\n", n, buf.len);
        }
        CHECK(c.count == 0 && c.nlistens == 0 && TOTAL(hc) == 0);
        lsl_sched_free(&c);
    }
    /* trailing garbage is rejected */
    gsvm_buf_u8(&buf, 0);
    lsl_sched c;
    lsl_heap hc;
    lsl_heap_init(&hc, 0);
    lsl_sched_init(&c, &hc, 0);
    CHECK_INT(lsl_sched_load(&c, buf.data, buf.len, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "after the scheduler state") != NULL);
    CHECK_INT(TOTAL(hc), 0);
    lsl_sched_free(&c);
    /* restoring into a smaller memory limit: Stack-Heap Collision, nothing left */
    buf.len--;
    lsl_heap_init(&hc, 64);
    lsl_sched_init(&c, &hc, 0);
    CHECK_INT(lsl_sched_load(&c, buf.data, buf.len, &err), GSVM_ERR_FAULT);
    CHECK_INT(TOTAL(hc), 0);
    CHECK_INT(c.count, 0);
    lsl_sched_free(&c);
    gsvm_buf_free(&buf);
    lsl_sched_free(&a);
    lsl_sched_free(&b);
    CHECK_INT(TOTAL(h1), 0);
    CHECK_INT(TOTAL(h2), 0);
}

/* Field offsets of the fixed header (see sched.c). */
enum { O_VER = 0, O_NOW = 1, O_BASE = 9, O_WAKE = 17, O_PERIOD = 25, O_DUE = 33, O_HANDLED = 41,
       O_DROPPED = 49, O_NEXT = 57, O_QCOUNT = 61 };

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static gsvm_status load_patched(const gsvm_buf *buf, size_t off, const void *bytes, size_t n,
                                gsvm_error *err)
{
    uint8_t *copy = malloc(buf->len);
    memcpy(copy, buf->data, buf->len);
    memcpy(copy + off, bytes, n);
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched s;
    lsl_sched_init(&s, &h, 0);
    gsvm_status st = lsl_sched_load(&s, copy, buf->len, err);
    bool clean = st == GSVM_OK || (s.count == 0 && s.nlistens == 0 && TOTAL(h) == 0);
    CHECK(clean);
    lsl_sched_free(&s);
    CHECK_INT(TOTAL(h), 0);
    free(copy);
    return st;
}

static void test_snapshot_validation(void)
{
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched a;
    gsvm_error err;
    /* a small state with exactly one queued touch and one listen */
    lsl_sched_init(&a, &h, 1000);
    lsl_sched_set_timer(&a, 2);
    bool q;
    push_touch(&a, 3, &q);
    lsl_value e = lsl_empty(LSL_TYPE_STRING), k = key(&h, K1);
    int32_t hh;
    lsl_sched_listen(&a, 9, &e, &k, &e, &hh, &err);
    lsl_value_release(&k);
    gsvm_buf buf;
    gsvm_buf_init(&buf);
    lsl_sched_save(&a, &buf, &err);
    CHECK_INT(buf.data[O_QCOUNT], 1);
    CHECK_INT(load_patched(&buf, 0, buf.data, 1, &err), GSVM_OK);
    uint8_t b8[8];
    uint8_t v = 2;
    CHECK_INT(load_patched(&buf, O_VER, &v, 1, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "version") != NULL);
    CHECK_INT(err.offset, 0);
    put64(b8, LSL_SCHED_MAX_TIME_MS + 1);
    CHECK_INT(load_patched(&buf, O_NOW, b8, 8, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "clock") != NULL);
    put64(b8, 1001);
    CHECK_INT(load_patched(&buf, O_BASE, b8, 8, &err), GSVM_ERR_INPUT);
    put64(b8, 1000 + LSL_SCHED_MAX_DELAY_MS + 1);
    CHECK_INT(load_patched(&buf, O_WAKE, b8, 8, &err), GSVM_ERR_INPUT);
    put64(b8, LSL_SCHED_MAX_DELAY_MS + 1);
    CHECK_INT(load_patched(&buf, O_PERIOD, b8, 8, &err), GSVM_ERR_INPUT);
    put64(b8, 1000); /* due not after now */
    CHECK_INT(load_patched(&buf, O_DUE, b8, 8, &err), GSVM_ERR_INPUT);
    put64(b8, 3001); /* due beyond now + period */
    CHECK_INT(load_patched(&buf, O_DUE, b8, 8, &err), GSVM_ERR_INPUT);
    put64(b8, 3000);
    CHECK_INT(load_patched(&buf, O_DUE, b8, 8, &err), GSVM_OK);
    put64(b8, UINT64_C(1) << 43);
    CHECK_INT(load_patched(&buf, O_HANDLED, b8, 8, &err), GSVM_ERR_INPUT);
    uint8_t z4[4] = {0, 0, 0, 0};
    CHECK_INT(load_patched(&buf, O_NEXT, z4, 4, &err), GSVM_ERR_INPUT);
    uint8_t neg[4] = {0xff, 0xff, 0xff, 0xff};
    CHECK_INT(load_patched(&buf, O_NEXT, neg, 4, &err), GSVM_ERR_INPUT);
    v = 65;
    CHECK_INT(load_patched(&buf, O_QCOUNT, &v, 1, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "queue length") != NULL);
    /* the queued event: index, then u8 type 1 + i32 */
    size_t ev_at = O_QCOUNT + 1;
    v = LSL_SCHED_EV_STATE_ENTRY;
    CHECK_INT(load_patched(&buf, ev_at, &v, 1, &err), GSVM_ERR_INPUT);
    v = 43;
    CHECK_INT(load_patched(&buf, ev_at, &v, 1, &err), GSVM_ERR_INPUT);
    v = (uint8_t)EV(changed); /* also one integer argument: fine */
    CHECK_INT(load_patched(&buf, ev_at, &v, 1, &err), GSVM_OK);
    v = (uint8_t)EV(land_collision); /* wants a vector */
    CHECK_INT(load_patched(&buf, ev_at, &v, 1, &err), GSVM_ERR_INPUT);
    v = 2; /* the argument as a float */
    CHECK_INT(load_patched(&buf, ev_at + 1, &v, 1, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "touch_start argument 1") != NULL);
    /* the listen: count, handle, channel, active, name, key flag, key, msg */
    size_t l_at = ev_at + 1 + 5;
    CHECK_INT(buf.data[l_at], 1);
    v = 66;
    CHECK_INT(load_patched(&buf, l_at, &v, 1, &err), GSVM_ERR_INPUT);
    CHECK_INT(load_patched(&buf, l_at + 1, z4, 4, &err), GSVM_ERR_INPUT);
    v = 2;
    CHECK_INT(load_patched(&buf, l_at + 9, &v, 1, &err), GSVM_ERR_INPUT);
    uint8_t big[4] = {0xff, 0xff, 0xff, 0x7f};
    CHECK_INT(load_patched(&buf, l_at + 10, big, 4, &err), GSVM_ERR_INPUT);
    CHECK_INT(load_patched(&buf, l_at + 15, "A", 1, &err), GSVM_ERR_INPUT); /* upper case */
    CHECK_INT(load_patched(&buf, l_at + 15, "g", 1, &err), GSVM_ERR_INPUT); /* not hex */
    CHECK_INT(load_patched(&buf, l_at + 15, "0", 1, &err), GSVM_OK);
    v = 2;
    CHECK_INT(load_patched(&buf, l_at + 14, &v, 1, &err), GSVM_ERR_INPUT);
    /* two timer events, or a duplicated listen handle */
    lsl_sched_free(&a);
    lsl_sched_init(&a, &h, 0);
    lsl_sched_set_timer(&a, 1);
    lsl_sched_advance(&a, 1000, NULL, &err);
    push_touch(&a, 1, &q);
    lsl_sched_listen(&a, 1, &e, &e, &e, &hh, &err);
    lsl_sched_listen(&a, 2, &e, &e, &e, &hh, &err);
    gsvm_buf_free(&buf);
    gsvm_buf_init(&buf);
    lsl_sched_save(&a, &buf, &err);
    CHECK_INT(load_patched(&buf, 0, buf.data, 1, &err), GSVM_OK);
    v = LSL_SCHED_EV_TIMER; /* the touch becomes a second timer... */
    uint8_t timer2[6] = {LSL_SCHED_EV_TIMER, LSL_SCHED_EV_TIMER, 0, 0, 0, 0};
    (void)timer2;
    /* queue: [timer][touch_start i32] -> the touch's index becomes timer's
     * and its value bytes then read as the listen count: rejected either way */
    CHECK_INT(load_patched(&buf, O_QCOUNT + 2, &v, 1, &err), GSVM_ERR_INPUT);
    size_t l2 = O_QCOUNT + 1 + 1 + 1 + 5;
    CHECK_INT(buf.data[l2], 2);
    size_t second_handle = l2 + 1 + (4 + 4 + 1 + 4 + 1 + 4);
    CHECK_INT(buf.data[second_handle], 2);
    v = 1;
    CHECK_INT(load_patched(&buf, second_handle, &v, 1, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "handle") != NULL);
    gsvm_buf_free(&buf);
    lsl_sched_free(&a);
    CHECK_INT(TOTAL(h), 0);
}

static void test_decode_usage(void)
{
    lsl_heap h1, h2;
    lsl_heap_init(&h1, 0);
    lsl_heap_init(&h2, 0);
    lsl_sched s;
    lsl_sched_init(&s, &h1, 0);
    gsvm_buf buf;
    gsvm_buf_init(&buf);
    gsvm_error err;
    lsl_sched_save(&s, &buf, &err);
    gsvm_reader r;
    gsvm_reader_init(&r, buf.data, buf.len, NULL, &err);
    lsl_value_decoder d;
    lsl_value_decoder_init(&d, &r, &h2);
    CHECK_INT(lsl_sched_decode(&s, &d, &err), GSVM_ERR_USAGE);
    lsl_value_decoder_free(&d);
    bool q;
    push_touch(&s, 1, &q);
    CHECK_INT(lsl_sched_load(&s, buf.data, buf.len, &err), GSVM_ERR_USAGE);
    CHECK_INT(s.count, 1);
    lsl_sched_free(&s);
    gsvm_buf_free(&buf);
}

static void write_seeds(const char *dir)
{
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_sched s;
    gsvm_error err;
    gsvm_buf buf;
    char path[4096];
    for (int i = 0; i < 3; i++) {
        if (i == 0)
            lsl_sched_init(&s, &h, 0);
        else
            build_busy(&s, &h);
        if (i == 2) {
            bool q;
            for (int k = 0; k < 70; k++)
                push_touch(&s, k, &q);
        }
        gsvm_buf_init(&buf);
        lsl_sched_save(&s, &buf, &err);
        snprintf(path, sizeof path, "%s/state%d.bin", dir, i);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(buf.data, 1, buf.len, f);
            fclose(f);
        }
        gsvm_buf_free(&buf);
        lsl_sched_free(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        write_seeds(argv[1]);
        return 0;
    }
    test_event_indexes();
    test_queue_fifo_and_drop();
    test_push_checks();
    test_handled_mask();
    test_memory_accounting();
    test_queue_memory();
    test_seconds();
    test_timer();
    test_timer_event_order();
    test_sleep_and_time();
    test_listens();
    test_reset();
    test_snapshot_roundtrip();
    test_snapshot_validation();
    test_decode_usage();
    TEST_MAIN_END();
}
