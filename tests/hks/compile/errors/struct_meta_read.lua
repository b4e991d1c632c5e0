hstructure P
	x : number;
end
hstructure M
	__newindex : P;
end
hstructure S
	meta : M;
end
local s:S = hmake S {}
local y = s.x
