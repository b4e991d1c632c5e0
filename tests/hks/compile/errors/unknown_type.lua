local n:number = 1
local s:strang = "x"
