/* async_host.c: a game-server host that answers a mission's requests later,
 * the way a network thread would.  Self-contained: only the gsvm headers.
 *
 *   cc -o async_host async_host.c $(pkg-config --cflags --libs gsvm)
 *   ./async_host
 *
 * The host answers every request with GSVM_MISSION_DEFER and keeps it in
 * its own "network" list.  Each server tick (50 ms) it advances the mission's
 * clock and, when an answer is due, reports it with
 * gsvm_mission_report_outcome.  The four requests of the script get four
 * fates (times since the request reached the head of the queue):
 *   key 1  committed at 100 ms, staged at 300 ms        -> transport_staged
 *   key 2  refused by the host at 150 ms                -> refused
 *   key 3  never committed: the runtime refuses it after the commit wait
 *   key 4  committed, stuck in the network queue: the runtime asks for a
 *          cancel after the network wait, the host confirms -> canceled
 * The deadlines are shortened in the config (commit 1 s, network 3 s) so
 * the whole run is 6 s of simulated time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/mission.h"

static const char script[] =
    "return {\n"
    "  on_start = function(c)\n"
    "    c.lifetime:set{state = 1}\n"
    "    c.lifetime:set{state = 2}\n"
    "    c.lifetime:set{state = 3}\n"
    "    c.lifetime:set{state = 4}\n"
    "  end,\n"
    "  on_event_effect_result = function(c, st, ev)\n"
    "    c:set_variable('r' .. ev.request_key.value, ev.outcome)\n"
    "  end,\n"
    "}\n";

typedef struct host {
    gsvm_mission *m;       /* NULL while gsvm_mission_open runs (the clock is 0 then) */
    uint64_t cancel_key;   /* a cancel the runtime asked for, 0 when none */
} host;

static unsigned long long now(const host *h)
{
    return h->m ? (unsigned long long)gsvm_mission_now_ms(h->m) : 0;
}

static gsvm_mission_answer on_request(void *ud, const gsvm_mission_request *r)
{
    host *h = ud;
    printf("%6llu ms  request %llu %s %s: deferred\n", now(h),
           (unsigned long long)r->key, r->call, r->args_json);
    return GSVM_MISSION_DEFER;
}

static void on_result(void *ud, uint64_t key, const char *effect, const char *outcome)
{
    host *h = ud;
    (void)effect;
    printf("%6llu ms  outcome %llu: %s\n", now(h), (unsigned long long)key, outcome);
}

static void on_cancel(void *ud, uint64_t key)
{
    host *h = ud;
    printf("%6llu ms  the runtime asks to cancel %llu\n", now(h), (unsigned long long)key);
    h->cancel_key = key;
}

static void on_fault(void *ud, const char *message)
{
    (void)ud;
    printf("fault: %s\n", message);
}

/* The host's network: when the head request gets which answer. */
static void network(gsvm_mission *m, host *h)
{
    gsvm_mission_request head;
    bool deferred;
    if (!gsvm_mission_head_request(m, &head, &deferred) || !deferred)
        return;
    gsvm_error err;
    static uint64_t since;      /* when this request reached the head */
    static uint64_t head_key;
    if (head.key != head_key) {
        head_key = head.key;
        since = now(h);
    }
    uint64_t age = now(h) - since;
    int outcome = -1;
    if (head.key == 1 && age == 100)
        outcome = GSVM_MISSION_COMMITTED;
    else if (head.key == 1 && age == 300)
        outcome = GSVM_MISSION_STAGED;
    else if (head.key == 2 && age == 150)
        outcome = GSVM_MISSION_REFUSED;
    else if (head.key == 4 && age == 50)
        outcome = GSVM_MISSION_COMMITTED;
    else if (head.key == 4 && h->cancel_key == 4)
        outcome = GSVM_MISSION_CANCELED;
    if (outcome < 0)
        return;
    if (outcome == GSVM_MISSION_COMMITTED)
        printf("%6llu ms  host committed %llu\n", now(h), (unsigned long long)head.key);
    if (gsvm_mission_report_outcome(m, head.key, (gsvm_mission_outcome)outcome, &err) != GSVM_OK)
        printf("outcome refused: %s\n", err.message);
}

static void print_var(void *ud, const char *name, const gsvm_mission_value *v)
{
    (void)ud;
    printf("  %s = %.*s\n", name, (int)v->len, v->s);
}

int main(void)
{
    host h = {NULL, 0};
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.activity_id = "async_host";
    cfg.commit_wait_ms = 1000;
    cfg.network_wait_ms = 3000;
    cfg.host.request = on_request;
    cfg.host.effect_result = on_result;
    cfg.host.cancel = on_cancel;
    cfg.host.fault = on_fault;
    cfg.host.ud = &h;
    gsvm_mission *m;
    gsvm_error err;
    if (gsvm_mission_open(&cfg, script, strlen(script), &m, &err) != GSVM_OK) {
        fprintf(stderr, "%s: %s\n", err.file, err.message);
        return 1;
    }
    h.m = m;
    /* The server loop: one tick at a time, the network answers in between. */
    while (gsvm_mission_pending_requests(m) > 0 && !gsvm_mission_faulted(m) && now(&h) < 60000) {
        network(m, &h);
        if (gsvm_mission_advance(m, 50, &err) != GSVM_OK) {
            fprintf(stderr, "advance: %s\n", err.message);
            break;
        }
    }
    printf("record:\n");
    gsvm_mission_foreach_variable(m, print_var, NULL);
    int rc = gsvm_mission_faulted(m) ? 3 : 0;
    gsvm_mission_close(m);
    return rc;
}
