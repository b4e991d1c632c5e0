-- The structure block's order (hksc writes the structures the code names,
-- in the walk of its table of their ids): ten structures, ids 8 and up hash
-- apart from the small ones, one (Unused) that nothing names.
hstructure A  n : number; end
hstructure B  a : A; end
hstructure Unused  z : number; end
hstructure C  meta : B; c : number; end
hstructure D  d : string; end
hstructure E  e : number; end
hstructure F  f : D; end
hstructure G  g : number; end
hstructure H  h : number; end
hstructure I  i : F; end
hstructure J  j : number; end
local j = hmake J { j = 1 };
local function mk()
  local h:H = hmake H { h = 2 };
  local g = hmake G { g = 3 };
  return h, g;
end
local c:C = hmake C { c = 4 };
local i = hmake I {};
local e:E = hmake E { e = 5 };
print(j.j, mk(), c.c, i, e.e);
