-- Order of events within one client packet: the report first (region_changed right after
-- its state report), then trigger, Ghost link, object, damage monitor, actor path, squad,
-- combatant damage, device, scene, objective; an incident gives player_trigger, then cinematics.
local function log(c, st, s) c:set_variable("log", (st:variable("log") or "") .. s .. ";") end
return {
  on_event_client_state_changed = function(c, st, ev) log(c, st, "state") end,
  on_event_region_changed = function(c, st, ev) log(c, st, "region" .. ev.region_index) end,
  on_event_objective_progress = function(c, st, ev) log(c, st, "objective") end,
  on_event_device_state = function(c, st, ev) log(c, st, "device") end,
  on_event_trigger_exited = function(c, st, ev) log(c, st, "trigger") end,
  on_event_squad_state = function(c, st, ev) log(c, st, "squad") end,
  on_event_incident_received = function(c, st, ev) log(c, st, "incident") end,
  on_event_player_trigger = function(c, st, ev) log(c, st, "player_trigger") end,
  on_event_cinematic_started = function(c, st, ev) log(c, st, "cinematic") end,
}
