#!/usr/bin/env python3
"""Prints a Lua 5.1 program of about N bytes (argv[1]) for the compiler
bench, in one of four shapes (argv[2]):
  mixed   functions with locals, arithmetic, tables, loops, branches,
          closures and string work (the default)
  funcs   many tiny functions
  deep    long expressions nested in parentheses
  tables  long table constructors (SETLIST batches, hash fields)
each small enough for every limit of Lua 5.1 and HKS."""
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
shape = sys.argv[2] if len(sys.argv) > 2 else "mixed"
out, size, i = [], 0, 0


def other(i):
    if shape == "funcs":
        return f"do local function g{i}(x) return x + {i} end R[{i}] = g{i} end\n" if i % 150 else \
            f"R[{i}] = function(x, y) return x * y - {i} end\n"
    if shape == "deep":
        e = "a"
        for d in range(40):
            e = f"({e} {'+-*'[d % 3]} (b - {d + i % 9}))"
        return f"R[{i}] = function(a, b) return {e} end\n"
    if shape == "tables":
        items = ", ".join(f"{i + k}" if k % 3 else f"k{k} = '{k}'" for k in range(120))
        return f"R[{i}] = {{ {items} }}\n"
    raise SystemExit(f"unknown shape {shape} (mixed, funcs, deep, tables)")


while size < target and shape != "mixed":
    f = other(i)
    out.append(f)
    size += len(f)
    i += 1
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
