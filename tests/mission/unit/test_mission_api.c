/* The context/state API, its argument checks and error texts, transactions
 * (copy on write, commit, discard), timers, phase, revision, world handles,
 * the file-stem rule and the program table checks. */
#include <stdlib.h>
#include <sys/stat.h>

#include "harness.h"

static gsvm_mission *body(const char *code, rec_host *h)
{
    char src[8192];
    snprintf(src, sizeof src, "return { on_event_session_joined = function(c, st, ev)\n%s\nend }", code);
    return open_src(src, h);
}

static void expect_fault(const char *code, const char *want)
{
    rec_host h;
    gsvm_mission *m = body(code, &h);
    CHECK(m != NULL);
    if (!m)
        return;
    report(m, "session_joined");
    CHECK(gsvm_mission_faulted(m));
    if (!strstr(gsvm_mission_fault_text(m), want)) {
        fprintf(stderr, "  code: %s\n  fault '%s', want '%s'\n", code, gsvm_mission_fault_text(m), want);
        CHECK(!"fault text");
    }
    gsvm_mission_close(m);
}

static void expect_x(const char *code, const char *want)
{
    rec_host h;
    gsvm_mission *m = body(code, &h);
    CHECK(m != NULL);
    if (!m)
        return;
    report(m, "session_joined");
    if (gsvm_mission_faulted(m))
        fprintf(stderr, "  code: %s\n  fault: %s\n", code, gsvm_mission_fault_text(m));
    CHECK_STR(var_str(m, "x"), want);
    gsvm_mission_close(m);
}

static void test_variables(void)
{
    /* A callback reads its own writes; values keep their type. */
    expect_x("c:set_variable('a', 1) c:set_variable('b', 2.5) c:set_variable('c', true)\n"
             "c:set_variable('d', 'txt') c:clear_variable('d')\n"
             "c:set_variable('x', math.type(st:variable('a')) .. ' ' .. st:variable('b') .. ' ' ..\n"
             "  tostring(st:variable('c')) .. ' ' .. tostring(st:variable('d')) .. ' ' ..\n"
             "  tostring(st:has_variable('a')) .. tostring(st:has_variable('d')))",
             "integer 2.5 true nil truefalse");
    expect_x("c:set_variable('n', 1) local a = c:clear_variable('n') local b = c:clear_variable('n')\n"
             "c:set_variable('x', tostring(a) .. tostring(b))", "truefalse");
    expect_x("c:set_variable('x', string.rep('y', 127))",
             "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
    expect_fault("c:set_variable('x', string.rep('y', 128))", "mission variable value is not a bounded scalar");
    expect_fault("c:set_variable('x', 0/0)", "mission variable value is not a bounded scalar");
    expect_fault("c:set_variable('x', math.huge)", "mission variable value is not a bounded scalar");
    expect_fault("c:set_variable('x', {})", "mission variable value is not a bounded scalar");
    expect_fault("c:set_variable('x', nil)", "mission variable value is not a bounded scalar");
    expect_fault("c:set_variable(5, 1)", "mission variable name is invalid");
    expect_fault("c:set_variable('', 1)", "mission variable name is invalid");
    expect_fault("c:set_variable('a b', 1)", "mission variable name is invalid");
    expect_fault("c:set_variable(string.rep('n', 64), 1)", "mission variable name is invalid");
    expect_x("c:set_variable(string.rep('n', 63), 1) c:set_variable('A-z_0./9', 2) c:set_variable('x', 'ok')", "ok");
    /* 512 names fit; a 513th does not; clearing makes room in the same callback. */
    expect_x("for i = 1, 511 do c:set_variable('v' .. i, i) end c:set_variable('x', 'full')", "full");
    expect_x("for i = 1, 511 do c:set_variable('v' .. i, i) end c:set_variable('x', 'full')", "full");
    expect_fault("for i = 1, 513 do c:set_variable('v' .. i, i) end", "mission variable capacity exceeded");
    expect_x("for i = 1, 511 do c:set_variable('v' .. i, i) end c:clear_variable('v1') c:set_variable('v0', 0)\n"
             "c:set_variable('v1', 1) c:clear_variable('v2') c:set_variable('x', 'ok')", "ok");
    expect_x("c:set_variable('x', c.variables.capacity .. ' ' .. c.timers.capacity .. ' ' ..\n"
             "  c.variables:resolve('a.b').name .. ' ' .. c.timers:resolve('t').name)", "512 32 a.b t");
    expect_fault("c.timers:resolve('sunrise/x')", "mission timer name is invalid or reserved");
}

static void test_transactions(void)
{
    rec_host h;
    gsvm_mission *m = open_src(
        "return {\n"
        " on_start = function(c) c:set_variable('base', 1) end,\n"
        " on_event_session_joined = function(c, st) c:set_variable('base', 2) c:set_variable('new', 1)\n"
        "   c:start_timer('t', 10) c:set_phase(4) c:complete_mission{} error('boom') end,\n"
        " on_event_session_left = function(c, st) c:set_variable('left', st.revision) end,\n"
        " on_event_entity_slots_requested = function(c, st) return 'ignored' end }",
        &h);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_INT(gsvm_mission_revision(m), 1); /* on_start consumes a revision */
    report(m, "entity_slots_requested");     /* a no-op callback changes nothing */
    CHECK_INT(gsvm_mission_revision(m), 1);
    report(m, "session_joined");
    CHECK(gsvm_mission_faulted(m));
    CHECK(strstr(gsvm_mission_fault_text(m), "boom") != NULL);
    /* Nothing of the failed callback happened. */
    CHECK_INT(var_int(m, "base"), 1);
    CHECK_INT(var_int(m, "new"), -999999);
    CHECK_INT(gsvm_mission_timer_count(m), 0);
    CHECK_INT(gsvm_mission_phase(m), 0);
    CHECK_INT(h.requests, 0);
    CHECK_INT(gsvm_mission_revision(m), 1);
    /* A faulted mission runs no more callbacks; reopening faults again. */
    report(m, "session_left");
    CHECK_INT(var_int(m, "left"), -999999);
    gsvm_error err;
    int faults = h.faults;
    CHECK_INT(gsvm_mission_reopen(m, &err), GSVM_OK);
    CHECK(gsvm_mission_faulted(m));
    CHECK_INT(h.faults, faults + 1);
    /* Reload script clears it. */
    CHECK_INT(gsvm_mission_reload_script(m, NULL, 0, &err), GSVM_OK);
    CHECK(!gsvm_mission_faulted(m));
    report(m, "session_left");
    CHECK_STR(var_str(m, "left"), "1");
    CHECK_INT(gsvm_mission_revision(m), 2);
    gsvm_mission_close(m);
}

static void test_error_text(void)
{
    /* 255 characters; '"' -> '\''; CR, LF, TAB -> space. */
    rec_host h;
    gsvm_mission *m = body("error('a\"b\\r\\n\\tc' .. string.rep('z', 400), 0)", &h);
    report(m, "session_joined");
    const char *t = gsvm_mission_fault_text(m);
    CHECK_INT(strlen(t), 255);
    CHECK(strncmp(t, "a'b   czzz", 10) == 0);
    gsvm_mission_close(m);
    expect_fault("error(42)", "42");
    expect_fault("error()", "(error object is a nil value)");
    expect_fault("assert(false, 'no way')", "no way");
}

static void test_timers_and_phase(void)
{
    rec_host h;
    gsvm_mission *m = open_src(
        "return {\n"
        " on_start = function(c) local s1 = c:start_timer('a', 100) local s2 = c:start_timer('b', 100)\n"
        "   local s3 = c:start_timer('a', 120) c:set_variable('seqs', s1 .. s2 .. s3)\n"
        "   end,\n"
        " on_event_timer_elapsed = function(c, st, ev)\n"
        "   c:set_variable('fired', (st:variable('fired') or '') .. ev.timer_name .. '@' .. ev.timer_deadline_tick ..\n"
        "     '#' .. ev.timer_sequence .. ';')\n"
        "   c:set_variable('gone_' .. ev.timer_name, st:timer(ev.timer_name) == nil)\n"
        "   c:set_phase(st.phase + 1) end,\n"
        " on_event_phase_entered = function(c, st, ev)\n"
        "   c:set_variable('pe', (st:variable('pe') or '') .. ev.previous_phase .. '>' .. ev.phase .. ';') end }",
        &h);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR(var_str(m, "seqs"), "123");
    CHECK_INT(gsvm_mission_timer_count(m), 2);
    gsvm_error err;
    gsvm_mission_advance(m, 100, &err); /* ticks of 50 ms: b is due at 100 */
    CHECK_STR(var_str(m, "fired"), "b@100#2;");
    gsvm_mission_advance(m, 50, &err);
    CHECK_STR(var_str(m, "fired"), "b@100#2;a@120#3;");
    CHECK_INT(var_int(m, "gone_a"), 1);
    CHECK_INT(var_int(m, "gone_b"), 1);
    CHECK_INT(gsvm_mission_timer_count(m), 0);
    CHECK_INT(gsvm_mission_phase(m), 2);
    CHECK_STR(var_str(m, "pe"), "0>1;1>2;");
    gsvm_mission_close(m);

    /* At most one timer per tick. */
    m = open_src("return { on_start = function(c) c:start_timer('x', 0) c:start_timer('y', 0) c:start_timer('z', 0) end,\n"
                 " on_event_timer_elapsed = function(c, st, ev) c:set_variable('n', (st:variable('n') or 0) + 1) end }",
                 &h);
    gsvm_mission_advance(m, 50, &err);
    CHECK_INT(var_int(m, "n"), 1);
    gsvm_mission_advance(m, 100, &err);
    CHECK_INT(var_int(m, "n"), 3);
    gsvm_mission_close(m);

    /* Without a handler the timer is still removed (a durable change). */
    m = open_src("return { on_start = function(c) c:start_timer('x', 10) end }", &h);
    CHECK_INT(gsvm_mission_revision(m), 1);
    gsvm_mission_advance(m, 50, &err);
    CHECK_INT(gsvm_mission_timer_count(m), 0);
    CHECK_INT(gsvm_mission_revision(m), 2);
    gsvm_mission_close(m);

    expect_fault("c:start_timer('t', -1)", "mission timer delay is outside u32 milliseconds");
    expect_fault("c:start_timer('t', 4294967296)", "mission timer delay is outside u32 milliseconds");
    expect_fault("c:start_timer('t', 1.5)", "mission timer delay is outside u32 milliseconds");
    expect_x("c:set_variable('x', c:start_timer('t', 4294967295))", "1");
    expect_fault("c:start_timer('sunrise/t', 1)", "mission timer name is invalid or reserved");
    expect_fault("for i = 1, 33 do c:start_timer('t' .. i, 1) end", "mission timer capacity exceeded");
    expect_x("for i = 1, 32 do c:start_timer('t' .. i, 1) end c:start_timer('t1', 5)\n"
             "c:set_variable('x', tostring(c:cancel_timer('t1')) .. tostring(c:cancel_timer('t1')) .. tostring(st:timer('t2')))",
             "truefalse1");
    expect_fault("c:set_phase(-1)", "mission phase is outside u32");
    expect_fault("c:set_phase(4294967296)", "mission phase is outside u32");
    expect_fault("c:set_phase('1')", "mission phase is outside u32");
    /* Setting the same phase raises nothing and changes nothing. */
    m = open_src("return { on_event_session_joined = function(c) c:set_phase(0) end,\n"
                 " on_event_phase_entered = function(c) c:set_variable('pe', true) end }", &h);
    report(m, "session_joined");
    CHECK_INT(var_int(m, "pe"), -999999);
    CHECK_INT(gsvm_mission_revision(m), 1);
    gsvm_mission_close(m);
}

static void test_context_fields(void)
{
    expect_x("c:set_variable('x', c.activity_id .. ' ' .. c.activity_role .. ' ' .. c.attempt_generation ..\n"
             "  ' ' .. tostring(c.mission_complete) .. ' ' .. c.player_key .. ' ' .. c.activity_row .. ' ' ..\n"
             "  c.definition_hash .. ' ' .. #c.sdk_build_id .. c.sdk_build_id:sub(1, 7) .. ' ' .. c.peers.count ..\n"
             "  ' ' .. tostring(c.nothing) .. ' ' .. tostring(c.sdk == c.sdk) .. tostring(c.sdk.build_id == c.sdk_build_id))",
             "test public 1 false 0 0 0 71sha256: 0 nil falsetrue");
    expect_fault("c.x = 1", "attempt to index");
    expect_x("c:set_variable('x', tostring(getmetatable))", "nil");
    /* Argument tables. */
    expect_fault("c:complete_mission(5)", "effect arguments must be one table");
    expect_fault("c:complete_mission{x = 1}", "effect argument is not declared");
    expect_fault("c:complete_mission{1}", "effect argument is not declared");
    expect_fault("c:hold_spawn{}", "hold_spawn requires an active boolean");
    expect_fault("c:hold_spawn{active = 1}", "hold_spawn requires an active boolean");
    expect_fault("c.lifetime:set{state = 11}", "lifetime state is outside 0..10");
    expect_fault("c:restart_checkpoint{region = 1023, spawn_set_hash = 1}", "restart_checkpoint region is outside 0..1022");
    expect_fault("c:restart_checkpoint{region = 1, spawn_set_hash = 0xFFFFFFFF}", "spawn_set_hash is outside");
    expect_fault("c:restart_checkpoint{region = 1, spawn_set_hash = 1, release_request = '0'}", "not a request key value");
    expect_fault("c:restart_checkpoint{region = 1, spawn_set_hash = 1, release_request = 5}", "not a request key value");
    expect_fault("c:select_state({})", "region_index");
    expect_fault("c:select_state({region_index = -1})", "region_index");
    expect_x("c:select_state({region_index = 3}, {retire_placed_props = true, whatever = 1}) c:set_variable('x', 'ok')", "ok");
    expect_fault("c:slot(1)", "unknown or ambiguous activity slot");
    expect_fault("c:squad('a')", "unknown or ambiguous activity squad");
    expect_fault("c:scene({})", "unknown or ambiguous authored scene");
    /* RequestKey. */
    expect_x("local a = c:complete_mission{} local b = c:complete_mission{} local a2 = a\n"
             "c:set_variable('x', a.value .. b.value .. tostring(a:matches(a2)) .. tostring(a:matches(b)) ..\n"
             "  tostring(a == b) .. tostring(a.nothing))", "12truefalsefalsenil");
    expect_fault("local a = c:complete_mission{} a:matches('1')", "bad argument");
}

static void test_complete_mission(void)
{
    rec_host h;
    gsvm_mission *m = body("c:complete_mission{} c:complete_mission{} c:set_variable('n', (st:variable('n') or 0) + 1)", &h);
    report(m, "session_joined"); /* two calls in one callback both pass */
    CHECK(!gsvm_mission_faulted(m));
    CHECK_INT(h.requests, 2);
    report(m, "session_joined");
    CHECK(gsvm_mission_faulted(m));
    /* '"' of the chunk name becomes '\'' in the kept text */
    CHECK_STR(gsvm_mission_fault_text(m), "[string 'test']:2: mission attempt is already complete");
    gsvm_mission_close(m);
}

static const char world_json[] =
    "{\"activity\": {\"name\": \"Mission Deadzone-2\", \"index\": 7, \"definition_hash\": 3735928559, \"row\": 3,"
    " \"player_key\": \"76561\", \"role\": \"private\"},"
    " \"slots\": [{\"id\": \"crate_b\", \"type\": 4, \"tag\": 2, \"registry_key\": \"20\", \"owner\": \"host\"},"
    "            {\"id\": \"crate_a\", \"type\": 4, \"tag\": 1, \"registry_key\": \"10\", \"owner\": \"host\"},"
    "            {\"id\": \"door\", \"type\": 3, \"tag\": 1, \"registry_key\": \"30\"},"
    "            {\"id\": \"zone\", \"type\": 2, \"tag\": 1, \"registry_key\": \"40\", \"owner\": \"peer\"},"
    "            {\"id\": \"crate_c\", \"type\": 4, \"tag\": 1, \"registry_key\": \"11\", \"owner\": \"peer\"}],"
    " \"squads\": [\"wave1\", {\"id\": \"wave2\"}], \"scenes\": [\"intro\"],"
    " \"peers\": [{\"session_id\": \"9\", \"session_generation\": \"2\", \"member_key\": \"76561\", \"join_identity\": \"j\"}]}";

static void test_world(void)
{
    gsvm_mission_world *w = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_mission_world_parse(world_json, strlen(world_json), "w.json", &w, &err), GSVM_OK);
    if (!w)
        return;
    CHECK_STR(gsvm_mission_world_activity_name(w), "Mission Deadzone-2");
    CHECK_INT(gsvm_mission_world_role(w), GSVM_MISSION_PRIVATE);
    rec_host h;
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    cfg.world = w;
    cfg.role = GSVM_MISSION_PRIVATE;
    gsvm_mission *m = open_with(
        "return { on_event_session_joined = function(c, st, ev)\n"
        "  local keys = c:activate_objects{slots = {c:slot('crate_b'), c:slot(2), c:slot('crate_c')}}\n"
        "  local door = c:slot('door')\n"
        "  door:set_channel{channel = 1, value = 2}\n"
        "  c:squad('wave2'):place{counts = {3, 2}, mode = 'burst'}\n"
        "  c:scene(1):activate{spawn = true}\n"
        "  local n1, g1, mk = c.peers:at(1)\n"
        "  c:set_variable('x', #keys .. ' ' .. door.id .. door.slot_type .. door.registry_key .. ' ' ..\n"
        "    c.activity_row .. ' ' .. c.definition_hash .. ' ' .. c.player_key .. ' ' .. c.peers.count .. n1 .. g1 .. mk ..\n"
        "    ' ' .. tostring(c:slot(1) == c:slot(1)) .. ' ' .. tostring(c.peers:at(2)))\n"
        "end,\n"
        " on_event_session_left = function(c) c:slot('door'):fire_trigger{} end,\n"
        " on_event_entity_slots_requested = function(c) c:slot('zone'):fire_trigger{x = 1} end,\n"
        " on_event_client_message_received = function(c) c:activate_objects{slots = {c:slot(1), c:slot(1)}} end,\n"
        " on_event_incident_received = function(c) c:activate_objects{slots = {c:slot('door')}} end,\n"
        " on_event_cinematic_started = function(c) local t = c:cohort{squads = {c:squad(1), c:squad(2)}}\n"
        "   c:set_variable('co', tostring(t.alive_count) .. tostring(t.observed_full) .. tostring(t.cleared) .. t.size) end,\n"
        " on_event_trigger_entered = function(c, st, ev) c:set_variable('tr', ev.slot.id .. ev.registry_key .. ev.slot_type .. ev.slot_index) end }",
        &cfg, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err.message);
        gsvm_mission_world_free(w);
        return;
    }
    report(m, "session_joined");
    if (gsvm_mission_faulted(m))
        fprintf(stderr, "world fault: %s\n", gsvm_mission_fault_text(m));
    CHECK_STR(var_str(m, "x"), "2 door330 3 3735928559 76561 19276561 false nil");
    /* Objects sorted by (tag, registry key, row), split per owner. */
    CHECK(strstr(h.log, "req 1 slot.set_object_active context:activate_objects {\"active\":true,\"owner\":\"host\",\"slots\":[\"crate_a\",\"crate_b\"]}") != NULL);
    CHECK(strstr(h.log, "req 2 slot.set_object_active context:activate_objects {\"active\":true,\"owner\":\"peer\",\"slots\":[\"crate_c\"]}") != NULL);
    CHECK(strstr(h.log, "req 3 slot.set_channel slot:set_channel {\"channel\":1,\"slot\":\"door\",\"value\":2}") != NULL);
    CHECK(strstr(h.log, "req 4 squad.place squad:place {\"counts\":[3,2],\"mode\":\"burst\",\"squad\":\"wave2\"}") != NULL);
    CHECK(strstr(h.log, "req 5 scene.activate scene:activate {\"scene\":\"intro\",\"spawn\":true}") != NULL);
    report(m, "cinematic_started");
    CHECK_STR(var_str(m, "co"), "nilfalsefalse2");
    gsvm_mission_field sq[2] = {{"squad", {GSVM_MV_STR, 0, 0, 0, "wave1", 5}}, {"alive_count", {GSVM_MV_INT, 0, 0, 0, NULL, 0}}};
    gsvm_mission_report(m, "squad_state", sq, 2, &err);
    sq[0].value.s = "wave2";
    gsvm_mission_report(m, "squad_state", sq, 2, &err);
    report(m, "cinematic_started");
    CHECK_STR(var_str(m, "co"), "0truetrue2");
    /* First report of a trigger slot is silent; the next one fires, with the slot's members. */
    report_str(m, "trigger_entered", "slot", "zone");
    CHECK_STR(var_str(m, "tr"), "(none)");
    report_str(m, "trigger_entered", "slot", "zone");
    CHECK_STR(var_str(m, "tr"), "zone4024");
    report(m, "session_left");
    CHECK(gsvm_mission_faulted(m));
    CHECK(strstr(gsvm_mission_fault_text(m), "fire_trigger requires a slot of type 2") != NULL);
    gsvm_mission_reload_script(m, NULL, 0, &err);
    report(m, "entity_slots_requested");
    CHECK(strstr(gsvm_mission_fault_text(m), "effect argument is not declared") != NULL);
    gsvm_mission_reload_script(m, NULL, 0, &err);
    report(m, "client_message_received");
    CHECK(strstr(gsvm_mission_fault_text(m), "activate_objects slots repeat") != NULL);
    gsvm_mission_reload_script(m, NULL, 0, &err);
    report(m, "incident_received");
    CHECK(strstr(gsvm_mission_fault_text(m), "requires object slots (type 4)") != NULL);
    gsvm_mission_close(m);
    gsvm_mission_world_free(w);

    static const char *const bad[] = {"[]", "{\"slots\": 5}", "{\"slots\": [{\"id\": 1}]}", "{\"nope\": 1}",
                                      "{\"activity\": {\"role\": \"boss\"}}", "{\"spawn_sets\": [0]}",
                                      "{\"tick_ms\": 0}", "{", NULL};
    for (int i = 0; bad[i]; i++) {
        w = NULL;
        CHECK_INT(gsvm_mission_world_parse(bad[i], strlen(bad[i]), "w.json", &w, &err), GSVM_ERR_INPUT);
        CHECK(w == NULL);
    }
}

static void test_program_table(void)
{
    rec_host h;
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    gsvm_error err;
    static const struct {
        const char *src, *msg;
    } cases[] = {
        {"return 1", "mission chunk must return one program table"},
        {"return", "mission chunk must return one program table"},
        {"return { on_start = 1 }", "mission entries must be functions or nil"},
        {"return { on_load = 'x' }", "mission entries must be functions or nil"},
        {"return { on_event_trigger_entered = true }", "mission event entries must be functions or nil"},
        {"return { on_event = function() end }", "on_event is unsupported; use one on_event_<type> callback"},
        {"return { initial_state = 5 }", "initial_state must be a generated state with an integer region_index"},
        {"return { initial_state = { region_index = 1.5 } }", "initial_state must be a generated state"},
        {"return { initial_state = { region_index = 1, spawn_set_hash = 0 } }", "initial_state must be"},
        {"return { initial_state = { region_index = 1, omit = 3 } }", "initial_state must be"},
        {"return {", "expected"},
        {"error('top')", "top"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gsvm_mission *m = open_with(cases[i].src, &cfg, &err);
        CHECK(m == NULL);
        if (!strstr(err.message, cases[i].msg)) {
            fprintf(stderr, "  %s: '%s', want '%s'\n", cases[i].src, err.message, cases[i].msg);
            CHECK(!"program error");
        }
        gsvm_mission_close(m);
    }
    /* Entries are read raw: __index does not supply callbacks. */
    gsvm_mission *m = open_with("return setmetatable({}, {__index = { on_start = function(c) c:set_variable('x', 1) end }})", &cfg, &err);
    CHECK(m != NULL);
    if (m)
        CHECK_INT(gsvm_mission_variable_count(m), 0);
    gsvm_mission_close(m);
    m = open_with("return { initial_state = { region_index = 4, spawn_set_hash = 0xFFFFFFFF, omit = {} },\n"
                  " on_event_auth_state_committed = function(c) c:set_variable('never', 1) end }", &cfg, &err);
    CHECK(m != NULL);
    if (m) {
        report(m, "auth_state_committed"); /* never reaches a script */
        CHECK_INT(gsvm_mission_variable_count(m), 0);
        CHECK_INT(gsvm_mission_report(m, "no_such_kind", NULL, 0, &err), GSVM_ERR_USAGE);
        CHECK_INT(gsvm_mission_report(m, "timer_elapsed", NULL, 0, &err), GSVM_ERR_USAGE);
    }
    gsvm_mission_close(m);
    CHECK_INT(gsvm_mission_event_kind("region_changed"), 40);
    CHECK_STR(gsvm_mission_event_name(15), "timer_elapsed");
    CHECK(gsvm_mission_event_name(41) == NULL);
}

static void check_stem(const char *internal, const char *display, const char *want)
{
    char out[200];
    gsvm_error err;
    gsvm_status st = gsvm_mission_file_stem(internal, display, out, sizeof out, &err);
    if (want) {
        CHECK_INT(st, GSVM_OK);
        CHECK_STR(out, want);
    } else {
        CHECK_INT(st, GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "file_error") != NULL);
    }
}

static void test_stem_and_find(void)
{
    check_stem("Mission Deadzone-2", "", "mission_deadzone_2");
    check_stem("  --Mission__Deadzone--  ", "", "mission_deadzone");
    check_stem("", "Display Name!", "display_name");
    check_stem("", "", "unnamed");
    check_stem("!!!", "", "unnamed");
    check_stem("2nd Wave", "", "_2nd_wave");
    check_stem("\xc3\xa9t\xc3\xa9 A", "", "t_a");
    char name[200];
    memset(name, 'a', 119);
    name[119] = 0;
    check_stem(name, "", name);
    name[119] = 'a';
    name[120] = 0;
    check_stem(name, "", NULL);
    memset(name, 0, sizeof name);
    memset(name, 'a', 118);
    name[0] = '9';
    name[118] = 0;
    check_stem(name, "", "_9aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    name[118] = 'a';
    check_stem(name, "", NULL); /* the leading '_' makes it 120 */

    char root[] = "/tmp/gsvm_mission_find_XXXXXX";
    if (!mkdtemp(root))
        return;
    char p[512], found[512];
    char *text = NULL;
    size_t len;
    gsvm_error err;
    snprintf(p, sizeof p, "%s/scripts", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/scripts/activities", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/scripts/activities/a_0007_deadbeef.lua", root);
    FILE *f = fopen(p, "w");
    fputs("return {}", f);
    fclose(f);
    CHECK_INT(gsvm_mission_find_script(root, "Mission Deadzone-2", "", 7, 0xdeadbeef, &text, &len, found, sizeof found, &err), GSVM_OK);
    CHECK(strstr(found, "scripts/activities/a_0007_deadbeef.lua") != NULL);
    CHECK_INT(len, 9);
    free(text);
    snprintf(p, sizeof p, "%s/scripts/mission_deadzone_2", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/scripts/mission_deadzone_2/mission_deadzone_2.lua", root);
    f = fopen(p, "w");
    fclose(f);
    /* An empty file is source_too_large, and a size error does not fall back. */
    CHECK_INT(gsvm_mission_find_script(root, "Mission Deadzone-2", "", 7, 0xdeadbeef, &text, &len, found, sizeof found, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "source_too_large") != NULL);
    f = fopen(p, "w");
    fputs("return { }", f);
    fclose(f);
    CHECK_INT(gsvm_mission_find_script(root, "Mission Deadzone-2", "", 7, 0xdeadbeef, &text, &len, found, sizeof found, &err), GSVM_OK);
    CHECK(strstr(found, "scripts/mission_deadzone_2/mission_deadzone_2.lua") != NULL);
    free(text);
    CHECK_INT(gsvm_mission_find_script(root, "Other", "", 1, 2, &text, &len, found, sizeof found, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "no_script") != NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

static void test_events(void)
{
    rec_host h;
    gsvm_mission *m = open_src(
        "return { on_event_device_state = function(c, st, ev)\n"
        "  c:set_variable('d', (st:variable('d') or '') .. tostring(ev.first_report) .. ev.kind .. ev.mission_sequence ..\n"
        "   ev.attempt_generation .. tostring(ev.nothing) .. ev.power .. ';') end,\n"
        " on_event_scriptable_override_transport_staged = function(c, st, ev)\n"
        "  c:set_variable('s', tostring(ev.mission_sequence) .. ev.scriptable_revision) end,\n"
        " on_event_entity_died = function(c, st, ev) c:set_variable('died', (st:variable('died') or 0) + 1) end,\n"
        " on_event_squad_state = function(c, st, ev) c:set_variable('sq', (st:variable('sq') or 0) + 1) end,\n"
        " on_event_session_joined = function(c, st, ev) saved = ev end,\n"
        " on_event_session_left = function(c, st, ev) c:set_variable('stale', tostring(saved.kind)) end }",
        &h);
    gsvm_error err;
    gsvm_mission_field f[2] = {{"slot", {GSVM_MV_STR, 0, 0, 0, "dev", 3}}, {"power", {GSVM_MV_INT, 0, 5, 0, NULL, 0}}};
    gsvm_mission_report(m, "device_state", f, 2, &err);
    gsvm_mission_report(m, "device_state", f, 2, &err);
    CHECK_STR(var_str(m, "d"), "true3911nil5;false3921nil5;");
    gsvm_mission_field so = {"scriptable_revision", {GSVM_MV_STR, 0, 0, 0, "77", 2}};
    gsvm_mission_report(m, "scriptable_override_transport_staged", &so, 1, &err);
    CHECK_STR(var_str(m, "s"), "nil77");
    report_str(m, "entity_died", "slot", "a");
    report_str(m, "entity_died", "slot", "a");
    report_str(m, "entity_died", "slot", "b");
    CHECK_INT(var_int(m, "died"), 1);
    report_str(m, "squad_state", "slot", "a");
    CHECK_INT(var_int(m, "sq"), 1);
    /* An event kept past its callback reads nil. */
    report(m, "session_joined");
    report(m, "session_left");
    CHECK_STR(var_str(m, "stale"), "nil");
    gsvm_mission_close(m);
}

/* Every one of the 41 kinds: the 28 that clients report reach their handler
 * (silent first reports aside), the ten marked "never reaches a script" and
 * the runtime's own three are not accepted from a client. */
static void test_all_kinds(void)
{
    char src[16384];
    size_t n = (size_t)snprintf(src, sizeof src, "return {\n");
    for (int k = 0; k < GSVM_MISSION_EVENT_KINDS; k++)
        n += (size_t)snprintf(src + n, sizeof src - n,
                              " on_event_%s = function(c, st, ev) c:set_variable('k%d', ev.kind) end,\n",
                              gsvm_mission_event_name(k), k);
    snprintf(src + n, sizeof src - n, "}");
    rec_host h;
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    cfg.role = GSVM_MISSION_PRIVATE;
    gsvm_error err;
    gsvm_mission *m = open_with(src, &cfg, &err);
    CHECK(m != NULL);
    if (!m)
        return;
    int reached = 0;
    for (int k = 0; k < GSVM_MISSION_EVENT_KINDS; k++) {
        const char *name = gsvm_mission_event_name(k);
        gsvm_mission_field f = {"slot", {GSVM_MV_STR, 0, 0, 0, "s", 1}};
        gsvm_status st = gsvm_mission_report(m, name, &f, 1, &err);
        if (k == 15 || k == 16 || k == 17) {
            CHECK_INT(st, GSVM_ERR_USAGE);
            continue;
        }
        CHECK_INT(st, GSVM_OK);
        gsvm_mission_report(m, name, &f, 1, &err); /* a second report passes any first-report rule */
        char var[16];
        snprintf(var, sizeof var, "k%d", k);
        if (var_int(m, var) == k)
            reached++;
    }
    CHECK(!gsvm_mission_faulted(m));
    CHECK_INT(reached, 28);
    CHECK_INT(var_int(m, "k3"), -999999);  /* auth_state_committed */
    CHECK_INT(var_int(m, "k14"), -999999); /* operator_refused */
    CHECK_INT(var_int(m, "k12"), 12);      /* scriptable_override_transport_staged does */
    gsvm_mission_close(m);
}

int main(void)
{
    test_all_kinds();
    test_variables();
    test_transactions();
    test_error_text();
    test_timers_and_phase();
    test_context_fields();
    test_complete_mission();
    test_world();
    test_program_table();
    test_stem_and_find();
    test_events();
    TEST_MAIN_END();
}
