-- A small step graph kept entirely in mission variables (after lib.flow):
--   flow.<key>.step.<id> = 1 entered, 2 finished;  flow.<key>.fact.<id> = true
-- A step runs once all the steps it comes `after` are finished and its
-- `when` fact (if any) is set; `run` may return true to finish at once, or
-- the step finishes when `await(context)` says so.  `advance` is safe to call
-- from on_start, on_load and every handler: it never replays finished work.
local flow = {}
flow.__index = flow

function flow.new(key, steps)
  return setmetatable({key = key, steps = steps}, flow)
end

function flow:var(kind, id) return "flow." .. self.key .. "." .. kind .. "." .. id end

function flow:fact(context, id) context:set_variable(self:var("fact", id), true) end

function flow:advance(context, state)
  local progressed = true
  while progressed do
    progressed = false
    for _, step in ipairs(self.steps) do
      local at = state:variable(self:var("step", step.id)) or 0
      if at == 0 then
        local ready = true
        for _, dep in ipairs(step.after or {}) do
          if state:variable(self:var("step", dep)) ~= 2 then ready = false end
        end
        if ready and step.when and not state:variable(self:var("fact", step.when)) then ready = false end
        if ready then
          context:set_variable(self:var("step", step.id), 1)
          if step.run and step.run(context, state) then
            context:set_variable(self:var("step", step.id), 2)
          end
          progressed = true
        end
      elseif at == 1 and step.await and step.await(context, state) then
        context:set_variable(self:var("step", step.id), 2)
        progressed = true
      end
    end
  end
end

return flow
