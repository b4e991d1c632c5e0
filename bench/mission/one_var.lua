-- Each callback changes one variable: a commit of one row.
return {
  on_start = function(context, state) context:set_variable("n", 0) end,
  on_event_session_joined = function(context, state, event)
    context:set_variable("n", state:variable("n") + 1)
  end,
}
