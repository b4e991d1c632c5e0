#!/usr/bin/env python3
"""Second reference for `make bench`: the same round trip done the way the
community's tools (gr0grig/pathologic_re, which cannot be vendored) are
built — written here from scratch in that style: the disassembler makes one
Python object per instruction and prints it with an f-string in the
community's pseudo-code syntax ("Pop(1); Push((bool) Stack[-1] == 0)");
the assembler tries a list of regular expressions, one per instruction form,
in order, on every line.  Every file is decoded, listed, parsed and encoded
again, and the bytes compared.

usage: ref_community.py [--repeat N] FILE.bin...  (alpha if the path has /alpha/)
"""
import re
import struct
import sys
import time

TYPES = {1: 'bool', 2: 'int', 3: 'float', 4: 'string', 5: 'object', 6: 'cvector'}
TYPE_IDS = {v: k for k, v in TYPES.items()}
S = r'Stack\[-(\d+)\]'
T = r'Stack\[(\d+) \+ Tasks\[-1\]\.StackPointer\]'
V = r'(Stack\[-\d+\]|Stack\[\d+ \+ Tasks\[-1\]\.StackPointer\])'
F = r'(-?[\d.]+(?:e[+-]?\d+)?|-?inf|nan)'


def ref(v, task):
    return f'Stack[{v} + Tasks[-1].StackPointer]' if task else f'Stack[-{v}]'


def unref(s):
    m = re.match(r'Stack\[-(\d+)\]$', s)
    if m:
        return int(m.group(1)), 0
    m = re.match(r'Stack\[(\d+) \+ Tasks\[-1\]\.StackPointer\]$', s)
    return int(m.group(1)), 1


class Insn:
    """One decoded instruction: name, raw operand values, printed by fmt()."""

    def __init__(self, name, vals, extra=None):
        self.name, self.vals, self.extra = name, vals, extra


BIN = {'Add': '+', 'Sub': '-', 'Mult': '*', 'Div': '/', 'Mod': '%', 'And': '&', 'Or': '|', 'Xor': '^'}
CMP = {'Eq': '==', 'Neq': '!=', 'LT': '<', 'GT': '>', 'LE': '<=', 'GE': '>='}


def fmt(ins, pool, imports, tasks, tstack):
    n, v = ins.name, ins.vals
    f = v[-1] if v else 0
    if n == 'Mov': return f'Stack[-{v[0]}] = Stack[-{v[1]}]'
    if n == 'MovB': return f'Stack[-{v[0]}] = (bool) {v[1]}'
    if n == 'MovI': return f'Stack[-{v[0]}] = (int) {v[1]}'
    if n == 'MovF': return f'Stack[-{v[0]}] = (float) {v[1]!r}'
    if n == 'MovS': return f'Stack[-{v[0]}] = "{pstr(pool, v[1])}" // @poff={v[1]}'
    if n == 'MovV': return f'Stack[-{v[0]}] = CVector({v[1]!r}, {v[2]!r}, {v[3]!r})'
    if n == 'MovT': return f'Stack[-{v[1]}] = {ref(v[0], 1)}'
    if n == 'TMov': return f'{ref(v[1], 1)} = Stack[-{v[0]}]'
    if n == 'TMovB': return f'{ref(v[0], 1)} = (bool){v[1]}'
    if n == 'TMovI': return f'{ref(v[0], 1)} = (int){v[1]}'
    if n == 'TMovF': return f'{ref(v[0], 1)} = (float){v[1]!r}'
    if n == 'TMovS': return f'{ref(v[0], 1)} = "{pstr(pool, v[1])}" // @poff={v[1]}'
    if n == 'TMovV': return f'{ref(v[0], 1)} = CVector({v[1]!r}, {v[2]!r}, {v[3]!r})'
    if n == 'TMovT': return f'{ref(v[1], 1)} = {ref(v[0], 1)}'
    if n == 'Jump': return f'GOTO {hex(v[0])}'
    if n == 'JumpB': return f'IF (Stack[-{v[0]}] == {v[2]}) GOTO {hex(v[1])}; Pop({v[3]})'
    if n == 'Push': return f'Push( Stack[-{v[0]}] )'
    if n == 'PushT': return f'Push( {ref(v[0], 1)} )'
    if n == 'PushB': return f'Push((bool) {v[0]})'
    if n == 'PushI': return f'Push((int) {v[0]})'
    if n == 'PushF': return f'Push((float){v[0]!r})'
    if n == 'PushS': return f'Push("{pstr(pool, v[0])}") // @poff={v[0]}'
    if n == 'PushVec': return f'Push(CVector({v[0]!r}, {v[1]!r}, {v[2]!r}))'
    if n == 'PushV': return 'PushEmpty(%s)' % ', '.join(TYPES[t] for t in ins.extra)
    if n == 'PushE': return f'Push(CvectorIndex({ref(v[0], v[1])}, {v[2]}))'
    if n == 'PushGE': return f'Push(GlobalVars[{v[0]}])'
    if n == 'Pop': return f'Pop({v[0]})'
    if n == 'PopE': return f'CvectorIndex({ref(v[0], v[2] & 1)}, {v[1]}) = Stack[-1];'
    if n == 'PopGE': return f'GlobalVars[{v[0]}] = Stack[-1]; Pop({int((v[1] & 1) == 0)})'
    if n == 'SetNull': return f'Stack[-{v[0]}] = 0'
    if n == 'SetNullT': return f'{ref(v[0], 1)} = 0'
    if n in BIN: return f'Pop({f & 0x3F}); Push({ref(v[0], f & 0x80)} {BIN[n]} {ref(v[1], f & 0x40)});'
    if n in CMP: return f'Pop({f & 0x3F}); Push((bool) {ref(v[0], f & 0x80)} {CMP[n]} {ref(v[1], f & 0x40)})'
    if n[:-1] in BIN or n[:-1] in CMP:
        op = BIN.get(n[:-1]) or CMP[n[:-1]]
        return f'{ref(v[2], f & 0x20)} = {ref(v[0], f & 0x80)} {op} {ref(v[1], f & 0x40)}; Pop({f & 0x1F});'
    if n == 'NullEq': return f'Pop({f & 0x7F}); PushNull((bool) {ref(v[0], f & 0x80)} == 0)'
    if n == 'NullNeq': return f'Pop({f & 0x7F}); Push(( {ref(v[0], f & 0x80)} != 0 )'
    if n == 'Neg': return f'Pop({f & 0x7F}); Push(( -{ref(v[0], f & 0x80)})'
    if n == 'Not': return f'Pop({f & 0x7F}); Push((bool) {ref(v[0], f & 0x80)} == 0)'
    if n in ('NullEq2', 'NullNeq2', 'Neg2', 'Not2'):
        a, o = ref(v[0], f & 0x80), ref(v[1], f & 0x40)
        e = {'NullEq2': f'{a} == 0', 'NullNeq2': f'{a} != 0', 'Neg2': f'-{a}', 'Not2': f'!{a}'}[n]
        return f'{o} = {e}; Pop({f & 0x3F});'
    if n in ('Sqrt', 'Sin', 'Cos', 'ASin'): return f'Pop({f & 0x7F}); Push({n}({ref(v[0], f & 0x80)}))'
    if n in ('Sqrt2', 'Sin2', 'Cos2', 'ASin2'):
        return f'{ref(v[1], f & 0x40)} = {n[:-1]}({ref(v[0], f & 0x80)}); Pop({f & 0x3F});'
    if n == 'Pow': return f'Pop({f & 0x3F}); Push(Pow({ref(v[0], f & 0x80)}, {ref(v[1], f & 0x40)}));'
    if n == 'Pow2':
        return f'{ref(v[2], f & 0x20)} = Pow({ref(v[0], f & 0x80)}, {ref(v[1], f & 0x40)}); Pop({f & 0x1F});'
    if n == 'CString': return f'CString({ref(v[0], f & 0x80)}); Pop({f & 0x7F})'
    if n == 'CString2': return f'{ref(v[1], f & 0x40)} = CString2({ref(v[0], f & 0x80)}); Pop({f & 0x3F})'
    if n == 'Call': return f'Call2 {hex(v[0])}' if ins.extra else f'Call {hex(v[0])}'
    if n == 'Return': return f'Return(); Pop({v[0]})'
    if n == 'TaskCall':
        t = tasks[v[0]]
        tstack.append((t[1], len(t[0])))
        return f'Push(-{t[1]}, {len(t[0])}); TaskCall({v[0]})'
    if n == 'TaskReturn':
        p, c = tstack.pop() if tstack else (0, 0)
        return f'Pop(-{p}, {c}); TaskReturn'
    if n in ('Func', 'ObjFunc', 'TObjFunc'):
        args = ', '.join(f'Stack[-{a}]' + ('T' if m else '') for a, m in ins.extra)
        if n == 'Func':
            return f'@ {imports[v[0]][0]}({args})'
        at = '@@' if n == 'ObjFunc' else '@@@'
        return f'{at} {pstr(pool, v[1])}({args}); Obj={v[0]} // @poff={v[1]}'
    if n in ('EventEnable', 'EventDisable'): return f'{n}({v[0]})'
    if n == 'FuncExist':
        return (f'Pop({f & 0x1F}); Push(IsFuncExist({ref(v[0], f & 0x80)}, {ref(v[1], f & 0x40)}, '
                f'{ref(v[2], f & 0x20)}))')
    if n == 'FuncExist2':
        return (f'{ref(v[3], f & 0x10)} = FuncExist2({ref(v[0], f & 0x80)}, {ref(v[1], f & 0x40)}, '
                f'{ref(v[2], f & 0x20)})')
    raise ValueError(n)


def pstr(pool, off):
    d = pool[off:]
    if len(d) >= 2 and d[0] and not d[1]:
        end = 0
        while end + 1 < len(d) and (d[end] or d[end + 1]):
            end += 2
        return d[:end].decode('utf-16-le')
    return d[:d.index(0)].decode('latin-1')


# opcode number -> (name, operand struct format)
OPS = [('Mov', 'II'), ('MovB', 'IB'), ('MovI', 'Ii'), ('MovF', 'If'), ('MovS', 'II'), ('MovV', 'Ifff'),
       ('MovT', 'II'), ('TMov', 'II'), ('TMovB', 'IB'), ('TMovI', 'Ii'), ('TMovF', 'If'), ('TMovS', 'II'),
       ('TMovV', 'Ifff'), ('TMovT', 'II'), ('Jump', 'I'), ('JumpB', 'IIBH'), ('Push', 'I'), ('PushB', 'B'),
       ('PushI', 'i'), ('PushF', 'f'), ('PushS', 'I'), ('PushT', 'I'), ('PushVec', 'fff'), ('PushV', 'L'),
       ('PushE', 'IBb3x'), ('PushGE', 'I'), ('Pop', 'I'), ('PopE', 'IIB'), ('PopGE', 'IB'), ('SetNull', 'I'),
       ('SetNullT', 'I')]
OPS += [(n, 'IIB') for n in ['Add', 'Sub', 'Mult', 'Div', 'Mod', 'And', 'Or', 'Xor', 'Eq', 'Neq', 'LT', 'GT', 'LE', 'GE']]
OPS += [(n, 'IB') for n in ['NullEq', 'NullNeq', 'Neg', 'Not']]
OPS += [(n + '2', 'IIIB') for n in ['Add', 'Sub', 'Mult', 'Div', 'Mod', 'And', 'Or', 'Xor', 'Eq', 'Neq', 'LT', 'GT', 'LE', 'GE']]
OPS += [(n, 'IIB') for n in ['NullEq2', 'NullNeq2', 'Neg2', 'Not2']]
OPS += [('Sqrt', 'IB'), ('Sqrt2', 'IIB'), ('Sin', 'IB'), ('Sin2', 'IIB'), ('Cos', 'IB'), ('Cos2', 'IIB'),
        ('ASin', 'IB'), ('ASin2', 'IIB'), ('Pow', 'IIB'), ('Pow2', 'IIIB')]
TAIL = [('Call', 'I'), ('Return', 'I'), ('TaskCall', 'I'), ('TaskReturn', ''), ('Func', 'F'), ('ObjFunc', 'IIR'),
        ('TObjFunc', 'IIR'), ('EventEnable', 'I'), ('EventDisable', 'I'), ('FuncExist', 'IIIB'), ('FuncExist2', 'IIIIB')]


def optable(hd):
    t = list(OPS)
    if hd:
        t += [('CString', 'IB'), ('CString2', 'IIB')]
    return t + TAIL


def disasm(data, hd):
    pos = 0

    def rd(fmt):
        nonlocal pos
        v = struct.unpack_from('<' + fmt, data, pos)
        pos += struct.calcsize('<' + fmt)
        return v

    def name():
        nonlocal pos
        n = data[pos]
        pos += 1
        if n & 0x80:
            n = (n & 0x7F) | (data[pos] << 7)
            pos += 1
        s = data[pos:pos + n].decode('latin-1')
        pos += n
        return s

    out = []
    (ng,) = rd('I')
    out.append(f'GlobalVarCount = {ng}')
    for i in range(ng):
        t, flag = rd('BB')
        out.append(f'\tG_VAR_{i} {TYPES[t]} {name() if flag else ""}')
    (ps,) = rd('I')
    pool = data[pos:pos + ps]
    pos += ps
    out.append('Strings:')
    out.append('// @pool_raw:' + pool.hex())
    out.append('Import:')
    imports = []
    for _ in range(rd('I')[0]):
        n = name()
        (a,) = rd('I')
        imports.append((n, a))
        out.append(f'\t{n} ({a} args)')
    run_task, run_op, nt = rd('III')
    out.append(f'RunOp = {hex(run_op)}')
    out.append(f'RunTask = {run_task}')
    out.append('GlobalTasks: ')
    tasks = []

    def events(indent):
        for _ in range(rd('I')[0]):
            eid, op, n = rd('III')
            types = ', '.join(TYPES[t] for t in data[pos:pos + n])
            rd(f'{n}x')
            out.append(f'{indent}EVENT_{eid} Op = {hex(op)} Vars = ({types})')

    for i in range(nt):
        (n,) = rd('I')
        vt = data[pos:pos + n]
        rd(f'{n}x')
        (params,) = rd('I')
        tasks.append((vt, params))
        vs = 'Vars = (%s) ' % ', '.join(TYPES[t] for t in vt) if n else ''
        out.append(f'\tGTASK_{i} {vs}Params = {params}')
        events('\t\t')
    out.append('Events:')
    events('')
    table = optable(hd)
    insns = []
    for _ in range(rd('I')[0]):
        (code,) = rd('H')
        n, f = table[code]
        extra = None
        if f == 'L':
            (c,) = rd('I')
            extra = data[pos:pos + c]
            rd(f'{c}x')
            vals = (c,)
        elif f == 'F':
            vals = rd('I')
            extra = [rd('IB') for _ in range(imports[vals[0]][1])]
        elif f == 'IIR':
            vals = rd('III')
            extra = [rd('IB') for _ in range(vals[2])]
        else:
            vals = rd(f) if f else ()
            if n == 'Call':
                extra = hd
        insns.append(Insn(n, vals, extra))
    tstack = []
    for i, ins in enumerate(insns):
        out.append(f'{hex(i)}: {fmt(ins, pool, imports, tasks, tstack)}')
    return '\n'.join(out)


def fl(s):
    return struct.unpack('<f', struct.pack('<f', float(s)))[0]


def build_patterns(hd):
    """(regex, handler) tried in order, one per instruction form."""
    pats = []

    def add(rx, fn):
        pats.append((re.compile(rx + r'$'), fn))

    code = {n: i for i, (n, _) in enumerate(optable(hd))}

    def enc(n, fmt, *vals):
        return struct.pack('<H', code[n]) + struct.pack('<' + fmt, *vals)

    add(S + ' = ' + S, lambda m: enc('Mov', 'II', int(m[1]), int(m[2])))
    add(S + ' = ' + T, lambda m: enc('MovT', 'II', int(m[2]), int(m[1])))
    add(T + ' = ' + S, lambda m: enc('TMov', 'II', int(m[2]), int(m[1])))
    add(T + ' = ' + T, lambda m: enc('TMovT', 'II', int(m[2]), int(m[1])))
    add(S + r' = \(bool\) ?(\d+)', lambda m: enc('MovB', 'IB', int(m[1]), int(m[2])))
    add(T + r' = \(bool\) ?(\d+)', lambda m: enc('TMovB', 'IB', int(m[1]), int(m[2])))
    add(S + r' = \(int\) ?(-?\d+)', lambda m: enc('MovI', 'Ii', int(m[1]), int(m[2])))
    add(T + r' = \(int\) ?(-?\d+)', lambda m: enc('TMovI', 'Ii', int(m[1]), int(m[2])))
    add(S + r' = \(float\) ?' + F, lambda m: enc('MovF', 'If', int(m[1]), fl(m[2])))
    add(T + r' = \(float\) ?' + F, lambda m: enc('TMovF', 'If', int(m[1]), fl(m[2])))
    add(S + r' = CVector\(' + F + ', ' + F + ', ' + F + r'\)',
        lambda m: enc('MovV', 'Ifff', int(m[1]), fl(m[2]), fl(m[3]), fl(m[4])))
    add(T + r' = CVector\(' + F + ', ' + F + ', ' + F + r'\)',
        lambda m: enc('TMovV', 'Ifff', int(m[1]), fl(m[2]), fl(m[3]), fl(m[4])))
    add(S + r' = ".*" // @poff=(\d+)', lambda m: enc('MovS', 'II', int(m[1]), int(m[2])))
    add(T + r' = ".*" // @poff=(\d+)', lambda m: enc('TMovS', 'II', int(m[1]), int(m[2])))
    add(S + ' = 0', lambda m: enc('SetNull', 'I', int(m[1])))
    add(T + ' = 0', lambda m: enc('SetNullT', 'I', int(m[1])))
    add(r'GOTO 0x([0-9a-f]+)', lambda m: enc('Jump', 'I', int(m[1], 16)))
    add(r'IF \(' + S + r' == (\d+)\) GOTO 0x([0-9a-f]+); Pop\((\d+)\)',
        lambda m: enc('JumpB', 'IIBH', int(m[1]), int(m[3], 16), int(m[2]), int(m[4])))
    add(r'Push\( ' + S + r' \)', lambda m: enc('Push', 'I', int(m[1])))
    add(r'Push\( ' + T + r' \)', lambda m: enc('PushT', 'I', int(m[1])))
    add(r'Push\(\(bool\) (\d+)\)', lambda m: enc('PushB', 'B', int(m[1])))
    add(r'Push\(\(int\) (-?\d+)\)', lambda m: enc('PushI', 'i', int(m[1])))
    add(r'Push\(\(float\)' + F + r'\)', lambda m: enc('PushF', 'f', fl(m[1])))
    add(r'Push\(CVector\(' + F + ', ' + F + ', ' + F + r'\)\)',
        lambda m: enc('PushVec', 'fff', fl(m[1]), fl(m[2]), fl(m[3])))
    add(r'Push\(CvectorIndex\(' + V + r', (-?\d+)\)\)',
        lambda m: enc('PushE', 'IBb3x', unref(m[1])[0], unref(m[1])[1], int(m[2])))
    add(r'Push\(GlobalVars\[(\d+)\]\)', lambda m: enc('PushGE', 'I', int(m[1])))
    add(r'Push\(".*"\) // @poff=(\d+)', lambda m: enc('PushS', 'I', int(m[1])))

    def pushv(m):
        types = bytes(TYPE_IDS[t] for t in m[1].split(', ') if t)
        return enc('PushV', 'I', len(types)) + types
    add(r'PushEmpty\((.*)\)', pushv)
    add(r'Pop\((\d+)\)', lambda m: enc('Pop', 'I', int(m[1])))
    add(r'CvectorIndex\(' + V + r', (\d+)\) = Stack\[-1\];',
        lambda m: enc('PopE', 'IIB', unref(m[1])[0], int(m[2]), unref(m[1])[1]))
    add(r'GlobalVars\[(\d+)\] = Stack\[-1\]; Pop\((\d+)\)',
        lambda m: enc('PopGE', 'IB', int(m[1]), 0 if m[2] == '1' else 1))

    def flag(pop, *refs):
        f, bit = pop, 0x80
        for r in refs:
            if unref(r)[1]:
                f |= bit
            bit >>= 1
        return f

    for n, op in BIN.items():
        add(r'Pop\((\d+)\); Push\(' + V + ' ' + re.escape(op) + ' ' + V + r'\);',
            lambda m, n=n: enc(n, 'IIB', unref(m[2])[0], unref(m[3])[0], flag(int(m[1]), m[2], m[3])))
    add(r'Pop\((\d+)\); Push\(\(bool\) ' + V + r' == 0\)',
        lambda m: enc('Not', 'IB', unref(m[2])[0], flag(int(m[1]), m[2])))
    for n, op in CMP.items():
        add(r'Pop\((\d+)\); Push\(\(bool\) ' + V + ' ' + re.escape(op) + ' ' + V + r'\)',
            lambda m, n=n: enc(n, 'IIB', unref(m[2])[0], unref(m[3])[0], flag(int(m[1]), m[2], m[3])))
    add(r'Pop\((\d+)\); PushNull\(\(bool\) ' + V + r' == 0\)',
        lambda m: enc('NullEq', 'IB', unref(m[2])[0], flag(int(m[1]), m[2])))
    add(r'Pop\((\d+)\); Push\(\( ' + V + r' != 0 \)',
        lambda m: enc('NullNeq', 'IB', unref(m[2])[0], flag(int(m[1]), m[2])))
    add(r'Pop\((\d+)\); Push\(\( -' + V + r'\)',
        lambda m: enc('Neg', 'IB', unref(m[2])[0], flag(int(m[1]), m[2])))
    for n in ('Sqrt', 'Sin', 'Cos', 'ASin'):
        add(r'Pop\((\d+)\); Push\(' + n + r'\(' + V + r'\)\)',
            lambda m, n=n: enc(n, 'IB', unref(m[2])[0], flag(int(m[1]), m[2])))
        add(V + ' = ' + n + r'\(' + V + r'\); Pop\((\d+)\);',
            lambda m, n=n: enc(n + '2', 'IIB', unref(m[2])[0], unref(m[1])[0], flag(int(m[3]), m[2], m[1])))
    add(r'Pop\((\d+)\); Push\(Pow\(' + V + ', ' + V + r'\)\);',
        lambda m: enc('Pow', 'IIB', unref(m[2])[0], unref(m[3])[0], flag(int(m[1]), m[2], m[3])))
    add(V + r' = Pow\(' + V + ', ' + V + r'\); Pop\((\d+)\);',
        lambda m: enc('Pow2', 'IIIB', unref(m[2])[0], unref(m[3])[0], unref(m[1])[0], flag(int(m[4]), m[2], m[3], m[1])))
    for n, e in (('NullEq2', '{} == 0'), ('NullNeq2', '{} != 0'), ('Neg2', '-{}'), ('Not2', '!{}')):
        add(V + ' = ' + re.escape(e).replace(r'\{\}', '{}').format(V) + r'; Pop\((\d+)\);',
            lambda m, n=n: enc(n, 'IIB', unref(m[2])[0], unref(m[1])[0], flag(int(m[3]), m[2], m[1])))
    for n, op in list(BIN.items()) + list(CMP.items()):
        add(V + ' = ' + V + ' ' + re.escape(op) + ' ' + V + r'; Pop\((\d+)\);',
            lambda m, n=n: enc(n + '2', 'IIIB', unref(m[2])[0], unref(m[3])[0], unref(m[1])[0],
                               flag(int(m[4]), m[2], m[3], m[1])))
    add(r'Pop\((\d+)\); Push\(IsFuncExist\(' + V + ', ' + V + ', ' + V + r'\)\)',
        lambda m: enc('FuncExist', 'IIIB', unref(m[2])[0], unref(m[3])[0], unref(m[4])[0],
                      flag(int(m[1]), m[2], m[3], m[4])))
    add(V + r' = FuncExist2\(' + V + ', ' + V + ', ' + V + r'\)',
        lambda m: enc('FuncExist2', 'IIIIB', unref(m[2])[0], unref(m[3])[0], unref(m[4])[0], unref(m[1])[0],
                      flag(0, m[2], m[3], m[4], m[1])))
    add(r'CString\(' + V + r'\); Pop\((\d+)\)', lambda m: enc('CString', 'IB', unref(m[1])[0], flag(int(m[2]), m[1])))
    add(V + r' = CString2\(' + V + r'\); Pop\((\d+)\)',
        lambda m: enc('CString2', 'IIB', unref(m[2])[0], unref(m[1])[0], flag(int(m[3]), m[2], m[1])))
    add(r'Call2? 0x([0-9a-f]+)', lambda m: enc('Call', 'I', int(m[1], 16)))
    add(r'Return\(\); Pop\((\d+)\)', lambda m: enc('Return', 'I', int(m[1])))
    add(r'Push\(-(\d+), (\d+)\); TaskCall\((\d+)\)', lambda m: enc('TaskCall', 'I', int(m[3])))
    add(r'Pop\(-(\d+), (\d+)\); TaskReturn', lambda m: struct.pack('<H', code['TaskReturn']))

    def args(s):
        out = b''
        for a in s.split(', ') if s else []:
            out += struct.pack('<IB', int(a[7:a.index(']')]), 1 if a.endswith('T') else 0)
        return out
    add(r'@@@ (\w+)\((.*)\); Obj=(\d+) // @poff=(\d+)',
        lambda m: enc('TObjFunc', 'III', int(m[3]), int(m[4]), len(m[2].split(', ')) if m[2] else 0) + args(m[2]))
    add(r'@@ (\w+)\((.*)\); Obj=(\d+) // @poff=(\d+)',
        lambda m: enc('ObjFunc', 'III', int(m[3]), int(m[4]), len(m[2].split(', ')) if m[2] else 0) + args(m[2]))
    add(r'(Event(?:En|Dis)able)\((\d+)\)', lambda m: enc(m[1], 'I', int(m[2])))
    return pats


def asm(text, hd, pats):
    out, gvars, imports, tasks, gevents, code = b'', [], [], [], [], []
    pool = b''
    run_op = run_task = 0
    section = None
    for line in text.split('\n'):
        s = line.strip()
        if not s:
            continue
        m = re.match(r'(0x[0-9a-f]+): (.*)', s, re.S)
        if m:
            code.append(m[2])
            continue
        if s.startswith('GlobalVarCount'):
            continue
        m = re.match(r'G_VAR_\d+ (\w+) ?(.*)', s)
        if m:
            gvars.append((TYPE_IDS[m[1]], m[2]))
            continue
        if s.startswith('// @pool_raw:'):
            pool = bytes.fromhex(s[13:])
            continue
        if s.endswith(':') and s[:-1] in ('Strings', 'Import', 'Events', 'GlobalTasks'):
            section = s[:-1]
            continue
        m = re.match(r'(\S+) \((\d+) args\)', s)
        if m and section == 'Import':
            imports.append((m[1], int(m[2])))
            continue
        m = re.match(r'RunOp = 0x([0-9a-f]+)', s)
        if m:
            run_op = int(m[1], 16)
            continue
        m = re.match(r'RunTask = (\d+)', s)
        if m:
            run_task = int(m[1])
            continue
        m = re.match(r'GTASK_\d+ (?:Vars = \((.*)\) )?Params = (\d+)', s)
        if m:
            tasks.append(([TYPE_IDS[t] for t in m[1].split(', ')] if m[1] else [], int(m[2]), []))
            continue
        m = re.match(r'EVENT_(\d+) Op = 0x([0-9a-f]+) Vars = \((.*)\)', s)
        if m:
            ev = (int(m[1]), int(m[2], 16), [TYPE_IDS[t] for t in m[3].split(', ')] if m[3] else [])
            (gevents if section == 'Events' else tasks[-1][2]).append(ev)
    b = bytearray(struct.pack('<I', len(gvars)))
    for t, n in gvars:
        b += bytes([t, 1 if n else 0])
        if n:
            b += bytes([len(n)]) + n.encode('latin-1')
    b += struct.pack('<I', len(pool)) + pool + struct.pack('<I', len(imports))
    for n, a in imports:
        b += bytes([len(n)]) + n.encode('latin-1') + struct.pack('<I', a)
    b += struct.pack('<III', run_task, run_op, len(tasks))

    def evs(lst):
        nonlocal b
        b += struct.pack('<I', len(lst))
        for eid, op, types in lst:
            b += struct.pack('<III', eid, op, len(types)) + bytes(types)

    for vt, params, events in tasks:
        b += struct.pack('<I', len(vt)) + bytes(vt) + struct.pack('<I', params)
        evs(events)
    evs(gevents)
    b += struct.pack('<I', len(code))
    fcode = {n: i for i, (n, _) in enumerate(optable(hd))}['Func']
    for text_ in code:
        m = re.match(r'@ (\w+)\((.*)\)$', text_)
        if m:
            argv = m[2].split(', ') if m[2] else []
            idx = next(i for i, (n, a) in enumerate(imports) if n == m[1] and a == len(argv))
            b += struct.pack('<HI', fcode, idx)
            for a in argv:
                b += struct.pack('<IB', int(a[7:a.index(']')]), 1 if a.endswith('T') else 0)
            continue
        for rx, fn in pats:
            m = rx.match(text_)
            if m:
                b += fn(m)
                break
        else:
            raise ValueError('cannot assemble ' + text_)
    return bytes(b)


def main():
    args = sys.argv[1:]
    repeat = 1
    if args[:1] == ['--repeat']:
        repeat = int(args[1])
        args = args[2:]
    files = [(f, open(f, 'rb').read()) for f in args]
    total = sum(len(d) for _, d in files)
    pats = {True: build_patterns(True), False: build_patterns(False)}
    t0 = time.process_time()
    bad = 0
    for _ in range(repeat):
        for name, data in files:
            hd = '/alpha/' not in name
            if asm(disasm(data, hd), hd, pats[hd]) != data:
                bad += 1
    t = time.process_time() - t0
    print('%d files, %d bytes, %d differ; %.4f s CPU for %.3f MB = %.3f MB/s'
          % (len(files), total, bad // repeat, t, total * repeat / 1e6, total * repeat / 1e6 / t))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
