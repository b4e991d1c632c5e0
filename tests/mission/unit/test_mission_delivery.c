/* Delivery of the outbox (one at a time; the 2 s / 15 s / 60 s rules and
 * their outcomes), effect_result, local requests, attempts and
 * restart_checkpoint, fireteam_state and the role. */
#include "harness.h"

static const char script[] =
    "return {\n"
    " on_event_session_joined = function(c, st, ev)\n"
    "   local k = c:complete_mission{} c:set_variable('k', k.value) end,\n"
    " on_event_session_left = function(c, st, ev)\n"
    "   c.lifetime:set{state = 1} c.lifetime:set{state = 2} end,\n"
    " on_event_entity_slots_requested = function(c, st, ev)\n"
    "   c:set_variable('seen', (st:variable('seen') or '') .. 'input;') end,\n"
    " on_event_effect_result = function(c, st, ev)\n"
    "   c:set_variable('r', (st:variable('r') or '') .. ev.request_key.value .. ':' .. ev.outcome .. ':' ..\n"
    "     ev.outcome_code .. ':' .. tostring(ev.effect) .. ';') end,\n"
    " on_event_timer_elapsed = function(c, st, ev) c:set_variable('seen', (st:variable('seen') or '') .. 'timer;') end,\n"
    " on_event_cinematic_started = function(c) c:hold_spawn{active = true} end,\n"
    " on_event_cinematic_terminated = function(c) c:select_state({region_index = 2}) c:squad('s'):actor_command{command = 'x'} end,\n"
    " on_event_object_interacted = function(c) c:start_timer('t', 0) end,\n"
    "}";

static gsvm_mission *open_delivery(rec_host *h, gsvm_mission_answer answer)
{
    gsvm_mission_config cfg;
    harness_config(&cfg, h);
    h->answer = answer;
    static gsvm_mission_world *w;
    gsvm_error err;
    if (!w) {
        static const char j[] = "{\"squads\": [\"s\"]}";
        gsvm_mission_world_parse(j, sizeof j - 1, "w", &w, &err);
    }
    cfg.world = w;
    gsvm_mission *m = open_with(script, &cfg, &err);
    if (!m)
        fprintf(stderr, "open: %s\n", err.message);
    return m;
}

static void advance(gsvm_mission *m, uint64_t ms)
{
    gsvm_error err;
    gsvm_mission_advance(m, ms, &err);
}

static void test_accept_and_order(void)
{
    rec_host h;
    gsvm_mission *m = open_delivery(&h, GSVM_MISSION_ACCEPT);
    report(m, "session_joined");
    CHECK_STR(var_str(m, "k"), "1");
    CHECK_STR(var_str(m, "r"), "1:transport_staged:0:lifetime.set;");
    /* Two requests: delivered one at a time, results seen after the queue is empty. */
    report(m, "session_left");
    CHECK(strstr(h.log, "req 2 lifetime.set lifetime:set {\"state\":1}\nres 2 transport_staged\n"
                        "req 3 lifetime.set lifetime:set {\"state\":2}\nres 3 transport_staged\n") != NULL);
    CHECK_STR(var_str(m, "r"), "1:transport_staged:0:lifetime.set;2:transport_staged:0:lifetime.set;"
                               "3:transport_staged:0:lifetime.set;");
    gsvm_mission_close(m);
}

static void test_refuse(void)
{
    rec_host h;
    gsvm_mission *m = open_delivery(&h, GSVM_MISSION_REFUSE);
    report(m, "session_joined");
    CHECK_STR(var_str(m, "r"), "1:refused:1:lifetime.set;");
    CHECK(!gsvm_mission_faulted(m)); /* refusals are not faults */
    gsvm_mission_close(m);
}

/* `answer` resolves after exactly `at` ms with `want` (or a fault when want is NULL). */
static void check_timeout(gsvm_mission_answer answer, uint64_t at, const char *want)
{
    rec_host h;
    gsvm_mission *m = open_delivery(&h, answer);
    report(m, "session_joined");
    CHECK_INT(gsvm_mission_pending_requests(m), 1);
    /* While the request is in delivery no input and no timer runs. */
    report(m, "entity_slots_requested");
    CHECK_STR(var_str(m, "seen"), "(none)");
    advance(m, at - 50);
    CHECK_INT(gsvm_mission_pending_requests(m), 1);
    CHECK_STR(var_str(m, "r"), "(none)");
    CHECK(!gsvm_mission_faulted(m));
    advance(m, 50);
    if (want) {
        char exp[100];
        snprintf(exp, sizeof exp, "1:%s;", want);
        CHECK(strncmp(var_str(m, "r"), exp, strlen(exp) - 1) == 0 || strstr(var_str(m, "r"), want));
        CHECK_INT(gsvm_mission_pending_requests(m), 0);
        CHECK_STR(var_str(m, "seen"), "input;");
    } else {
        CHECK(gsvm_mission_faulted(m));
        CHECK_STR(var_str(m, "seen"), "(none)");
    }
    gsvm_mission_close(m);
}

static void test_timeouts(void)
{
    check_timeout(GSVM_MISSION_STALL, 2000, "refused");
    check_timeout(GSVM_MISSION_DROP, 2000, "canceled");
    check_timeout(GSVM_MISSION_PENDING, 17000, "canceled");
    check_timeout(GSVM_MISSION_UNPUBLISHED, 60000, "expired");
    check_timeout(GSVM_MISSION_NO_CANCEL, 19000, NULL);
    rec_host h;
    gsvm_mission *m = open_delivery(&h, GSVM_MISSION_NO_CANCEL);
    report(m, "session_joined");
    advance(m, 19000);
    CHECK_STR(gsvm_mission_fault_text(m), "mission request cancel was not confirmed");
    gsvm_mission_close(m);
    m = open_delivery(&h, GSVM_MISSION_MISMATCH);
    report(m, "session_joined");
    CHECK_STR(gsvm_mission_fault_text(m), "mission host revision mismatch");
    gsvm_mission_close(m);
}

static void test_local_requests(void)
{
    rec_host h;
    /* Local requests finish without a host revision, whatever the host says. */
    gsvm_mission *m = open_delivery(&h, GSVM_MISSION_REFUSE);
    report(m, "cinematic_started");
    CHECK_STR(var_str(m, "r"), "1:transport_staged:0:mission.hold_spawn;");
    report(m, "cinematic_terminated");
    CHECK_STR(var_str(m, "r"), "1:transport_staged:0:mission.hold_spawn;2:transport_staged:0:mission.select_state;"
                               "3:transport_staged:0:nil;");
    gsvm_mission_close(m);
    /* select_state waits for publication, at most 60 s. */
    m = open_delivery(&h, GSVM_MISSION_UNPUBLISHED);
    report(m, "cinematic_terminated");
    CHECK_INT(gsvm_mission_pending_requests(m), 2);
    advance(m, 60000);
    CHECK_STR(var_str(m, "r"), "1:expired:2:mission.select_state;2:transport_staged:0:nil;");
    gsvm_mission_close(m);
}

static void test_timer_waits_for_delivery(void)
{
    rec_host h;
    gsvm_mission *m = open_delivery(&h, GSVM_MISSION_STALL);
    report(m, "object_interacted"); /* timer t due now */
    report(m, "session_joined");    /* a stalled request */
    advance(m, 1000);
    CHECK_STR(var_str(m, "seen"), "(none)");
    advance(m, 1000); /* refused at 2 s, then the timer fires */
    CHECK_STR(var_str(m, "seen"), "timer;");
    gsvm_mission_close(m);
}

static const char wipe_script[] =
    "return {\n"
    " on_start = function(c) c:start_timer('t', 100000) end,\n"
    " on_event_fireteam_state = function(c, st, ev)\n"
    "   c:set_variable('ft', (st:variable('ft') or '') .. ev.alive_count .. '/' .. ev.dead_count .. '@' .. c.attempt_generation .. ';')\n"
    "   if ev.dead_count > 0 and ev.alive_count == 0 and ev.unknown_count == 0 and not st:variable('arm') then\n"
    "     c:set_variable('arm', c:restart_checkpoint{region = 3, spawn_set_hash = 77}.value) end end,\n"
    " on_event_effect_result = function(c, st, ev)\n"
    "   c:set_variable('r', (st:variable('r') or '') .. ev.request_key.value .. ':' .. ev.outcome .. '@' .. ev.attempt_generation .. ';')\n"
    "   if ev.request_key.value == st:variable('arm') and ev.outcome == 'transport_staged' then\n"
    "     c:restart_checkpoint{region = 3, spawn_set_hash = 77, release_request = st:variable('arm')} end end,\n"
    " on_event_session_joined = function(c) c:restart_checkpoint{region = 3, spawn_set_hash = 77, release_request = '99'} end }";

static void fireteam(gsvm_mission *m, int alive, int dead)
{
    gsvm_error err;
    gsvm_mission_field f[3] = {{"alive_count", {GSVM_MV_INT, 0, alive, 0, NULL, 0}},
                               {"dead_count", {GSVM_MV_INT, 0, dead, 0, NULL, 0}},
                               {"unknown_count", {GSVM_MV_INT, 0, 0, 0, NULL, 0}}};
    gsvm_mission_report(m, "fireteam_state", f, 3, &err);
}

static void region(gsvm_mission *m, int r)
{
    gsvm_error err;
    gsvm_mission_field f = {"region_index", {GSVM_MV_INT, 0, r, 0, NULL, 0}};
    gsvm_mission_report(m, "region_changed", &f, 1, &err);
}

static void test_checkpoint(void)
{
    rec_host h;
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    gsvm_error err;
    /* Public: fireteam_state never fires. */
    gsvm_mission *m = open_with(wipe_script, &cfg, &err);
    fireteam(m, 0, 3);
    CHECK_STR(var_str(m, "ft"), "(none)");
    gsvm_mission_close(m);
    /* region_changed carries the previous region (nil the first time). */
    harness_config(&cfg, &h);
    m = open_with("return { on_event_region_changed = function(c, st, ev)\n"
                  "  c:set_variable('rc', (st:variable('rc') or '') .. tostring(ev.previous_region_index) .. '>' ..\n"
                  "    ev.region_index .. ';') end }", &cfg, &err);
    region(m, 4);
    region(m, 6);
    CHECK_STR(var_str(m, "rc"), "nil>4;4>6;");
    gsvm_mission_close(m);
    /* Private, but the last reported region differs: refused. */
    harness_config(&cfg, &h);
    cfg.role = GSVM_MISSION_PRIVATE;
    m = open_with(wipe_script, &cfg, &err);
    region(m, 5);
    fireteam(m, 0, 3);
    CHECK_STR(var_str(m, "r"), "1:refused@1;");
    CHECK_INT(gsvm_mission_attempt(m), 1);
    gsvm_mission_close(m);
    /* Accepted: a new attempt (timers cleared, fireteam_state again), then the release. */
    harness_config(&cfg, &h);
    cfg.role = GSVM_MISSION_PRIVATE;
    m = open_with(wipe_script, &cfg, &err);
    CHECK_INT(gsvm_mission_timer_count(m), 1);
    report(m, "session_joined"); /* a release without a wipe: wipe_not_active */
    CHECK_STR(var_str(m, "r"), "1:refused@1;");
    region(m, 3);
    fireteam(m, 1, 2);
    fireteam(m, 0, 3);
    CHECK_INT(gsvm_mission_attempt(m), 2);
    CHECK_INT(gsvm_mission_timer_count(m), 0);
    CHECK_STR(var_str(m, "ft"), "1/2@1;0/3@1;0/3@2;");
    CHECK_STR(var_str(m, "r"), "1:refused@1;2:transport_staged@2;3:transport_staged@2;");
    CHECK_STR(var_str(m, "arm"), "2");
    gsvm_mission_close(m);
}

int main(void)
{
    test_accept_and_order();
    test_refuse();
    test_timeouts();
    test_local_requests();
    test_timer_waits_for_delivery();
    test_checkpoint();
    TEST_MAIN_END();
}
