-- Delivery: requests leave one at a time after the callback commits; each
-- ends in an effect_result (transport_staged, refused, expired, canceled)
-- that the script sees once the whole outbox is empty.
return {
  on_event_session_joined = function(context, state, event)
    local key = context.lifetime:set{state = 2}
    context:set_variable("last_key", key.value)
  end,

  on_event_effect_result = function(context, state, event)
    context:set_variable("r" .. event.request_key.value,
      event.outcome .. "/" .. event.outcome_code .. "/" .. tostring(event.effect))
  end,

  on_event_object_interacted = function(context, state, event)
    -- While a request is in delivery nothing else of the mission runs.
    context:set_variable("interacted_at_key", state:variable("last_key"))
  end,
}
