-- One C call: table.sort over 20,000 references to one 1 MiB string, which
-- compares 1 MiB per comparison (about 12 s of work in stock Lua).
return { on_event_session_joined = function(c)
  local s = string.rep("a", 1 << 20) local t = {}
  for i = 1, 20000 do t[i] = s end
  table.sort(t)
end }
