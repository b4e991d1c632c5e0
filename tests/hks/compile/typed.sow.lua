-- typed locals, parameters and loops (structure builds)
local n:number = 0
local s:string = "x"
local function f(a:number, b:string, c:table, d:boolean, e:object)
  local r:number = a * 2
  c[b] = r
  if d then return r, e end
  return -r
end
for i:number = 1, 3 do n = n + f(i, s .. i, {}, i > 1, nil) end
for k:string, v:number in pairs({ a = 1 }) do n = n + v end
local m:number, t:table = n, {}
m = m + 1
print(n, s, m, #t)
