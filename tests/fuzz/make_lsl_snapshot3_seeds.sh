#!/bin/sh
# Regenerates tests/fuzz/seeds/lsl_snapshot3 (run it whenever the ABI-3
# snapshot or program format changes: a seed must restore against the fuzz
# target's program, so it has that program's hash and the current version).
#   sh tests/fuzz/make_lsl_snapshot3_seeds.sh build/test/gsvm
# The program is fuzz_lsl_snapshot3.c's own source text; the seeds are
# `gsvm lsl run` snapshots of it: after K instructions of state_entry (k0 ..
# k120), at the end (end), asleep in llSleep (sleep), asleep with two
# listen events queued (queue), and in the middle of the second listen
# handler after the first has woken (busy).  Each is checked to restore.
set -e
G=${1:?usage: make_lsl_snapshot3_seeds.sh GSVM}
D=$(dirname "$0")
S=$D/seeds/lsl_snapshot3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 - "$D/fuzz_lsl_snapshot3.c" >"$T/fuzz.lsl" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'static const char source\[\] =\n((?:\s*".*"\n?)+);', s)
sys.stdout.write(''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))).encode().decode('unicode_escape'))
PY
K='"00000000-0000-0000-0000-000000000001"'
printf '{"event": "listen", "args": [3, "Bob", %s, "hello"]}\n' "$K" >"$T/one.jsonl"
cat "$T/one.jsonl" "$T/one.jsonl" "$T/one.jsonl" >"$T/three.jsonl"
cat "$T/one.jsonl" "$T/one.jsonl" >"$T/busy.jsonl"
printf '{"advance_ms": 600}\n' >>"$T/busy.jsonl"
printf '' >"$T/none.jsonl"
run() { # run NAME EVENTS [--snapshot-at K]
    n=$1; ev=$2; shift 2
    "$G" lsl run "$T/fuzz.lsl" --abi 3 --no-cache --events "$ev" "$@" --snapshot-out "$S/$n.snap" >/dev/null 2>&1
    "$G" lsl run "$T/fuzz.lsl" --abi 3 --no-cache --resume "$S/$n.snap" --events "$T/none.jsonl" >/dev/null 2>&1 ||
        { echo "$n.snap does not restore" >&2; exit 1; }
}
for k in 0 25 60 120; do run k$k "$T/none.jsonl" --snapshot-at $k; done
run end "$T/none.jsonl"
run sleep "$T/one.jsonl"
run queue "$T/three.jsonl"
run busy "$T/busy.jsonl" --snapshot-at 116
ls -l "$S"
