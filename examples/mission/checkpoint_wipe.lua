-- Recipe 1, "Checkpoint wipe": when the whole fireteam is dead, arm a
-- checkpoint restart; when the arm is staged (a new attempt has started),
-- release it and reset the area.  Runs in private activities only.
local REGION, SPAWN_SET = 3, 0x2A17C0DE

return {
  on_start = function(context, state)
    context:set_variable("wipes", 0)
    context:start_timer("ambush", 30000)
  end,

  on_event_fireteam_state = function(context, state, event)
    local wiped = event.dead_count > 0 and event.alive_count == 0 and event.unknown_count == 0
    if wiped and not state:has_variable("arm_key") then
      local key = context:restart_checkpoint{region = REGION, spawn_set_hash = SPAWN_SET}
      context:set_variable("arm_key", key.value)   -- keys survive a reload only as values
    end
  end,

  on_event_effect_result = function(context, state, event)
    local arm = state:variable("arm_key")
    if arm and event.request_key.value == arm then
      context:clear_variable("arm_key")
      if event.outcome == "transport_staged" then
        context:set_variable("wipes", state:variable("wipes") + 1)
        context:restart_checkpoint{region = REGION, spawn_set_hash = SPAWN_SET, release_request = arm}
        context:slot("gate"):set_object_active{active = true}
      end
    end
  end,

  on_event_timer_elapsed = function(context, state, event)
    context:set_variable("ambush_fired_in_attempt", context.attempt_generation)
  end,
}
