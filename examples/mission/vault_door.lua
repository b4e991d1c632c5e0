-- A vault behind a Ghost link.  The mission declares its initial state, so
-- on_start waits until the host has published it (the first server tick);
-- a player who joins before that is kept and delivered after on_start.
-- The door is a device (slot type 3): slot:applied{channel} tells when the
-- client applied a request, slot:sequences() what it last reported.
return {
  initial_state = { region_index = 4, spawn_set_hash = 706199774 },

  on_start = function(context, state)
    context:set_variable("log", "start")
    local key = context:slot("vault_door"):set_channel{channel = "lock", value = 1}
    context:set_variable("lock_key", key.value)
  end,

  on_event_session_joined = function(context, state, event)
    context:set_variable("log", state:variable("log") .. ",joined " .. event.member_key .. "#" .. event.sequence)
  end,

  on_event_ghost_link_state = function(context, state, event)
    local link = context:slot("link"):ghost_link()
    context:set_variable("link", link.generation .. "/" .. link.progress .. "/" .. tostring(link.active))
    if link.active and link.progress >= 1 then
      context:slot("vault_door"):transition{state = 2}
    end
  end,

  on_event_device_state = function(context, state, event)
    local door = context:slot("vault_door")
    local locked = door:applied{channel = "lock"}
    local opened, open_key = door:applied{channel = "position"}
    local seqs = door:sequences()
    context:set_variable("door", "lock " .. tostring(locked) .. ", open " .. tostring(opened) ..
      " (" .. (open_key and open_key.value or "-") .. "), seen " .. tostring(seqs.lock) .. "/" .. tostring(seqs.position))
  end,
}
