-- "struct" is no type of its own
local s:struct = nil
