-- Found by the file-stem rule: "Mission Deadzone-2" -> mission_deadzone_2.
local scope = require("lib.scope")
return {
  on_start = function(context, state)
    context:set_variable(scope.name("deadzone", "activity"), context.activity_id)
  end,
}
