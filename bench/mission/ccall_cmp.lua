-- == and < of two distinct 16 MB strings: each one VM instruction of milliseconds.
return { on_event_session_joined = function(c)
  local a = string.rep("a", 16000000) local b = string.rep("a", 16000000)
  while true do local x = a == b local y = a < b end
end }
