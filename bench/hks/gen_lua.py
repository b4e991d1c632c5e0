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
  strings long string literals: dialogue and help texts, quoted and
          [[long brackets]], with escapes
  arith   straight-line arithmetic: many `local x = a*b+c-d/e` statements
each small enough for every limit of Lua 5.1 and HKS.  The pieces are drawn
from a pseudo-random generator seeded with N and the shape (the same
arguments print the same program), so that no two pieces are the same
line: names, operators, constants and lengths vary."""
import random
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
shape = sys.argv[2] if len(sys.argv) > 2 else "mixed"
rng = random.Random(f"{shape}:{target}")

WORDS = ("health mana stamina armor speed level gold quest enemy player ally zone boss item "
         "weapon shield spell timer count index total score damage range target state flag "
         "cooldown bonus reward limit chance owner group phase wave slot").split()
SENTENCE = ("the of a to in is you that it he was for on are as with his they at be this have "
            "from or one had by word but not what all were we when your can said there use an "
            "each which she do how their if will up other about out many then them these so "
            "some her would make like him into time has look two more write go see number no "
            "way could people my than first water been call who oil its now find long down "
            "day did get come made may part sword gate king river tower shadow ember").split()


def name():
    return rng.choice(WORDS) + ("_" + rng.choice(WORDS) if rng.random() < 0.4 else "")


def num():
    r = rng.random()
    if r < 0.5:
        return str(rng.randrange(1000))
    if r < 0.8:
        return f"{rng.randrange(100)}.{rng.randrange(100):02d}"
    return str(rng.randrange(1, 10))


def text(lo, hi):
    return " ".join(rng.choice(SENTENCE) for _ in range(rng.randrange(lo, hi)))


def mixed(i):
    a, b = name(), name() + "2"
    op = rng.choice("+-*")
    return f"""do local function f{i}({a}, {b}, ...)
  local t = {{ {num()}, {num()} {op} 1, "{name()}{i}", x = {a}, y = {b}, [{a} or 1] = {num()} }}
  local sum = {num()}
  for k = 1, #t do sum = sum + (tonumber(t[k]) or 0) * {rng.randrange(1, 14)} end
  for k, v in pairs(t) do if type(v) == "number" and v > {num()} then sum = sum - v elseif v == nil then break end end
  local s = "{name()}" .. {i} .. ":" .. tostring({a}) .. ({b} and "{name()}" or "no{name()}")
  while sum > {rng.randrange(50, 500)} do sum = sum / {rng.randrange(2, 5)} end
  repeat sum = sum + 1 until sum >= {rng.randrange(6)}
  local g = function(z) return z {op} sum + {num()}, select('#', z) end
  if {a} == nil then return g(1) elseif {a} < {b} then return s, t.x, t["y"] else return g({a}), ... end
end
R[{i}] = f{i} end
"""


def funcs(i):
    if rng.random() < 0.1:
        return f"R[{i}] = function(x, y) return x {rng.choice('+-*/')} y - {num()} end\n"
    n = name()
    return f"do local function {n}{i}(x) return x {rng.choice('+-*')} {num()} end R[{i}] = {n}{i} end\n"


def deep(i):
    e = rng.choice("ab")
    for d in range(rng.randrange(25, 45)):
        e = f"({e} {rng.choice('+-*/')} ({rng.choice('ab')} - {num()}))"
    return f"R[{i}] = function(a, b) return {e} end\n"


def tables(i):
    n = rng.randrange(60, 180)
    items = ", ".join(num() if rng.random() < 0.67 else f"{name()}{k} = '{name()}'"
                      for k in range(n))
    return f"R[{i}] = {{ {items} }}\n"


KINDS = ["weapon", "armor", "potion", "scroll", "ring", "quest"]


def data(i):
    kind = rng.choice(KINDS)
    return f"""  {kind}_{i} = {{
    id = {1000 + i}, name = "{text(1, 4).title()} {kind.title()} of the {rng.randrange(97)}th Order", kind = "{kind}",
    desc = "A {kind} found in {text(2, 8)}; worth {rng.randrange(500)} gold to a merchant.",
    price = {num()}, weight = {rng.randrange(1, 18)}, stackable = {rng.choice(["true", "false"])},
    icon = "ui/icons/{kind}/{name()}_{i:05d}.dds", model = "models/items/{kind}_{rng.randrange(40)}.mdl",
    tags = {{ {", ".join(f'"{name()}"' for _ in range(rng.randrange(1, 5)))} }},
    stats = {{ attack = {num()}, defense = {num()}, speed = {num()}, crit = 0.{rng.randrange(10, 100)} }},
    drops = {{ {{ zone = "zone_{rng.randrange(12)}", chance = 0.{rng.randrange(10, 90)} }}, {{ zone = "{name()}", chance = 1 }} }},
  }},
"""


def locals_(i):
    n = rng.randrange(100, 180)
    lines = [f"R[{i}] = function(a, b, c)"]
    for k in range(n):
        v = (f"{num()} + {rng.choice('abc')}" if k < 3 else
             f"v{k - 1} {rng.choice('+-*')} {num()} - v{rng.randrange(k)}")
        lines.append(f"  local v{k} = {v}")
    for k in range(0, n, rng.randrange(3, 7)):
        lines.append(f"  v{k} = v{rng.randrange(n)} + v{rng.randrange(n)} + {rng.choice('abc')}")
    lines.append(f"  return v{n - 1} + v0 + c")
    lines.append("end")
    return "\n".join(lines) + "\n"


def elseif(i):
    lines = [f"R[{i}] = function(cmd, n)"]
    for k in range(rng.randrange(50, 150)):
        kw = "if" if k == 0 else "elseif"
        cond = (f'cmd == "{name()}_{k}"' if rng.random() < 0.5 else
                f"n == {num()} or n > {rng.randrange(100000)}")
        lines.append(f"  {kw} {cond} then return {num()} + n")
    lines.append("  else return nil end")
    lines.append("end")
    return "\n".join(lines) + "\n"


def concat(i):
    lines = [f"R[{i}] = function(name, hp, x, y)"]
    lines.append('  local s = ""')
    for k in range(rng.randrange(15, 45)):
        tag = name()
        lines.append(f'  s = s .. "<{tag} id=\\"{k}\\">" .. name .. ": {rng.choice(WORDS)} " .. tostring(hp) .. '
                     f'" at (" .. x .. ", " .. y .. ") {text(1, 5)}</{tag}>\\n"')
        lines.append(f'  local m{k % 5} = string.format("%s-%d", name, {num()}) .. "/" .. s:sub(1, {k})')
    lines.append("  return s")
    lines.append("end")
    return "\n".join(lines) + "\n"


def quoted(s):
    """s as a quoted Lua string, with the odd escape a translator writes"""
    s = s.replace(" said ", ' said \\"').replace(" now ", ' now\\" ')
    return '"' + s.replace(" then ", "\\n") + '"'


def strings(i):
    lines = [f"R[{i}] = {{"]
    for k in range(rng.randrange(3, 9)):
        r = rng.random()
        key = f"{name()}_{k}"
        if r < 0.5:
            lines.append(f"  {key} = {quoted(text(20, 120))},")
        elif r < 0.75:
            lines.append(f"  {key} = [[{text(10, 40)}\n{text(10, 60)}\n{text(5, 30)}]],")
        else:
            lines.append(f"  {key} = function(who) return {quoted(text(5, 30))} .. who .. "
                         f"{quoted(text(5, 40))} end,")
    lines.append("}")
    return "\n".join(lines) + "\n"


def arith(i):
    names = ["a", "b", "c", "d", "e"]
    lines = [f"R[{i}] = function(a, b, c, d, e)"]
    for k in range(rng.randrange(40, 150)):
        terms = [rng.choice(names) if rng.random() < 0.7 else num()
                 for _ in range(rng.randrange(2, 7))]
        e = terms[0]
        for t in terms[1:]:
            e += f" {rng.choice('+-*/%')} {t}"
        if rng.random() < 0.2:
            e = f"({e}) * {rng.choice(names)}"
        v = f"x{k}"
        lines.append(f"  local {v} = {e}")
        names.append(v)
    lines.append(f"  return {' + '.join(names[-3:])}")
    lines.append("end")
    return "\n".join(lines) + "\n"


SHAPES = {"mixed": mixed, "funcs": funcs, "deep": deep, "tables": tables, "data": data,
          "locals": locals_, "elseif": elseif, "concat": concat, "strings": strings,
          "arith": arith}
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
