#!/usr/bin/env python3
"""A reference HavokScript disassembler in plain Python, for the benchmark.

It is written the way community disassemblers for Lua 5.1 chunks usually
are (LuaPytecode's luac.py, for one): a reader class that unpacks each field
with `struct` (each instruction word too), a parse into function objects,
then one %-formatted text line per instruction.  It is leaner than many: no
object per instruction, constant annotations formatted once per function,
string escapes through one str.translate.  It prints the SAME
listing as `gsvm hks list` (header, every function, operands in luac's
convention, constant / jump / upvalue / DATA-owner annotations, constants,
debug info, structures, bytes around the chunk), so that bench_hks.sh
compares like with like; `--check` in bench_hks.sh diffs the two.

What it leaves out, in Python's favour: gsvm also runs its operand checker
on format-14 chunks to tell a Black Ops 3 opcode table from the base one
(there is no BO3 chunk in the corpus; this script assumes base), and it
checks every count against the bytes left before allocating.

usage: ref_disasm.py FILE... > listing.txt
"""
import struct
import sys
import time

ABC, ABX, ASBX = 0, 1, 2

# The opcode table, transcribed from src/hks/isa.def: name, mode, the kind
# of A, B (or Bx) and C (N unused, R register, K constant, RK register or
# constant, U number, F flag, V upvalue, P prototype, J jump, T type tag),
# and the DATA words the instruction owns ("closure": one per upvalue of the
# closed prototype, "setlist": one when C is 0).
BASE_OPS = [
    ("GETFIELD", ABC, "R", "R", "K", 2),
    ("TEST", ABC, "R", "N", "F", 0),
    ("CALL_I", ABC, "R", "U", "U", 0),
    ("CALL_C", ABC, "R", "U", "U", 0),
    ("EQ", ABC, "F", "R", "RK", 0),
    ("EQ_BK", ABC, "F", "K", "RK", 0),
    ("GETGLOBAL", ABX, "R", "K", "N", 0),
    ("MOVE", ABC, "R", "R", "N", 0),
    ("SELF", ABC, "R", "R", "RK", 0),
    ("RETURN", ABC, "R", "U", "N", 0),
    ("GETTABLE_S", ABC, "R", "R", "RK", 2),
    ("GETTABLE_N", ABC, "R", "R", "RK", 0),
    ("GETTABLE", ABC, "R", "R", "RK", 0),
    ("LOADBOOL", ABC, "R", "U", "U", 0),
    ("TFORLOOP", ABC, "R", "N", "U", 0),
    ("SETFIELD", ABC, "R", "K", "RK", 0),
    ("SETTABLE_S", ABC, "R", "R", "RK", 0),
    ("SETTABLE_S_BK", ABC, "R", "K", "RK", 0),
    ("SETTABLE_N", ABC, "R", "R", "RK", 0),
    ("SETTABLE_N_BK", ABC, "R", "K", "RK", 0),
    ("SETTABLE", ABC, "R", "R", "RK", 0),
    ("SETTABLE_BK", ABC, "R", "K", "RK", 0),
    ("TAILCALL_I", ABC, "R", "U", "U", 0),
    ("TAILCALL_C", ABC, "R", "U", "U", 0),
    ("TAILCALL_M", ABC, "R", "U", "U", 0),
    ("LOADK", ABX, "R", "K", "N", 0),
    ("LOADNIL", ABC, "R", "R", "N", 0),
    ("SETGLOBAL", ABX, "R", "K", "N", 0),
    ("JMP", ASBX, "N", "J", "N", 0),
    ("CALL_M", ABC, "R", "U", "U", 0),
    ("CALL", ABC, "R", "U", "U", 0),
    ("INTRINSIC_INDEX", ABC, "U", "U", "U", 0),
    ("INTRINSIC_NEWINDEX", ABC, "U", "U", "U", 0),
    ("INTRINSIC_SELF", ABC, "U", "U", "U", 0),
    ("INTRINSIC_INDEX_LITERAL", ABC, "U", "U", "U", 0),
    ("INTRINSIC_NEWINDEX_LITERAL", ABC, "U", "U", "U", 0),
    ("INTRINSIC_SELF_LITERAL", ABC, "U", "U", "U", 0),
    ("TAILCALL", ABC, "R", "U", "U", 0),
    ("GETUPVAL", ABC, "R", "V", "N", 0),
    ("SETUPVAL", ABC, "R", "V", "N", 0),
    ("ADD", ABC, "R", "R", "RK", 0),
    ("ADD_BK", ABC, "R", "K", "RK", 0),
    ("SUB", ABC, "R", "R", "RK", 0),
    ("SUB_BK", ABC, "R", "K", "RK", 0),
    ("MUL", ABC, "R", "R", "RK", 0),
    ("MUL_BK", ABC, "R", "K", "RK", 0),
    ("DIV", ABC, "R", "R", "RK", 0),
    ("DIV_BK", ABC, "R", "K", "RK", 0),
    ("MOD", ABC, "R", "R", "RK", 0),
    ("MOD_BK", ABC, "R", "K", "RK", 0),
    ("POW", ABC, "R", "R", "RK", 0),
    ("POW_BK", ABC, "R", "K", "RK", 0),
    ("NEWTABLE", ABC, "R", "U", "U", 0),
    ("UNM", ABC, "R", "R", "N", 0),
    ("NOT", ABC, "R", "R", "N", 0),
    ("LEN", ABC, "R", "R", "N", 0),
    ("LT", ABC, "F", "R", "RK", 0),
    ("LT_BK", ABC, "F", "K", "RK", 0),
    ("LE", ABC, "F", "R", "RK", 0),
    ("LE_BK", ABC, "F", "K", "RK", 0),
    ("CONCAT", ABC, "R", "R", "R", 0),
    ("TESTSET", ABC, "R", "R", "F", 0),
    ("FORPREP", ASBX, "R", "J", "N", 0),
    ("FORLOOP", ASBX, "R", "J", "N", 0),
    ("SETLIST", ABC, "R", "U", "U", "setlist"),
    ("CLOSE", ABC, "R", "N", "N", 0),
    ("CLOSURE", ABX, "R", "P", "N", "closure"),
    ("VARARG", ABC, "R", "U", "N", 0),
    ("TAILCALL_I_R1", ABC, "R", "U", "U", 0),
    ("CALL_I_R1", ABC, "R", "U", "U", 0),
    ("SETUPVAL_R1", ABC, "R", "V", "N", 0),
    ("TEST_R1", ABC, "R", "N", "F", 0),
    ("NOT_R1", ABC, "R", "R", "N", 0),
    ("GETFIELD_R1", ABC, "R", "R", "K", 2),
    ("SETFIELD_R1", ABC, "R", "K", "RK", 0),
    ("NEWSTRUCT", ABC, "R", "U", "U", 1),
    ("DATA", ABX, "U", "U", "N", 0),
    ("SETSLOTN", ABC, "R", "N", "U", 0),
    ("SETSLOTI", ABC, "R", "U", "RK", 0),
    ("SETSLOT", ABC, "R", "U", "RK", 1),
    ("SETSLOTS", ABC, "R", "U", "R", 1),
    ("SETSLOTMT", ABC, "R", "U", "RK", 1),
    ("CHECKTYPE", ABX, "R", "T", "N", 0),
    ("CHECKTYPES", ABX, "R", "U", "N", 0),
    ("GETSLOT", ABC, "R", "R", "U", 1),
    ("GETSLOTMT", ABC, "R", "R", "U", 1),
    ("SELFSLOT", ABC, "R", "R", "U", 1),
    ("SELFSLOTMT", ABC, "R", "R", "U", 1),
    ("GETFIELD_MM", ABC, "R", "R", "K", 2),
    ("CHECKTYPE_D", ABX, "R", "T", "N", 1),
    ("GETSLOT_D", ABC, "R", "R", "U", 1),
    ("GETGLOBAL_MEM", ABX, "R", "K", "N", 1),
]
BO3_OPS = [
    ("LEFT_SHIFT", ABC, "R", "R", "RK", 0),
    ("LEFT_SHIFT_BK", ABC, "R", "K", "RK", 0),
    ("RIGHT_SHIFT", ABC, "R", "R", "RK", 0),
    ("RIGHT_SHIFT_BK", ABC, "R", "K", "RK", 0),
    ("BIT_AND", ABC, "R", "R", "RK", 0),
    ("BIT_AND_BK", ABC, "R", "K", "RK", 0),
    ("BIT_OR", ABC, "R", "R", "RK", 0),
    ("BIT_OR_BK", ABC, "R", "K", "RK", 0),
]
GHOSTS_OPS = [
    ("DELETE", ABC, "R", "R", "RK", 0),
    ("DELETE_BK", ABC, "R", "K", "RK", 0),
]

OPS = {
    "base": BASE_OPS,
    "bo3": BASE_OPS[:60] + BO3_OPS + BASE_OPS[60:],
    "ghosts": BASE_OPS + GHOSTS_OPS,
}

STD_TYPES = ["TNIL", "TBOOLEAN", "TLIGHTUSERDATA", "TNUMBER", "TSTRING", "TTABLE", "TFUNCTION",
             "TUSERDATA", "TTHREAD", "TIFUNCTION", "TCFUNCTION", "TUI64", "TSTRUCT"]
CONST_TYPES = {0: "nil", 1: "boolean", 2: "lightuserdata", 3: "number", 4: "string", 11: "ui64"}

# How string bytes are written between quotes.
ESCAPES = {i: "\\x%02x" % i for i in range(256) if not 0x20 <= i < 0x7f}
ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", 10: "\\n", 9: "\\t", 13: "\\r"})


def quote(s, limit=0):
    """A string as null, "text" (stored with its final NUL) or nonul"text"."""
    if s is None:
        return "null"
    prefix = ""
    if s.endswith(b"\0"):
        s = s[:-1]
    else:
        prefix = "nonul"
    cut = limit and len(s) > limit
    if cut:
        s = s[:limit]
    return prefix + '"' + s.decode("latin-1").translate(ESCAPES) + '"' + ("..." if cut else "")


def number_text(bits, size, integral):
    """A number constant as text that reads back to the same bits."""
    if integral:
        return str(struct.unpack("<i" if size == 4 else "<q", struct.pack("<Q", bits)[:size])[0])
    if size == 4:
        f = struct.unpack("<f", struct.pack("<I", bits))[0]
        if -16777216.0 < f < 16777216.0 and f == int(f) and not (f == 0 and bits >> 31):
            return str(int(f))
        precs, fmt, width = range(6, 10), "<f", 8
    else:
        f = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if -9007199254740992.0 < f < 9007199254740992.0 and f == int(f) and not (f == 0 and bits >> 63):
            return str(int(f))
        precs, fmt, width = range(15, 18), "<d", 16
    if f == f:
        for prec in precs:
            text = "%.*g" % (prec, f)
            try:
                back = struct.unpack("<I" if size == 4 else "<Q", struct.pack(fmt, float(text)))[0]
            except OverflowError:
                continue
            if back == bits:
                return text
    return "bits:%0*x" % (width, bits)


class Const:
    def __init__(self, type, value):
        self.type, self.value = type, value


class Function:
    pass


class Reader:
    def __init__(self, data, start):
        self.data, self.pos, self.start = data, start, start

    def u8(self):
        v = self.data[self.pos]
        self.pos += 1
        return v

    def int(self):
        v = struct.unpack_from(self.e + "I", self.data, self.pos)[0]
        self.pos += 4
        return v

    def size(self):
        v = struct.unpack_from(self.e + self.size_fmt, self.data, self.pos)[0]
        self.pos += self.size_t
        return v

    def u64(self):
        v = struct.unpack_from(self.e + "Q", self.data, self.pos)[0]
        self.pos += 8
        return v

    def bytes(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated at %d" % self.pos)
        v = self.data[self.pos:self.pos + n]
        self.pos += n
        return v

    def array(self, n):
        """n 32-bit words (instructions, line numbers), read one by one."""
        return [self.int() for _ in range(self.count(n, 4))]

    def string(self):
        n = self.size()
        return self.bytes(n) if n else None

    def count(self, n, item_size):
        """A count must fit in the bytes left."""
        if n > (len(self.data) - self.pos) // item_size:
            raise ValueError("count %d too large at %d" % (n, self.pos))
        return n

    def header(self):
        if self.bytes(4) != b"\x1bLua":
            raise ValueError("no chunk signature")
        (self.version, self.format, self.endian, self.size_int, self.size_t, self.size_ins,
         self.size_num, self.integral, self.flags, self.referenced) = self.bytes(10)
        self.e = "<" if self.endian == 1 else ">"
        self.size_fmt = "Q" if self.size_t == 8 else "I"
        self.types = []
        for _ in range(self.int()):
            tid = self.int()
            self.types.append((tid, self.bytes(self.int())))

    def debug_kind(self, flag):
        if flag == 0:
            return "none"
        if self.format == 13 and flag == 1:
            return "hash"
        if self.format == 13 and flag == 40:
            return "profile"
        return "full"

    def function(self):
        f = Function()
        f.nups, f.nparams, f.flags = self.int(), self.int(), self.u8()
        f.maxstack, ncode = self.int(), self.size()
        f.pad = self.bytes((4 - (self.pos - self.start) % 4) % 4)
        f.code_offset = self.pos
        f.code = self.array(ncode)
        f.k = []
        for _ in range(self.int()):
            t = self.u8()
            if t == 0:
                v = None
            elif t == 1:
                v = self.u8()
            elif t == 2:
                v = self.size()
            elif t == 3:
                v = self.int() if self.size_num == 4 else self.u64()
            elif t == 4:
                v = self.string()
            elif t == 11:
                v = self.u64()
            else:
                raise ValueError("bad constant type %d at %d" % (t, self.pos - 1))
            f.k.append(Const(t, v))
        f.debug_flag = self.int()
        f.debug_kind = self.debug_kind(f.debug_flag)
        f.lines, f.locals, f.upnames = [], [], []
        f.source = f.name = None
        f.linedefined = f.lastlinedefined = f.hash = 0
        if f.debug_kind == "hash":
            f.hash = self.int()
        elif f.debug_kind == "profile":
            f.linedefined, f.lastlinedefined = self.int(), self.int()
            f.source, f.name = self.string(), self.string()
        elif f.debug_kind == "full" and self.format == 14:
            nlines, nlocals, nups = self.int(), self.int(), self.int()
            f.linedefined, f.lastlinedefined = self.int(), self.int()
            f.source, f.name = self.string(), self.string()
            f.lines = self.array(nlines)
            f.locals = [(self.string(), self.int(), self.int()) for _ in range(nlocals)]
            f.upnames = [self.string() for _ in range(nups)]
        elif f.debug_kind == "full":
            f.linedefined, f.lastlinedefined = self.int(), self.int()
            f.source, f.name = self.string(), self.string()
            f.lines = self.array(self.size())
            f.locals = [(self.string(), self.int(), self.int()) for _ in range(self.int())]
            f.upnames = [self.string() for _ in range(self.int())]
        f.children = [self.function() for _ in range(self.count(self.int(), 21))]
        return f

    def structs(self, halo):
        out = []
        while True:
            name = self.string()
            if name is None:
                return out
            sid, x, y, nslots = self.size(), self.int(), self.int(), self.size()
            bases = []
            if halo:
                bases = [self.string() for _ in range(self.count(self.int(), self.size_t))]
            slots = [(self.string(), self.size(), self.int(), self.int(), self.size())
                     for _ in range(self.count(nslots, 8 + 3 * self.size_t))]
            out.append((name, sid, x, y, bases, slots))


class Lister:
    def __init__(self, r, profile):
        self.r, self.out = r, []
        self.ops = OPS[profile]

    def data_words(self, f, op, w):
        n = op[5]
        if n == "setlist":
            return 1 if (w >> 8) & 0x1FF == 0 else 0
        if n == "closure":
            bx = (w >> 8) & 0x1FFFF
            return f.children[bx].nups if bx < len(f.children) else 0
        return n

    def function(self, f, path):
        out, r = self.out, self.r
        head = "\n; function " + path
        if f.debug_kind in ("full", "profile"):
            head += " <%s:%d,%d>" % (quote(f.source, 60), f.linedefined, f.lastlinedefined)
            if f.name is not None:
                head += " " + quote(f.name, 60)
        out.append("%s (%d words at 0x%x)\n" % (head, len(f.code), f.code_offset))
        out.append("; %d%s params, %d slots, %d upvalues, %d locals, %d constants, %d functions\n"
                   % (f.nparams, "+" if f.flags & 2 else "", f.maxstack, f.nups,
                      len(f.locals) if f.debug_flag else 0, len(f.k), len(f.children)))
        out.append(".function %s\n.upvalues %d\n.params %d\n.vararg 0x%02x\n.maxstack %d\n"
                   % (path, f.nups, f.nparams, f.flags, f.maxstack))
        if any(f.pad):
            out.append(".pad %s\t; alignment bytes as found\n" % f.pad.hex())
        out.append(".code\n")
        self.code(f, path)
        out.append(".constants\n")
        for i, k in enumerate(f.k):
            if k.type == 0:
                out.append("\t%d\tnil\n" % i)
            else:
                out.append("\t%d\t%s\t%s\n" % (i, CONST_TYPES[k.type], self.const_text(k)))
        if f.debug_kind == "hash":
            out.append(".debug %d\t; only a hash (debug info kept elsewhere)\n.hash 0x%08x\n"
                       % (f.debug_flag, f.hash))
        elif f.debug_flag:
            out.append(".debug %d%s\n.linedefined %d %d\n.source %s\n.name %s\n" % (
                f.debug_flag, "\t; names and lines defined only" if f.debug_kind == "profile" else "",
                f.linedefined, f.lastlinedefined, quote(f.source), quote(f.name)))
            for i in range(0, len(f.lines), 16):
                out.append(".lines %s\n" % " ".join(str(n) for n in f.lines[i:i + 16]))
            for name, start, end in f.locals:
                out.append(".local %s %d %d\n" % (quote(name), start, end))
            for name in f.upnames:
                out.append(".upvalname %s\n" % quote(name))
        for i, child in enumerate(f.children):
            self.function(child, "%s/%d" % (path, i))
        out.append(".end\t; function %s\n" % path)

    def const_text(self, k, limit=0):
        if k.type == 0:
            return "nil"
        if k.type == 1:
            return "false" if k.value == 0 else "true" if k.value == 1 else str(k.value)
        if k.type == 2:
            return "0x%xhi" % k.value
        if k.type == 3:
            return number_text(k.value, self.r.size_num, self.r.integral)
        if k.type == 4:
            return quote(k.value, limit)
        return "0x%xull" % k.value

    def code(self, f, path):
        out, ops = self.out, self.ops
        consts = [self.const_text(k, 40) for k in f.k]
        kname = lambda i: consts[i] if i < len(consts) else "<no such constant>"
        lines = f.lines if f.debug_kind == "full" and len(f.lines) == len(f.code) else None
        owner, owner_pc, owned = None, 0, 0
        for pc, w in enumerate(f.code):
            line = "[%d]" % lines[pc] if lines else "[-]"
            op = w >> 25
            if op >= len(ops):
                out.append("\t%d\t%s\t.word 0x%08x\t; opcode %d is not in the %s table\n"
                           % (pc, line, w, op, self.r.profile))
                continue
            name, mode, ka, kb, kc, _ = ops[op]
            a, notes = w & 0xFF, []
            if mode == ABC:
                b, c = (w >> 17) & 0xFF, (w >> 8) & 0x1FF
                fields = [-1 - a if ka == "K" else a]
                if not (kc == "N" and c == 0 and kb == "N" and b == 0):
                    fields.append(-1 - b if kb == "K" else b)
                if not (kc == "N" and c == 0):
                    fields.append(-1 - c if kc == "K" else 255 - c if kc == "RK" and c >= 256 else c)
                if kb == "K":
                    notes.append(kname(b))
                if kc == "K":
                    notes.append(kname(c))
                if kc == "RK" and c >= 256:
                    notes.append(kname(c - 256))
                text = " ".join(map(str, fields))
                if notes:
                    text += "\t; " + " ".join(notes)
                annotated = bool(notes)
                if kb == "V" and f.debug_flag and b < len(f.upnames):
                    text += "\t; " + quote(f.upnames[b], 40)
                    annotated = True
            elif mode == ABX:
                bx = (w >> 8) & 0x1FFFF
                text = "%d %d" % (-1 - a if ka == "K" else a, -1 - bx if kb == "K" else bx)
                annotated = False
                if kb == "K":
                    text += "\t; " + kname(bx)
                    annotated = True
                if kb == "P":
                    text += "\t; function %s/%d" % (path, bx)
                    annotated = True
            else:
                sbx = ((w >> 8) & 0x1FFFF) - 0xFFFF
                text = "%d" % sbx if ka == "N" and a == 0 else "%d %d" % (a, sbx)
                text += "\t; to %d" % (pc + 1 + sbx)
                annotated = True
            if name == "DATA" and owned > 0:
                text += (" of %s at %d" if annotated else "\t; of %s at %d") % (owner, owner_pc)
                owned -= 1
            elif name != "DATA":
                owner, owner_pc, owned = name, pc, self.data_words(f, ops[op], w)
            out.append("\t%d\t%s\t%-14s\t%s\n" % (pc, line, name, text))

    def hexlines(self, directive, data):
        for i in range(0, len(data), 32):
            self.out.append("%s %s\n" % (directive, data[i:i + 32].hex()))

    def chunk(self, prefix, main, structs, trailing):
        r, out = self.r, self.out
        out.append("; HavokScript chunk, listed by gsvm hks (lossless: gsvm hks asm rebuilds it "
                   "byte for byte)\n")
        out.append(".header version=0x%02x format=%d endian=%s int=%d size_t=%d instruction=%d "
                   "number=%d integral=%d flags=0x%02x referenced=%d\n"
                   % (r.version, r.format, "little" if r.endian else "big", r.size_int, r.size_t,
                      r.size_ins, r.size_num, r.integral, r.flags, r.referenced))
        names = ["memoization", "structures", "self", "doubles", "native-int"]
        out.append("; build flags:%s\n" % "".join(" " + n for i, n in enumerate(names)
                                                  if r.flags & (1 << i)))
        out.append(".profile %s\n" % r.profile)
        self.hexlines(".prefix", prefix)
        if r.types == [(i, n.encode() + b"\0") for i, n in enumerate(STD_TYPES)]:
            out.append(".types standard\t; the 13 types TNIL..TSTRUCT\n")
        else:
            out.append(".types %d\n" % len(r.types))
            for tid, name in r.types:
                out.append(".type %d %s\n" % (tid, quote(name)))
        self.function(main, "0")
        if structs is not None:
            marker, layout, items = structs
            out.append("\n.structs %d %s\n" % (marker, layout))
            for name, sid, x, y, bases, slots in items:
                out.append(".struct %s %d %d %d\t; id, two ints; %d slots (name id type ? position)\n"
                           % (quote(name), sid, x, y, len(slots)))
                for base in bases:
                    out.append(".base %s\n" % quote(base))
                for sname, sa, sb, sc, sd in slots:
                    note = ""
                    if sb < len(r.types) and len(r.types[sb][1]) > 1:
                        note = "\t; " + r.types[sb][1][:-1].decode("latin-1")
                    out.append(".slot %s %d %d %d %d%s\n" % (quote(sname), sa, sb, sc, sd, note))
            out.append(".endstructs\n")
        if trailing:
            out.append("\n; %d bytes after the chunk\n" % len(trailing))
            self.hexlines(".trailing", trailing)


def disassemble(data):
    start = 0 if data[:4] == b"\x1bLua" else max(data.find(b"\x1bLuaQ", 1), 0)
    r = Reader(data, start)
    r.header()
    r.profile = "ghosts" if r.format == 13 else "base"
    main = r.function()
    structs = None
    if r.flags & 2:
        marker, layout, items = r.int(), "plain", []
        if marker == 1:
            at = r.pos
            try:
                items = r.structs(True)
                layout = "halo" if items else "plain"
            except (ValueError, struct.error, IndexError):
                r.pos = at
                items = r.structs(False)
        structs = (marker, layout, items)
    lister = Lister(r, r.profile)
    lister.chunk(data[:start], main, structs, data[r.pos:])
    return "".join(lister.out)


def main():
    total, cpu = 0, 0.0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        t0 = time.process_time()
        text = disassemble(data)
        cpu += time.process_time() - t0
        total += len(text)
        sys.stdout.write(text)
    # the CPU time of the decoding and listing alone, as gsvm's --timing gives it
    sys.stderr.write("%d files, %d bytes of listing, list %.3f s\n"
                     % (len(sys.argv) - 1, total, cpu))


if __name__ == "__main__":
    main()
