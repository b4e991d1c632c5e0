#!/usr/bin/env python3
"""Generates src/lsl/builtins.def, the LSL builtin table, from Linden Lab's
lsl_definitions.yaml (../shared/data/lsl, MIT).

    python3 tools/lsl_builtins.py [DEFINITIONS.yaml] [-o OUT.def]

The output is committed, so building gsvm never needs Python; a ctest
(tests/lsl/lib/builtins_def_check.sh) re-runs this script and diffs.  Only
facts are taken from the definitions (names, ids, types, delays, energy,
flags, constant values); no tooltip text is copied.

The table is a set of X-macros; see the comment written at the top of the
output for the row formats.  Output is deterministic: functions in func-id
order, constants and events in name order.
"""
import argparse
import os
import re
import struct
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_YAML = os.path.join(HERE, "..", "..", "shared", "data", "lsl", "lsl_definitions.yaml")

# One letter per LSL type in argument signatures; the return type is a token.
TYPE_LETTER = {"integer": "i", "float": "f", "string": "s", "key": "k",
               "vector": "v", "rotation": "r", "list": "l"}
TYPE_TOKEN = {"void": "VOID", "integer": "INTEGER", "float": "FLOAT", "string": "STRING",
              "key": "KEY", "vector": "VECTOR", "rotation": "ROTATION", "list": "LIST"}

# Functions that need no world: gsvm implements them natively (src/lsl/lib_*.c).
# The definitions' `pure` functions are all in this set; these are the others
# whose result depends only on their arguments, or on the script's own
# seeded PRNG / identity stream (llFrand, llGenerateKey), never on a region.
WORLDLESS_EXTRA = {
    "llAcos", "llAsin", "llDumpList2String", "llFrand", "llGenerateKey",
    "llList2ListStrided", "llList2ListSlice", "llListFindList", "llListFindListNext",
    "llListRandomize", "llListSort", "llListSortStrided",
    "llListStatistics", "llMD5String", "llSHA1String", "llSHA256String", "llComputeHash", "llHash",
    "llHMAC", "llRound", "llLinear2sRGB", "llsRGB2Linear",
}
# Functions the script VM itself services (time, timers, sleep, listens, reset,
# memory): no region needed, but they touch the VM's own state, so they are
# not in the native library; the VM intercepts them before the host boundary.
VM_SERVICED = {
    "llGetTime", "llResetTime", "llGetAndResetTime", "llSetTimerEvent", "llSleep",
    "llResetScript", "llGetFreeMemory", "llGetUsedMemory", "llGetMemoryLimit",
    "llSetMemoryLimit", "llGetSPMaxMemory", "llScriptProfiler", "llListen",
    "llListenRemove", "llListenControl", "llMinEventDelay",
}

FLAG_ORDER = [
    ("pure", "LSL_FN_PURE"),            # the definitions mark it pure
    ("native", "LSL_FN_NATIVE_HINT"),   # the definitions mark it native (SL-side fast path)
    ("god-mode", "LSL_FN_GOD_MODE"),
    ("deprecated", "LSL_FN_DEPRECATED"),
    ("private", "LSL_FN_PRIVATE"),
    ("experience", "LSL_FN_EXPERIENCE"),
    ("linden-experience", "LSL_FN_EXPERIENCE"),
    ("must-use", "LSL_FN_MUST_USE"),
    ("requires-permission", "LSL_FN_NEEDS_PERMISSION"),
]


def c_ident(name):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise SystemExit(f"lsl_builtins: not an identifier: {name!r}")
    return name


def decode_lsl_string(text):
    """The definitions spell string constants with LSL/C-like escapes:
    \\n \\t \\\\ \\" \\xHH and \\u{HHHH}.  Returns UTF-8 bytes."""
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "n":
            out += b"\n"; i += 2
        elif nxt == "t":
            out += b"\t"; i += 2
        elif nxt in "\\\"":
            out += nxt.encode(); i += 2
        elif nxt == "x":
            out.append(int(text[i + 2:i + 4], 16)); i += 4
        elif nxt == "u" and text[i + 2] == "{":
            end = text.index("}", i)
            out += chr(int(text[i + 3:end], 16)).encode("utf-8"); i = end + 1
        else:
            raise SystemExit(f"lsl_builtins: unknown escape in {text!r}")
    return bytes(out)


def c_string(data):
    # Octal escapes are bounded to three digits, unlike \x, so they never
    # swallow a following hex-looking character.
    parts = []
    for b in data:
        c = chr(b)
        if c in "\\\"":
            parts.append("\\" + c)
        elif 0x20 <= b < 0x7f and c != "?":
            parts.append(c)
        else:
            parts.append("\\%03o" % b)
    return '"' + "".join(parts) + '"'


def c_float(text):
    """A float constant exactly as the definitions spell it, checked to parse,
    with the C float suffix (the compiler rounds the decimal to binary32)."""
    text = str(text).strip()
    float(text)
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?", text):
        raise SystemExit(f"lsl_builtins: odd float {text!r}")
    if "." not in text and "e" not in text.lower():
        text += ".0"
    return text + "f"


def c_int32(value):
    v = int(value, 0) if isinstance(value, str) else int(value)
    v &= 0xFFFFFFFF
    if v >= 0x80000000:
        v -= 0x100000000
    if v == -0x80000000:
        return "(-2147483647 - 1)"
    return str(v)


def float_components(text, n):
    m = re.fullmatch(r"\s*<(.*)>\s*", str(text))
    if not m:
        raise SystemExit(f"lsl_builtins: not a vector/rotation: {text!r}")
    parts = [p.strip() for p in m.group(1).split(",")]
    if len(parts) != n:
        raise SystemExit(f"lsl_builtins: want {n} components: {text!r}")
    return ", ".join(c_float(p) for p in parts)


def args_of(entry):
    names, types = [], ""
    for arg in entry.get("arguments") or []:
        ((name, spec),) = arg.items()
        names.append(c_ident(name))
        types += TYPE_LETTER[spec["type"]]
    return types, ",".join(names)


def fmt_num(x):
    # Delays and energies are short decimals; print them as the file does.
    s = repr(float(x))
    return s + "f"


def generate(defs):
    out = []
    w = out.append
    w("/* GENERATED by tools/lsl_builtins.py from Linden Lab's lsl_definitions.yaml")
    w(" * (secondlife/lsl-definitions, MIT).  Do not edit: re-run the tool.")
    w(" *")
    w(" * X-macro rows; define the macros you need before including this file")
    w(" * (undefined ones expand to nothing).")
    w(" *")
    w(" * LSL_FUNCTION(name, id, ret, argtypes, argnames, sleep, energy, flags)")
    w(" *   id        the definitions' func-id (stable across versions)")
    w(" *   ret       VOID INTEGER FLOAT STRING KEY VECTOR ROTATION LIST")
    w(" *   argtypes  one letter per argument: i f s k v r l (integer float string key")
    w(" *             vector rotation list); its length is the arity")
    w(" *   argnames  the argument names, comma separated")
    w(" *   sleep     forced delay in seconds (the script sleeps after the call); the")
    w(" *             definitions' mono-sleep where given, as SL runs scripts under Mono")
    w(" *   energy    the definitions' energy cost")
    w(" *   flags     LSL_FN_* bits: PURE NATIVE_HINT GOD_MODE DEPRECATED PRIVATE")
    w(" *             EXPERIENCE MUST_USE NEEDS_PERMISSION, plus gsvm's own WORLDLESS")
    w(" *             (implemented natively, needs no world) and VM (serviced by the")
    w(" *             script VM itself: time, timers, sleep, listens, reset, memory);")
    w(" *             a function with neither crosses the host boundary")
    w(" * LSL_CONST_INTEGER(name, value, flags)")
    w(" * LSL_CONST_FLOAT(name, value, flags)            value is a C float literal")
    w(" * LSL_CONST_STRING(name, literal, length, flags)  UTF-8 bytes, length excludes NUL")
    w(" * LSL_CONST_VECTOR(name, x, y, z, flags)")
    w(" * LSL_CONST_ROTATION(name, x, y, z, s, flags)")
    w(" *   flags     LSL_CONST_DEPRECATED, LSL_CONST_PRIVATE or 0")
    w(" * LSL_EVENT(name, index, argtypes, argnames)")
    w(" *   index     position in name order (0-based); argtypes/argnames as above")
    w(" */")
    w("")
    w("#ifndef LSL_FUNCTION")
    w("#define LSL_FUNCTION(name, id, ret, argtypes, argnames, sleep, energy, flags)")
    w("#endif")
    for m, params in [("LSL_CONST_INTEGER", "name, value, flags"),
                      ("LSL_CONST_FLOAT", "name, value, flags"),
                      ("LSL_CONST_STRING", "name, literal, length, flags"),
                      ("LSL_CONST_VECTOR", "name, x, y, z, flags"),
                      ("LSL_CONST_ROTATION", "name, x, y, z, s, flags"),
                      ("LSL_EVENT", "name, index, argtypes, argnames")]:
        w(f"#ifndef {m}")
        w(f"#define {m}({params})")
        w("#endif")
    w("")

    funcs = defs["functions"]
    ids = {}
    for name, f in funcs.items():
        fid = int(f["func-id"])
        if fid in ids:
            raise SystemExit(f"lsl_builtins: func-id {fid} used by {ids[fid]} and {name}")
        ids[fid] = name
    pure = {n for n, f in funcs.items() if f.get("pure")}
    worldless = pure | WORLDLESS_EXTRA
    for n in worldless | VM_SERVICED:
        if n not in funcs:
            raise SystemExit(f"lsl_builtins: {n} is not in the definitions")
    w(f"/* {len(funcs)} functions, in func-id order */")
    for fid in sorted(ids):
        name = ids[fid]
        f = funcs[name]
        types, names = args_of(f)
        flags = []
        for key, flag in FLAG_ORDER:
            if f.get(key) and flag not in flags:
                flags.append(flag)
        if name in worldless:
            flags.append("LSL_FN_WORLDLESS")
        if name in VM_SERVICED:
            flags.append("LSL_FN_VM")
        w(f"LSL_FUNCTION({c_ident(name)}, {fid}, {TYPE_TOKEN[f['return']]}, \"{types}\", "
          f"\"{names}\", {fmt_num(f.get('mono-sleep', f['sleep']))}, {fmt_num(f['energy'])}, "
          f"{' | '.join(flags) if flags else '0'})")
    w("")

    consts = defs["constants"]
    w(f"/* {len(consts)} constants, in name order */")
    for name in sorted(consts):
        c = consts[name]
        flags = []
        if c.get("deprecated"):
            flags.append("LSL_CONST_DEPRECATED")
        if c.get("private"):
            flags.append("LSL_CONST_PRIVATE")
        fl = " | ".join(flags) if flags else "0"
        t, v = c["type"], c["value"]
        n = c_ident(name)
        if t == "integer":
            w(f"LSL_CONST_INTEGER({n}, {c_int32(v)}, {fl})")
        elif t == "float":
            w(f"LSL_CONST_FLOAT({n}, {c_float(v)}, {fl})")
        elif t in ("string", "key"):
            data = decode_lsl_string(str(v))
            w(f"LSL_CONST_STRING({n}, {c_string(data)}, {len(data)}, {fl})")
        elif t == "vector":
            w(f"LSL_CONST_VECTOR({n}, {float_components(v, 3)}, {fl})")
        elif t == "rotation":
            w(f"LSL_CONST_ROTATION({n}, {float_components(v, 4)}, {fl})")
        else:
            raise SystemExit(f"lsl_builtins: constant {name} has type {t}")
    w("")

    events = defs["events"]
    w(f"/* {len(events)} events, in name order */")
    for index, name in enumerate(sorted(events)):
        types, names = args_of(events[name])
        w(f"LSL_EVENT({c_ident(name)}, {index}, \"{types}\", \"{names}\")")
    w("")
    for m in ["LSL_FUNCTION", "LSL_CONST_INTEGER", "LSL_CONST_FLOAT", "LSL_CONST_STRING",
              "LSL_CONST_VECTOR", "LSL_CONST_ROTATION", "LSL_EVENT"]:
        w(f"#undef {m}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("definitions", nargs="?", default=DEFAULT_YAML)
    ap.add_argument("-o", "--output", default=os.path.join(HERE, "..", "src", "lsl", "builtins.def"))
    a = ap.parse_args()
    with open(a.definitions, encoding="utf-8") as fh:
        defs = yaml.safe_load(fh)
    text = generate(defs)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        tmp = a.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
