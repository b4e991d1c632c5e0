#!/usr/bin/env python3
"""Reference for `make bench`: the decode/list/assemble work of
`gsvm patho roundtrip`, written plainly in Python the way the community's
tools work (struct-based reading, one text line per instruction, regular
parsing back).  Table-driven like gsvm's isa.def so that it is not
needlessly slow: every file is decoded, listed as text, the text parsed
and encoded again, and the bytes compared.

usage: ref_list.py [--repeat N] FILE.bin...   (layout: alpha if the path has /alpha/)
"""
import struct
import sys
import time

U32 = struct.Struct('<I')
U16 = struct.Struct('<H')

# name, alpha, hd, operand letters (the same letters as src/patho/isa.def)
OPS = [
    ('Mov', 0x00, 'vv'), ('MovB', 0x01, 'vb'), ('MovI', 0x02, 'vi'), ('MovF', 0x03, 'vr'),
    ('MovS', 0x04, 'vs'), ('MovV', 0x05, 'vrrr'), ('MovT', 0x06, 'tv'), ('TMov', 0x07, 'vt'),
    ('TMovB', 0x08, 'tb'), ('TMovI', 0x09, 'ti'), ('TMovF', 0x0A, 'tr'), ('TMovS', 0x0B, 'ts'),
    ('TMovV', 0x0C, 'trrr'), ('TMovT', 0x0D, 'tt'), ('Jump', 0x0E, 'j'), ('JumpB', 0x0F, 'vjbh'),
    ('Push', 0x10, 'v'), ('PushB', 0x11, 'b'), ('PushI', 0x12, 'i'), ('PushF', 0x13, 'r'),
    ('PushS', 0x14, 's'), ('PushT', 0x15, 't'), ('PushVec', 0x16, 'rrr'), ('PushV', 0x17, 'L'),
    ('PushE', 0x18, 'aTxP'), ('PushGE', 0x19, 'g'), ('Pop', 0x1A, 'p'), ('PopE', 0x1B, 'aiQ'),
    ('PopGE', 0x1C, 'gG'), ('SetNull', 0x1D, 'v'), ('SetNullT', 0x1E, 't'),
]
for i, n in enumerate(['Add', 'Sub', 'Mult', 'Div', 'Mod', 'And', 'Or', 'Xor', 'Eq', 'Neq', 'LT', 'GT', 'LE', 'GE']):
    OPS.append((n, 0x1F + i, 'mmf'))
    OPS.append((n + '2', 0x31 + i, 'mmmf'))
for i, n in enumerate(['NullEq', 'NullNeq', 'Neg', 'Not']):
    OPS.append((n, 0x2D + i, 'mf'))
    OPS.append((n + '2', 0x3F + i, 'mmf'))
for i, n in enumerate(['Sqrt', 'Sin', 'Cos', 'ASin']):
    OPS.append((n, 0x43 + 2 * i, 'mf'))
    OPS.append((n + '2', 0x44 + 2 * i, 'mmf'))
OPS += [('Pow', 0x4B, 'mmf'), ('Pow2', 0x4C, 'mmmf')]
TAIL = [('Call', 'j'), ('Return', 'p'), ('TaskCall', 'k'), ('TaskReturn', ''), ('Func', 'F'),
        ('ObjFunc', 'vnR'), ('TObjFunc', 'tnR'), ('EventEnable', 'E'), ('EventDisable', 'E'),
        ('FuncExist', 'mmmf'), ('FuncExist2', 'mmmmf')]


def table(hd):
    t = {code: (name, ops) for name, code, ops in OPS}
    base = 0x4D
    if hd:
        t[0x4D] = ('CString', 'mf')
        t[0x4E] = ('CString2', 'mmf')
        base = 0x4F
    for i, (name, ops) in enumerate(TAIL):
        t[base + i] = (name, ops)
    return t


TYPES = {1: 'bool', 2: 'int', 3: 'float', 4: 'string', 5: 'object', 6: 'cvector'}
TYPE_CODES = {v: k for k, v in TYPES.items()}
SIZES = {'b': 1, 'x': 1, 'T': 1, 'f': 1, 'Q': 1, 'G': 1, 'h': 2, 'P': 3}


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def u8(self):
        v = self.d[self.p]
        self.p += 1
        return v

    def u32(self):
        v = U32.unpack_from(self.d, self.p)[0]
        self.p += 4
        return v

    def raw(self, n):
        v = self.d[self.p:self.p + n]
        if len(v) != n:
            raise ValueError('truncated')
        self.p += n
        return v

    def name(self):
        b0 = self.u8()
        n = (b0 & 0x7F) | (self.u8() << 7) if b0 & 0x80 else b0
        return self.raw(n).decode('latin-1')


def fmt_float(bits):
    f = struct.unpack('<f', U32.pack(bits))[0]
    for prec in range(1, 10):
        s = '%.*g' % (prec, f)
        if struct.unpack('<I', struct.pack('<f', float(s)))[0] == bits:
            return s
    return repr(f)


def pool_string(pool, off, wide):
    if wide:
        end = off
        while end + 1 < len(pool) and (pool[end] or pool[end + 1]):
            end += 2
        return pool[off:end].decode('utf-16-le', 'replace')
    end = pool.index(b'\0', off)
    return pool[off:end].decode('latin-1')


def decode(data, hd):
    """The .bin file as a list of listing lines."""
    ops = table(hd)
    r = Reader(data)
    out = ['.layout ' + ('hd' if hd else 'alpha')]
    for _ in range(r.u32()):
        t, flag = r.u8(), r.u8()
        out.append('.global %s "%s"' % (TYPES[t], r.name()) if flag else '.global %s' % TYPES[t])
    pool = bytes(r.raw(r.u32()))
    out.append('.pool ' + pool.hex())
    imports = []
    for _ in range(r.u32()):
        name, argc = r.name(), r.u32()
        imports.append((name, argc))
        out.append('.import %s %d' % (name, argc))
    run_task, run_op = r.u32(), r.u32()
    out.append('.entry %d %d' % (run_task, run_op))

    def events(prefix):
        for _ in range(r.u32()):
            eid, op, n = r.u32(), r.u32(), r.u32()
            out.append('%s %d %d (%s)' % (prefix, eid, op, ', '.join(TYPES[t] for t in r.raw(n))))

    for i in range(r.u32()):
        n = r.u32()
        types = ', '.join(TYPES[t] for t in r.raw(n))
        out.append('.task %d params=%d vars=(%s)' % (i, r.u32(), types))
        events('    .on')
    events('.event')
    out.append('.code')
    for _ in range(r.u32()):
        name, letters = ops[U16.unpack_from(data, r.p)[0]]
        r.p += 2
        parts = []
        flag_bits = 0
        if 'f' in letters:
            fpos = r.p + sum(SIZES.get(c, 4) for c in letters[:letters.index('f')])
            flag_bits = data[fpos]
        mi = 0
        for c in letters:
            if c in 'vtpkj':
                parts.append(('s' if c == 'v' else 't' if c == 't' else '') + str(r.u32()))
            elif c == 'm':
                parts.append(('t' if flag_bits & (0x80 >> mi) else 's') + str(r.u32()))
                mi += 1
            elif c == 'f':
                parts.append('pop=%d' % (r.u8() & (0xFF >> mi)))
            elif c in 'bTQG':
                parts.append(str(r.u8()))
            elif c == 'x':
                parts.append(str(struct.unpack('<b', r.raw(1))[0]))
            elif c == 'h':
                parts.append('pop=%d' % U16.unpack(r.raw(2))[0])
            elif c == 'P':
                parts.append(r.raw(3).hex())
            elif c in 'iE':
                parts.append(str(struct.unpack('<i', r.raw(4))[0]))
            elif c == 'r':
                parts.append(fmt_float(r.u32()))
            elif c in 'sn':
                off = r.u32()
                parts.append('@%d "%s"' % (off, pool_string(pool, off, c == 's')))
            elif c == 'g':
                parts.append('g%d' % r.u32())
            elif c in 'a':
                parts.append(str(r.u32()))
            elif c == 'L':
                parts.append('(%s)' % ', '.join(TYPES[t] for t in r.raw(r.u32())))
            elif c in 'FR':
                idx = r.u32()
                n = imports[idx][1] if c == 'F' else idx
                args = []
                for _ in range(n):
                    v = r.u32()
                    args.append(('t' if r.u8() else 's') + str(v))
                parts.append(('%s#%d' % (imports[idx][0], idx) if c == 'F' else '') + '(%s)' % ', '.join(args))
        out.append('    %s %s' % (name, ', '.join(parts)))
    if r.p != len(data):
        raise ValueError('trailing bytes')
    return out


def put_name(b, s):
    e = s.encode('latin-1')
    b += bytes([len(e)]) if len(e) < 0x80 else bytes([0x80 | (len(e) & 0x7F), len(e) >> 7])
    b += e


def encode(lines):
    """Listing lines back to the .bin bytes."""
    hd = lines[0].split()[1] == 'hd'
    codes = {name: (code, ops) for code, (name, ops) in table(hd).items()}
    globals_, imports, tasks, gevents, code = [], [], [], [], []
    pool = b''
    entry = (0, 0)
    i = 1
    while lines[i] != '.code':
        w = lines[i].split(None, 1)
        if w[0] == '.global':
            t = w[1].split(None, 1)
            globals_.append((TYPE_CODES[t[0]], t[1][1:-1] if len(t) > 1 else None))
        elif w[0] == '.pool':
            pool = bytes.fromhex(w[1]) if len(w) > 1 else b''
        elif w[0] == '.import':
            n, a = w[1].rsplit(' ', 1)
            imports.append((n, int(a)))
        elif w[0] == '.entry':
            entry = tuple(int(x) for x in w[1].split())
        elif w[0] == '.task':
            f = w[1].split(None, 2)
            types = f[2][len('vars=('):-1]
            tasks.append((int(f[1][7:]), [TYPE_CODES[t] for t in types.split(', ') if t], []))
        elif w[0] in ('.on', '.event'):
            eid, op, types = w[1].split(None, 2)
            ev = (int(eid), int(op), [TYPE_CODES[t] for t in types[1:-1].split(', ') if t])
            (tasks[-1][2] if w[0] == '.on' else gevents).append(ev)
        i += 1
    out = bytearray()
    out += U32.pack(len(globals_))
    for t, name in globals_:
        out += bytes([t, 1 if name is not None else 0])
        if name is not None:
            put_name(out, name)
    out += U32.pack(len(pool)) + pool
    out += U32.pack(len(imports))
    for n, a in imports:
        put_name(out, n)
        out += U32.pack(a)
    out += U32.pack(entry[0]) + U32.pack(entry[1]) + U32.pack(len(tasks))

    def put_events(evs):
        out.extend(U32.pack(len(evs)))
        for eid, op, types in evs:
            out.extend(U32.pack(eid) + U32.pack(op) + U32.pack(len(types)) + bytes(types))

    for params, types, evs in tasks:
        out += U32.pack(len(types)) + bytes(types) + U32.pack(params)
        put_events(evs)
    put_events(gevents)
    insns = lines[i + 1:]
    out += U32.pack(len(insns))
    for line in insns:
        line = line.strip()
        name, _, rest = line.partition(' ')
        code_, letters = codes[name]
        out += U16.pack(code_)
        # operands, split at top-level commas
        parts, depth, cur = [], 0, ''
        for ch in rest:
            if ch == '(':
                depth += 1
            elif ch == ')':
                depth -= 1
            if ch == ',' and depth == 0:
                parts.append(cur.strip())
                cur = ''
            else:
                cur += ch
        if cur.strip():
            parts.append(cur.strip())
        modes, flag_pop = 0, 0
        mi = 0
        for c, p in zip(letters, parts):
            if c in 'vt':
                out += U32.pack(int(p[1:]))
            elif c in 'pkja':
                out += U32.pack(int(p))
            elif c == 'm':
                if p[0] == 't':
                    modes |= 0x80 >> mi
                mi += 1
                out += U32.pack(int(p[1:]))
            elif c == 'f':
                out.append(modes | int(p[4:]))
            elif c in 'bTQG':
                out.append(int(p))
            elif c == 'x':
                out += struct.pack('<b', int(p))
            elif c == 'h':
                out += U16.pack(int(p[4:]))
            elif c == 'P':
                out += bytes.fromhex(p)
            elif c in 'iE':
                out += struct.pack('<i', int(p))
            elif c == 'r':
                out += struct.pack('<f', float(p))
            elif c in 'sn':
                out += U32.pack(int(p[1:p.index(' ')]))
            elif c == 'g':
                out += U32.pack(int(p[1:]))
            elif c == 'L':
                types = [TYPE_CODES[t] for t in p[1:-1].split(', ') if t]
                out += U32.pack(len(types)) + bytes(types)
            elif c in 'FR':
                head, _, args = p.partition('(')
                args = [a for a in args[:-1].split(', ') if a]
                out += U32.pack(int(head.split('#')[1]) if c == 'F' else len(args))
                for a in args:
                    out += U32.pack(int(a[1:])) + bytes([1 if a[0] == 't' else 0])
    return bytes(out)


def main():
    args = sys.argv[1:]
    repeat = 1
    if args[:1] == ['--repeat']:
        repeat = int(args[1])
        args = args[2:]
    files = [(f, open(f, 'rb').read()) for f in args]
    total = sum(len(d) for _, d in files)
    t0 = time.process_time()
    bad = 0
    for _ in range(repeat):
        for name, data in files:
            lines = decode(data, '/alpha/' not in name)
            text = '\n'.join(lines)          # the listing as one text, as a file would hold it
            if encode(text.split('\n')) != data:
                bad += 1
    t = time.process_time() - t0
    print('%d files, %d bytes, %d differ; %.4f s CPU for %.3f MB = %.3f MB/s'
          % (len(files), total, bad // repeat, t, total * repeat / 1e6, total * repeat / 1e6 / t))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
