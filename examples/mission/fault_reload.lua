-- A callback is a transaction: an error throws its changes away and faults
-- the mission; a faulted mission runs no more callbacks, faults again when
-- reopened, and only "Reload script" clears it.
return {
  on_start = function(context, state)
    context:set_variable("count", 0)
  end,

  on_event_session_joined = function(context, state, event)
    context:set_variable("count", state:variable("count") + 1)
  end,

  on_event_session_left = function(context, state, event)
    context:set_variable("count", 1000)           -- discarded with the fault
    error("session \"left\"\tbadly")
  end,
}
