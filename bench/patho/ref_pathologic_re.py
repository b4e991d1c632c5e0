#!/usr/bin/env python3
"""Reference for `make bench`, used when a checkout of the community's own
tools (github.com/gr0grig/pathologic_re, the repository the corpus was built
with; not part of gsvm) is named by PATHOLOGIC_RE: the same round trip done
by those tools themselves, in one process.  Each file is disassembled the
way their parser/disasm.py does it (lib/PathologicScript.py, then str()),
assembled the way their parser/asm.py does it (parse_asm, then assemble;
the HD numbering unless the path has /alpha/), and the bytes compared.

usage: PATHOLOGIC_RE=DIR ref_pathologic_re.py [--repeat N] FILE.bin...
"""
import os
import sys
import time


def main():
    root = os.environ.get('PATHOLOGIC_RE')
    if not root or not os.path.isfile(os.path.join(root, 'parser', 'asm.py')):
        sys.exit('set PATHOLOGIC_RE to a checkout of gr0grig/pathologic_re')
    # where their disasm.py and asm.py find their modules
    sys.path.insert(0, os.path.join(root, 'parser', 'lib'))
    sys.path.insert(0, os.path.join(root, 'parser'))
    import PathologicScript
    import asm

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
            alpha = '/alpha/' in name
            PathologicScript.IS_ALPHA = alpha  # what disasm.py sets before reading
            text = str(PathologicScript.PathologicScript(name))
            if asm.assemble(asm.parse_asm(text), is_alpha=alpha) != data:
                bad += 1
    t = time.process_time() - t0
    print('%d files, %d bytes, %d differ; %.4f s CPU for %.3f MB = %.3f MB/s'
          % (len(files), total, bad // repeat, t, total * repeat / 1e6, total * repeat / 1e6 / t))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
