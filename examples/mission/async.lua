-- Each session_joined sends one request; each effect_result is recorded.
return {
  on_event_session_joined = function(c, st)
    local n = (st:variable("sent") or 0) + 1
    c:set_variable("sent", n)
    c.lifetime:set{state = n}
  end,
  on_event_effect_result = function(c, st, ev)
    c:set_variable("r" .. ev.request_key.value, ev.outcome)
  end,
}
