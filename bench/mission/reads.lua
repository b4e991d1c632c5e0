-- A callback that reads the record three times and one event field, and writes nothing.
return {
  on_start = function(context, state) context:set_variable("a", 1) end,
  on_event_session_joined = function(context, state, event)
    local a = state:variable("a")
    local b = state:has_variable("b")
    local t = state:timer("t")
    local s = event.sequence
  end,
}
