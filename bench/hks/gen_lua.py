#!/usr/bin/env python3
"""Prints a Lua 5.1 program of about N bytes (argv[1]) for the compiler
bench, in one of these shapes (argv[2]), the kinds of file modders compile:
  mixed   functions with locals, arithmetic, tables, loops, branches,
          closures and string work (the default)
  funcs   many tiny functions
  deep    long expressions nested in parentheses
  tables  long table constructors (SETLIST batches, hash fields)
  data    one game-config table literal: records of nested tables with
          string keys, many distinct string constants, numbers, booleans
  locals  long functions with many locals (assignments between them)
  elseif  long if/elseif chains on strings and numbers
  concat  heavy string concatenation (long .. chains, tostring, format)
each small enough for every limit of Lua 5.1 and HKS."""
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
shape = sys.argv[2] if len(sys.argv) > 2 else "mixed"


def mixed(i):
    return f"""do local function f{i}(a, b, ...)
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


def funcs(i):
    if i % 150 == 0:
        return f"R[{i}] = function(x, y) return x * y - {i} end\n"
    return f"do local function g{i}(x) return x + {i} end R[{i}] = g{i} end\n"


def deep(i):
    e = "a"
    for d in range(40):
        e = f"({e} {'+-*'[d % 3]} (b - {d + i % 9}))"
    return f"R[{i}] = function(a, b) return {e} end\n"


def tables(i):
    items = ", ".join(f"{i + k}" if k % 3 else f"k{k} = '{k}'" for k in range(120))
    return f"R[{i}] = {{ {items} }}\n"


KINDS = ["weapon", "armor", "potion", "scroll", "ring", "quest"]


def data(i):
    kind = KINDS[i % len(KINDS)]
    return f"""  {kind}_{i} = {{
    id = {1000 + i}, name = "{kind.title()} of the {i % 97}th Order", kind = "{kind}",
    desc = "A {kind} found in region {i % 31}; worth {i * 7 % 500} gold to a merchant.",
    price = {i % 400}.{i % 100:02d}, weight = {i % 17 + 1}, stackable = {"true" if i % 3 else "false"},
    icon = "ui/icons/{kind}/{kind}_{i:05d}.dds", model = "models/items/{kind}_{i % 40}.mdl",
    tags = {{ "{kind}", "tier{i % 5}", "set_{i % 23}" }},
    stats = {{ attack = {i % 50}, defense = {i % 30}, speed = {i % 9}.5, crit = 0.{i % 90 + 10} }},
    drops = {{ {{ zone = "zone_{i % 12}", chance = 0.{i % 80 + 10} }}, {{ zone = "boss_{i % 7}", chance = 1 }} }},
  }},
"""


def locals_(i):
    n = 150
    lines = [f"R[{i}] = function(a, b, c)"]
    for k in range(n):
        v = f"{k} + a" if k < 3 else f"v{k - 1} * {k % 7 + 1} - v{k - 3}"
        lines.append(f"  local v{k} = {v}")
    for k in range(0, n, 5):
        lines.append(f"  v{k} = v{k + 1} + v{(k * 7) % n} + b")
    lines.append(f"  return v{n - 1} + v0 + c")
    lines.append("end")
    return "\n".join(lines) + "\n"


def elseif(i):
    lines = [f"R[{i}] = function(cmd, n)"]
    for k in range(100):
        kw = "if" if k == 0 else "elseif"
        cond = f'cmd == "command_{k}"' if k % 2 else f"n == {k} or n > {k * 1000}"
        lines.append(f"  {kw} {cond} then return {k} + n")
    lines.append("  else return nil end")
    lines.append("end")
    return "\n".join(lines) + "\n"


def concat(i):
    lines = [f"R[{i}] = function(name, hp, x, y)"]
    lines.append('  local s = ""')
    for k in range(30):
        lines.append(f'  s = s .. "<row id=\\"{k}\\">" .. name .. ": hp " .. tostring(hp) .. '
                     f'" at (" .. x .. ", " .. y .. ") step {k}</row>\\n"')
        lines.append(f'  local m{k % 5} = string.format("%s-%d", name, {k}) .. "/" .. s:sub(1, {k})')
    lines.append("  return s")
    lines.append("end")
    return "\n".join(lines) + "\n"


SHAPES = {"mixed": mixed, "funcs": funcs, "deep": deep, "tables": tables, "data": data,
          "locals": locals_, "elseif": elseif, "concat": concat}
if shape not in SHAPES:
    raise SystemExit(f"unknown shape {shape} ({', '.join(SHAPES)})")
out, size, i = [], 0, 0
while size < target:
    f = SHAPES[shape](i)
    out.append(f)
    size += len(f)
    i += 1
# data is one table literal returned by the file; the rest fill R
print("return {" if shape == "data" else "local R = {}")
print("".join(out), end="")
print("}" if shape == "data" else "return R")
