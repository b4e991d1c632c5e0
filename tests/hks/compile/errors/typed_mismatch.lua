-- a typed local set to a value known to have another type
local n:number = "ten"
print(n)
