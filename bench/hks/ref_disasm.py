#!/usr/bin/env python3
"""A small, honest reference HavokScript disassembler in plain Python.

It does the same decode work as `gsvm hks list`: read the header and the
type table, walk every function (code with its 4-byte alignment, constants,
debug info in the format-13 or format-14 layout, children), and decode every
instruction into a text line with its opcode name and operands.  It skips
what gsvm does beyond that (structures, reassembly), so the speed ratio
printed by bench_hks.sh favours Python, if anything.

usage: ref_disasm.py FILE... > listing.txt
"""
import struct
import sys

OPS = ("GETFIELD TEST CALL_I CALL_C EQ EQ_BK GETGLOBAL MOVE SELF RETURN GETTABLE_S "
       "GETTABLE_N GETTABLE LOADBOOL TFORLOOP SETFIELD SETTABLE_S SETTABLE_S_BK SETTABLE_N "
       "SETTABLE_N_BK SETTABLE SETTABLE_BK TAILCALL_I TAILCALL_C TAILCALL_M LOADK LOADNIL "
       "SETGLOBAL JMP CALL_M CALL INTRINSIC_INDEX INTRINSIC_NEWINDEX INTRINSIC_SELF "
       "INTRINSIC_INDEX_LITERAL INTRINSIC_NEWINDEX_LITERAL INTRINSIC_SELF_LITERAL TAILCALL "
       "GETUPVAL SETUPVAL ADD ADD_BK SUB SUB_BK MUL MUL_BK DIV DIV_BK MOD MOD_BK POW POW_BK "
       "NEWTABLE UNM NOT LEN LT LT_BK LE LE_BK CONCAT TESTSET FORPREP FORLOOP SETLIST CLOSE "
       "CLOSURE VARARG TAILCALL_I_R1 CALL_I_R1 SETUPVAL_R1 TEST_R1 NOT_R1 GETFIELD_R1 "
       "SETFIELD_R1 NEWSTRUCT DATA SETSLOTN SETSLOTI SETSLOT SETSLOTS SETSLOTMT CHECKTYPE "
       "CHECKTYPES GETSLOT GETSLOTMT SELFSLOT SELFSLOTMT GETFIELD_MM CHECKTYPE_D GETSLOT_D "
       "GETGLOBAL_MEM DELETE DELETE_BK").split()
ABX = {"GETGLOBAL", "LOADK", "SETGLOBAL", "CLOSURE", "DATA", "CHECKTYPE", "CHECKTYPES",
       "CHECKTYPE_D", "GETGLOBAL_MEM"}
ASBX = {"JMP", "FORPREP", "FORLOOP"}
MODE = [2 if n in ASBX else 1 if n in ABX else 0 for n in OPS]


class Reader:
    def __init__(self, data, start):
        self.d, self.p, self.start = data, start, start

    def header(self):
        d = self.d
        if d[self.p:self.p + 4] != b"\x1bLua":
            raise ValueError("no chunk signature")
        (self.version, self.format, endian, self.sint, self.ssize, self.sins, self.snum,
         self.integral, self.flags, self.ref) = d[self.p + 4:self.p + 14]
        self.e = "<" if endian == 1 else ">"
        self.p += 14
        for _ in range(self.int()):
            self.int()
            n = self.int()
            self.p += n

    def int(self):
        v = struct.unpack_from(self.e + "i", self.d, self.p)[0]
        self.p += 4
        return v

    def size(self):
        v = struct.unpack_from(self.e + ("Q" if self.ssize == 8 else "I"), self.d, self.p)[0]
        self.p += self.ssize
        return v

    def string(self):
        n = self.size()
        s = self.d[self.p:self.p + n]
        self.p += n
        return s[:-1].decode("latin-1") if n else None

    def function(self, out, path):
        nups, nparams = self.int(), self.int()
        flags = self.d[self.p]
        self.p += 1
        maxstack, ncode = self.int(), self.size()
        self.p += (4 - (self.p - self.start) % 4) % 4
        code = struct.unpack_from(self.e + "%dI" % ncode, self.d, self.p)
        self.p += 4 * ncode
        consts = []
        for _ in range(self.int()):
            t = self.d[self.p]
            self.p += 1
            if t == 0:
                consts.append("nil")
            elif t == 1:
                consts.append("true" if self.d[self.p] else "false")
                self.p += 1
            elif t == 2:
                consts.append("%#xhi" % self.size())
            elif t == 3:
                fmt = ("i" if self.snum == 4 else "q") if self.integral else ("f" if self.snum == 4 else "d")
                consts.append(repr(struct.unpack_from(self.e + fmt, self.d, self.p)[0]))
                self.p += self.snum
            elif t == 4:
                consts.append('"%s"' % self.string())
            elif t == 11:
                consts.append("%#xull" % struct.unpack_from(self.e + "Q", self.d, self.p)[0])
                self.p += 8
            else:
                raise ValueError("bad constant type %d at %d" % (t, self.p - 1))
        out.append("function %s: %d params, %d slots, %d upvalues, %d words, %d constants" %
                   (path, nparams, maxstack, nups, ncode, len(consts)))
        for pc, w in enumerate(code):
            op = w >> 25
            name = OPS[op] if op < len(OPS) else "OP_%d" % op
            a = w & 0xFF
            mode = MODE[op] if op < len(OPS) else 0
            if mode == 0:
                b, c = (w >> 17) & 0xFF, (w >> 8) & 0x1FF
                text = "%d %d %d" % (a, b, c)
                if c >= 256 and c - 256 < len(consts):
                    text += "\t; " + consts[c - 256]
            elif mode == 1:
                bx = (w >> 8) & 0x1FFFF
                text = "%d %d" % (a, bx)
                if name in ("LOADK", "GETGLOBAL", "GETGLOBAL_MEM", "SETGLOBAL") and bx < len(consts):
                    text += "\t; " + consts[bx]
            else:
                sbx = ((w >> 8) & 0x1FFFF) - 0xFFFF
                text = "%d %d\t; to %d" % (a, sbx, pc + 1 + sbx)
            out.append("\t%d\t%-14s\t%s" % (pc, name, text))
        for i, k in enumerate(consts):
            out.append("\tk%d\t%s" % (i, k))
        if self.int():
            if self.format == 14:
                nlines, nloc, nup = self.int(), self.int(), self.int()
                self.int(), self.int(), self.string(), self.string()
            else:
                self.int(), self.int(), self.string(), self.string()
                nlines = self.size()
            lines = struct.unpack_from(self.e + "%di" % nlines, self.d, self.p)
            self.p += 4 * nlines
            out.append(".lines " + " ".join(map(str, lines)))
            if self.format == 13:
                nloc = self.int()
            for _ in range(nloc):
                out.append(".local %s %d %d" % (self.string(), self.int(), self.int()))
            if self.format == 13:
                nup = self.int()
            for _ in range(nup):
                out.append(".upvalname %s" % self.string())
        for i in range(self.int()):
            self.function(out, "%s/%d" % (path, i))


def disassemble(data):
    start = 0 if data[:4] == b"\x1bLua" else data.find(b"\x1bLuaQ")
    r = Reader(data, start)
    r.header()
    out = []
    r.function(out, "0")
    return "\n".join(out) + "\n"


def main():
    total = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            text = disassemble(f.read())
        total += len(text)
        sys.stdout.write(text)
    sys.stderr.write("%d files, %d bytes of listing\n" % (len(sys.argv) - 1, total))


if __name__ == "__main__":
    main()
