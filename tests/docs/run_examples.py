#!/usr/bin/env python3
"""Runs every shell example of one Markdown file and compares its output.

An example is a line beginning with `$ ` inside a code block (indented by four
spaces, or fenced with ```); the lines after it, up to the next `$ ` line or the
end of the block, are the output it shows.  A line `...` stands for any number
of lines left out; a last line `(exit N)` says the command exits with status N.

The commands of one file run in order, in one scratch directory, so a file
made by an earlier example is there for a later one.  That directory starts
with what a reader of the file has at hand:
  - examples/ (the repository's, linked) and a copy of the top-level files of
    examples/<engine>/ for docs/<engine>*.md, so `touch_counter.lsl` is there;
  - ../shared, linked to the project's shared data (GSVM_SHARED_DIR);
  - tests/ and bench/ of the repository, linked (read-only use);
  - HOME set to <scratch>/home, `gsvm` on PATH (GSVM_BIN).
Each command runs under `sh` on a pseudo-terminal, as a reader types it: its
stdout and stderr arrive in the order a terminal shows them, and `$?` is the
status of the previous example.

usage: run_examples.py FILE.md   (env GSVM_BIN, GSVM_SOURCE_DIR, GSVM_SHARED_DIR)
Exit 0 when every example printed what it shows, 1 otherwise (each mismatch
named by file:line with the expected and actual output).  An example that
reads ../shared/corpus is skipped with a message when the corpus is absent,
and fails when it is absent under CI=true; without the corpus, an example
that fails after such a skip is reported as skipped too (it may need a
file the skipped one made).
"""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = float(os.environ.get("GSVM_DOCS_TIMEOUT", "300"))
EXIT_RE = re.compile(r"^\(exit (\d+)\)$")


def examples(path):
    """Yields (line number, command, expected lines) in file order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []  # (first line number, [lines])
    i = 0
    prev_blank = True
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            indent = len(line) - len(line.lstrip())
            start = i + 1
            i += 1
            body = []
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
                i += 1
            blocks.append((start + 1, body))
            i += 1
            prev_blank = False
            continue
        if prev_blank and line.startswith("    ") and line.strip():
            start = i
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            blocks.append((start + 1, body))
            prev_blank = False
            continue
        prev_blank = not line.strip()
        i += 1
    for first, body in blocks:
        current = None
        for k, line in enumerate(body):
            if line.startswith("$ "):
                if current:
                    yield current
                current = (first + k, line[2:].strip(), [])
            elif current:
                current[2].append(line)
        if current:
            yield current


def run_on_pty(cmd, cwd, env):
    """Runs `sh -c cmd` with stdout and stderr on one pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + TIMEOUT
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([master], [], [], min(left, 1.0))
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    status = proc.wait()
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    return status, text, timed_out


def matches(expected, got):
    """True when `got` is `expected` with each `...` line standing for any lines."""
    chunks = [[]]
    for line in expected:
        if line.strip() == "...":
            chunks.append([])
        else:
            chunks[-1].append(line.rstrip())
    got = [line.rstrip() for line in got]
    if len(chunks) == 1:
        return chunks[0] == got
    first, last, middle = chunks[0], chunks[-1], chunks[1:-1]
    if got[:len(first)] != first:
        return False
    pos = len(first)
    end = len(got) - len(last)
    if end < pos or (last and got[end:] != last):
        return False
    for chunk in middle:
        n = len(chunk)
        while pos + n <= end and got[pos:pos + n] != chunk:
            pos += 1
        if pos + n > end:
            return False
        pos += n
    return True


def scratch_dir(doc, source, shared):
    root = tempfile.mkdtemp(prefix="gsvm-docs-")
    work = os.path.join(root, "work")
    os.makedirs(os.path.join(work, "home"))
    os.rename(os.path.join(work, "home"), os.path.join(root, "home"))
    if shared and os.path.isdir(shared):
        os.symlink(os.path.abspath(shared), os.path.join(root, "shared"))
    for name in ("examples", "tests", "bench"):
        os.symlink(os.path.join(source, name), os.path.join(work, name))
    engine = re.match(r"[a-z]+", os.path.basename(doc))
    own = os.path.join(source, "examples", engine.group(0)) if engine else None
    if own and os.path.isdir(own) and os.path.dirname(os.path.abspath(doc)) != source:
        for name in sorted(os.listdir(own)):
            p = os.path.join(own, name)
            if os.path.isfile(p):
                shutil.copy(p, os.path.join(work, name))
    return root, work


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    doc = sys.argv[1]
    source = os.path.abspath(os.environ.get("GSVM_SOURCE_DIR", "."))
    gsvm = os.path.abspath(os.environ["GSVM_BIN"])
    shared = os.environ.get("GSVM_SHARED_DIR") or os.path.join(source, "..", "shared")
    corpus = os.path.isdir(os.path.join(shared, "corpus"))
    ci = os.environ.get("CI") == "true"
    name = os.path.relpath(os.path.abspath(doc), source)

    root, work = scratch_dir(doc, source, shared)
    bindir = os.path.join(root, "bin")
    os.makedirs(bindir)
    os.symlink(gsvm, os.path.join(bindir, "gsvm"))
    env = dict(os.environ)
    env.update(PATH=bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
               HOME=os.path.join(root, "home"), TERM="dumb", LC_ALL="C.UTF-8")
    env.pop("XDG_CACHE_HOME", None)

    failed = ran = skipped = 0
    prev = 0
    for line, cmd, shown in examples(doc):
        want_exit = None
        if shown and EXIT_RE.match(shown[-1].strip()):
            want_exit = int(EXIT_RE.match(shown[-1].strip()).group(1))
            shown = shown[:-1]
        while shown and not shown[-1].strip():
            shown = shown[:-1]
        if "../shared/corpus" in cmd and not corpus:
            if ci:
                print(f"{name}:{line}: FAIL: ../shared/corpus is absent (CI=true): {cmd}")
                failed += 1
            else:
                print(f"{name}:{line}: skipped, ../shared/corpus is absent: {cmd}")
                skipped += 1
            continue
        ran += 1
        status, text, timed_out = run_on_pty(f"__prev() {{ return {prev}; }}; __prev; {cmd}",
                                             work, env)
        prev = status if status >= 0 else 128 - status
        got = text.split("\n")
        if got and got[-1] == "":
            got.pop()
        problems = []
        if timed_out:
            problems.append(f"did not finish in {TIMEOUT:.0f} s")
        if want_exit is not None and prev != want_exit:
            problems.append(f"exit status {prev}, the doc shows (exit {want_exit})")
        if not matches(shown, got):
            problems.append("output differs")
        if problems and skipped:
            # an earlier example that reads the corpus did not run; this one
            # may need what it made
            print(f"{name}:{line}: skipped, fails without ../shared/corpus "
                  f"(an earlier example read it): {cmd}")
            skipped += 1
            continue
        if problems:
            failed += 1
            print(f"{name}:{line}: FAIL: $ {cmd}\n  " + "; ".join(problems))
            print("  --- expected (the doc)")
            for s in shown:
                print("  | " + s)
            print("  --- got")
            for s in got:
                print("  | " + s)
    print(f"{name}: {ran} examples run, {failed} failed, {skipped} skipped")
    if not failed:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"{name}: scratch directory kept: {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
