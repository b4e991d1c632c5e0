-- string.format('%q') of 6 MB of NUL bytes, over and over: each byte is
-- printed with snprintf, a quarter second of work per call in one C call.
-- (12 MB made the source, the 24 MB result and its growing buffer reach the
-- 64 MiB memory limit on some runs, before the wall guard could stop it.)
return { on_event_session_joined = function(c)
  local s = string.rep("\0", 6000000)
  while true do local x = string.format("%q", s) end
end }
