#!/usr/bin/env python3
"""Prints a Lua 5.1 program of about N bytes (argv[1]) for the compiler
bench: functions with locals, arithmetic, tables, loops, branches, closures
and string work, each small enough for every limit of Lua 5.1 and HKS."""
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
out, size, i = [], 0, 0
while size < target:
    f = f"""do local function f{i}(a, b, ...)
  local t = {{ {i}, {i} + 1, "s{i}", x = a, y = b, [a or 1] = {i % 7} }}
  local sum = 0
  for k = 1, #t do sum = sum + (tonumber(t[k]) or 0) * {i % 13 + 1} end
  for k, v in pairs(t) do if type(v) == "number" and v > {i % 50} then sum = sum - v elseif v == nil then break end end
  local s = "item" .. {i} .. ":" .. tostring(a) .. (b and "b" or "nob")
  while sum > 100 do sum = sum / 2 end
  repeat sum = sum + 1 until sum >= {i % 5}
  local g = function(z) return z * sum + {i}.5, select('#', z) end
  if a == nil then return g(1) elseif a < b then return s, t.x, t["y"] else return g(a), ... end
end
R[{i}] = f{i} end
"""
    out.append(f)
    size += len(f)
    i += 1
print("local R = {}")
print("".join(out), end="")
print("return R")
