-- A timer callback with no work of its own: it starts its timer again (the
-- timer's removal and restart are the commit every timer callback makes).
return {
  on_start = function(context, state) context:start_timer("t", 0) end,
  on_event_timer_elapsed = function(context, state, event) context:start_timer("t", 0) end,
}
