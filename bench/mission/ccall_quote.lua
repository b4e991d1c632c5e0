-- string.format('%q') of 12 MB of NUL bytes, over and over: each byte is
-- printed with snprintf, about half a second of work per call in one C call.
return { on_event_session_joined = function(c)
  local s = string.rep("\0", 12000000)
  while true do local x = string.format("%q", s) end
end }
