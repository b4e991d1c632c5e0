-- A no-op callback: the runtime's fixed cost per event (transaction, call, no commit).
return { on_event_session_joined = function(context, state, event) end }
