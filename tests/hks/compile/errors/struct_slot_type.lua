-- a slot set to a value known to have another type
hstructure P
  x : number;
end
local p:P = hmake P { x = 1 }
p.x = "one"
