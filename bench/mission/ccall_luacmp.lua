-- table.sort with a Lua comparator over huge strings: `<` costs 1 MiB a call.
return { on_event_session_joined = function(c)
  local s = string.rep("a", 1 << 20) local t = {}
  for i = 1, 20000 do t[i] = s end
  table.sort(t, function(x, y) return x < y end)
end }
