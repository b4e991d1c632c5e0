-- Slot stores of each kind: nil (SETSLOTN), a value of the slot's type or
-- any value in an untyped slot (SETSLOTI), a value of unknown type in a
-- typed slot (SETSLOT / SETSLOTS: the VM checks the type in the DATA word).
hstructure Q
  y : number;
end
hstructure P
  x : number;
  q : Q;
  any : object;
end
local function unknown(v) return v end
local q = hmake Q { y = unknown(2) }
local p:P = hmake P { x = unknown(1), q = unknown(q), any = unknown("s") }
p.x = nil
p.x = 3
p.x = unknown(4)
p.q = unknown(q)
p.any = {}
print(p.x, p.q.y, p.any)
