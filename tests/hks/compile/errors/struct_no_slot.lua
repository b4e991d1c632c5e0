hstructure P
  x : number;
end
local p:P = hmake P { x = 1 };
print(p.y);
