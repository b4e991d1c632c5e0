hstructure M
  __index : M;
  f : ifunction;
end
hstructure P
  meta : M;
  x : number;
end
local p:P = hmake P { x = 1 };
p.f = nil;
