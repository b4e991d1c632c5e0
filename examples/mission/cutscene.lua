-- Recipe 2, "Opening cutscene": hold spawns and play a type-6 cinematic;
-- when it ends or a player skips it, stop it and release the hold.
return {
  on_start = function(context, state)
    context:hold_spawn{active = true}
    context:slot("intro"):set_cinematic_active{active = true}
    context:set_phase(1)
  end,

  on_event_cinematic_terminated = function(context, state, event)
    if state.phase == 1 then
      context:slot("intro"):set_cinematic_active{active = false}
      context:hold_spawn{active = false}
      context:set_phase(2)
    end
  end,

  on_event_cinematic_skip_requested = function(context, state, event)
    if state.phase == 1 then
      context:slot("intro"):set_cinematic_active{active = false}
      context:hold_spawn{active = false}
      context:set_phase(2)
    end
  end,

  on_event_phase_entered = function(context, state, event)
    context:set_variable("phase_log", (state:variable("phase_log") or "") ..
      event.previous_phase .. ">" .. event.phase .. "@" .. event.state_revision .. ";")
  end,
}
