-- The "keep" layer: two StartupCommands threads that sleep on simulation
-- time, a ScriptBind handler, and NPC.SetAlignment, a native that needs the
-- running-script stack, called both right (inside an engine dispatch) and
-- wrong (while the layer loads, and with a wrong argument shape).
local section_5a1c = {}

-- Torch.SC: flickers three times, 1.5 s apart
function section_5a1c._Torch_SC_Script_7d2e(self, threadId, scriptId)
  for i = 1, 3 do
    Weather.SetFog(i * 0.25)
    LithThreadSleep(threadId, 1.5)
  end
  print(self, "burnt out")
end

-- Patrol.SC: the engine started this thread, so the native works here
function section_5a1c._Patrol_SC_Script_91b0(self, threadId, scriptId)
  NPC.SetAlignment("Guard01", DBAlignments.Evil)
  LithThreadSleep(threadId, 2)
  print(self, "patrol at", Clock.Now())
  LithThreadSleep(threadId, 2)
  print(self, "patrol ends; missing record:", DBAlignments.Nobody)
end

-- bound to Guard01's OnDamaged: an engine dispatch
function section_5a1c._Guard_OnDamaged_3c4d(self, amount)
  NPC.SetAlignment(self, DBAlignments.Good)
  print(self, "damaged by", amount)
end

-- bound to Guard01's OnTaunt: the wrong argument shape
function section_5a1c._Guard_OnTaunt_8e9f(self)
  NPC.SetAlignment(self, "Good")
end

-- while the layer loads (LoadBuffer + Pcall) nothing is on the script stack
print("at load:", pcall(NPC.SetAlignment, "Guard01", DBAlignments.Evil))

_G.loadedresource = section_5a1c
