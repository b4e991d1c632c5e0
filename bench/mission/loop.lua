-- Plain Lua work inside a callback (about 3 million instructions, under the
-- 5 million budget): measures the sandbox's count hook against stock lua5.4.
local function work()
  local x = 0
  for i = 1, 1000000 do x = x + i % 7 end
  return x
end
return { on_event_session_joined = function(context, state, event) work() end }
