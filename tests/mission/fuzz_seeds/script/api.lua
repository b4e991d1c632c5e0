return {
  initial_state = { region_index = 2 },
  on_start = function(c, st)
    c:set_variable("a", 1) c:start_timer("t", 100) c:set_phase(1)
    c:activate_objects{slots = {c:slot("a")}}
    c:slot(2):fire_trigger{} c:squad("s"):place{counts = {2}} c:scene("c"):activate{spawn = true}
    c:hold_spawn{active = true} c:select_state({region_index = 1})
  end,
  on_event_trigger_entered = function(c, st, ev) c:set_variable("t", ev.slot.id) end,
  on_event_timer_elapsed = function(c, st, ev) c:cancel_timer("x") c:complete_mission{} end,
  on_event_effect_result = function(c, st, ev) c:set_variable("r" .. ev.request_key.value, ev.outcome) end,
  on_event_fireteam_state = function(c, st, ev) c:restart_checkpoint{region = 1, spawn_set_hash = 5} end,
  on_event_phase_entered = function(c, st, ev) c:set_variable("p", ev.phase) end,
}
