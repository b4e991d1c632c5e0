-- Sandbox escape attempts: each handler tries one; every one of them faults
-- or finds nothing, and no limit can be caught.
return {
  on_event_session_joined = function(context, state, event)
    -- The catchers of stock Lua are gone.
    context:set_variable("gone", tostring(xpcall) .. tostring(coroutine) .. tostring(load) ..
      tostring(string.gsub) .. tostring(getmetatable) .. tostring(debug) .. tostring(os) ..
      tostring(io) .. tostring(package) .. tostring(collectgarbage) .. tostring(pairs))
    context:set_variable("names", tostring({}) .. " " .. tostring(context) .. " " .. tostring(print))
  end,
  on_event_session_left = function(context, state, event)
    -- pcall re-raises the instruction budget, however often it is retried.
    while true do pcall(function() while true do end end) end
  end,
}
