-- An error in a __gc finalizer leaves the collectgarbage() call that ran it;
-- the finalizers not yet run stay queued and run at the next collection; an
-- error while the state closes is dropped.
local function doomed(msg)
  local u = newproxy(true)
  getmetatable(u).__gc = function() print("finalizing", msg); error(msg) end
end
doomed("first")
print(pcall(collectgarbage))
print("still running")
local n = 0
for i = 1, 3 do
  local u = newproxy(true)
  getmetatable(u).__gc = function() n = n + 1; print("quiet", i) end
end
collectgarbage()
print("ran", n)
keep = newproxy(true)
getmetatable(keep).__gc = function() print("at close"); error("dropped") end
print("end")
