-- tonumber of 25 MB of digits, over and over (strtod reads every byte).
return { on_event_session_joined = function(c)
  local s = string.rep("1", 25000000)
  while true do local x = tonumber(s) end
end }
