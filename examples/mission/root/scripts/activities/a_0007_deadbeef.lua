-- The fallback file: scripts/activities/a_<index>_<hash>.lua.
return {
  on_start = function(context, state) context:set_variable("fallback", true) end,
}
