/* mission_host.c: a host program that embeds gsvm's mission runtime
 * (sandboxed Lua 5.4 whose callbacks are transactions).
 *
 *   cc -o mission_host mission_host.c $(pkg-config --cflags --libs gsvm)
 *   ./mission_host
 *
 * It opens a mission from source text with an in-memory record, reports
 * players joining, ticks the server clock so a timer fires, answers the
 * script's request (the host accepts it), and prints the committed record.
 * A callback that raises an error faults the mission without committing
 * anything of that callback. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gsvm/mission.h"

static const char script[] =
    "return {\n"
    "  on_start = function(c, st)\n"
    "    c:set_variable('joined', 0)\n"
    "    c:start_timer('countdown', 200)\n"
    "  end,\n"
    "  on_event_session_joined = function(c, st, ev)\n"
    "    c:set_variable('joined', st:variable('joined') + 1)\n"
    "    if ev.member_key == 'mallory' then error('no cheaters') end\n"
    "  end,\n"
    "  on_event_timer_elapsed = function(c, st, ev)\n"
    "    c:set_phase(1)\n"
    "    c.lifetime:set{state = 2}\n"
    "  end,\n"
    "  on_event_effect_result = function(c, st, ev)\n"
    "    c:set_variable('lifetime', ev.outcome)\n"
    "  end,\n"
    "}\n";

static gsvm_mission *mission; /* for the callbacks' clock read-out */

static gsvm_mission_answer on_request(void *ud, const gsvm_mission_request *r)
{
    (void)ud;
    printf("%4" PRIu64 " ms  request %" PRIu64 " %s %s: accepted\n",
           mission ? gsvm_mission_now_ms(mission) : 0, r->key, r->call, r->args_json);
    return GSVM_MISSION_ACCEPT;
}

static void on_result(void *ud, uint64_t key, const char *effect, const char *outcome)
{
    (void)ud;
    (void)effect;
    printf("%4" PRIu64 " ms  outcome %" PRIu64 ": %s\n", gsvm_mission_now_ms(mission), key, outcome);
}

static void on_fault(void *ud, const char *message)
{
    (void)ud;
    printf("fault: %s\n", message);
}

static void print_variable(void *ud, const char *name, const gsvm_mission_value *v)
{
    (void)ud;
    if (v->type == GSVM_MV_INT)
        printf("  %s = %" PRId64 "\n", name, v->i);
    else if (v->type == GSVM_MV_STR)
        printf("  %s = \"%.*s\"\n", name, (int)v->len, v->s);
}

static void print_record(const gsvm_mission *m)
{
    printf("committed: phase %u, revision %" PRIu64 ", %s\n", gsvm_mission_phase(m),
           gsvm_mission_revision(m), gsvm_mission_faulted(m) ? "faulted" : "running");
    gsvm_mission_foreach_variable(m, print_variable, NULL);
}

static int join(gsvm_mission *m, const char *who)
{
    gsvm_error err;
    gsvm_mission_field f = {"member_key", {.type = GSVM_MV_STR, .s = who, .len = strlen(who)}};
    if (gsvm_mission_report(m, "session_joined", &f, 1, &err) != GSVM_OK) {
        fprintf(stderr, "report: %s\n", err.message);
        return 1;
    }
    return 0;
}

int main(void)
{
    gsvm_error err;
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.activity_id = "embed_example";
    cfg.role = GSVM_MISSION_PRIVATE;
    cfg.host.request = on_request;
    cfg.host.effect_result = on_result;
    cfg.host.fault = on_fault;
    if (gsvm_mission_open(&cfg, script, strlen(script), &mission, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    if (join(mission, "alice") || join(mission, "bob"))
        return 1;
    for (int tick = 0; tick < 6; tick++) /* 300 ms of server ticks */
        if (gsvm_mission_advance(mission, 50, &err) != GSVM_OK) {
            fprintf(stderr, "advance: %s\n", err.message);
            return 1;
        }
    print_record(mission);
    /* This callback raises: the mission faults, its joined += 1 is not kept. */
    if (join(mission, "mallory"))
        return 1;
    print_record(mission);
    gsvm_mission_close(mission);
    return 0;
}
