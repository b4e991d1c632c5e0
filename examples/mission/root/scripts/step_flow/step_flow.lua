-- Recipe 3, "Step flow": arm a trigger and wait for its fact, then place a
-- squad and wait for cohort{...}.cleared, then complete the mission.  All
-- progress lives in variables, so on_load resumes without replaying work.
local flow = require("lib.flow")

local steps = flow.new("main", {
  { id = "arm", run = function(context)
      context:slot("gate_trigger"):set_occupancy_condition{condition = "any"}
      return true
    end },
  { id = "fight", after = {"arm"}, when = "gate_entered",
    run = function(context)
      context:squad("wave1"):place{counts = {3}, mode = "burst"}
    end,
    await = function(context)
      return context:cohort{squads = {context:squad("wave1")}}.cleared
    end },
  { id = "done", after = {"fight"}, run = function(context)
      context:complete_mission{}
      return true
    end },
})

return {
  on_start = function(context, state) steps:advance(context, state) end,
  on_load = function(context, state) steps:advance(context, state) end,
  on_event_trigger_entered = function(context, state, event)
    if event.slot and event.slot.id == "gate_trigger" then steps:fact(context, "gate_entered") end
    steps:advance(context, state)
  end,
  on_event_squad_state = function(context, state, event)
    steps:advance(context, state)
  end,
}
