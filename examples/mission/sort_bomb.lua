-- table.sort of two million numbers runs inside C, where no count hook sees
-- it; gsvm charges the sort before it starts, so the callback faults at once.
local big = {}
for i = 1, 2000000 do big[i] = (i * 7919) % 2000003 end

return {
  on_event_session_joined = function(context, state, event)
    local ok = pcall(table.sort, big)
    context:set_variable("sorted", ok)
  end,
}
