-- Timers run on the server tick (50 ms here), at most one per tick, are
-- removed before their callback runs and survive a reopen.
return {
  on_start = function(context, state)
    context:start_timer("wave", 100)
    context:start_timer("alarm", 100)
    context:start_timer("long", 5000)
    context:set_phase(1)
  end,

  on_load = function(context, state)
    context:set_variable("loaded_with_long", state:timer("long") or "none")
  end,

  on_event_timer_elapsed = function(context, state, event)
    context:set_variable("fired", (state:variable("fired") or "") ..
      event.timer_name .. "@" .. event.timer_deadline_tick .. "#" .. event.timer_sequence .. ";")
    if event.timer_name == "wave" then
      context:start_timer("wave2", 0)
      context:set_phase(state.phase + 1)
    end
  end,

  on_event_phase_entered = function(context, state, event)
    context:set_variable("phase_entered", event.phase)
  end,
}
