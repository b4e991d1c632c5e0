#!/bin/sh
# gsvm patho run: exit codes and error messages of the CLI host.
G=${GSVM_BIN:?}; D=tests/patho/vm/data
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect() { # expect RC DESCRIPTION CMD...
    want=$1; what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL ($what): exit $rc, want $want: $*"; cat "$tmp/err"; fi
}
has() { # has FILE TEXT DESCRIPTION
    if grep -qF -- "$2" "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL ($3): no '$2' in:"; cat "$1"; fi
}
expect 1 "missing file" "$G" patho run "$tmp/nope.bin"
expect 2 "bad layout" "$G" patho run "$D/door.bin" --layout beta
has "$tmp/err" "unknown layout" "bad layout message"
expect 2 "zero cap" "$G" patho run "$D/door.bin" --max-instructions 0
expect 2 "zero frame cap" "$G" patho run "$D/door.bin" --frame-instructions 0
# natives: an undeclared one is refused before anything runs, naming it
expect 1 "undeclared native" "$G" patho run "$D/values.bin"
has "$tmp/err" "values.bin: error: import #0 'Show' with 6 arguments is not declared" "undeclared native message"
[ -s "$tmp/out" ] && { fail=$((fail+1)); echo "FAIL: output before a refused program"; } || pass=$((pass+1))
printf '{"natives": [\n  {"name": "Show", "args": ["int", "flaot"]}]}\n' >"$tmp/bad.natives.json"
expect 1 "bad natives file" "$G" patho run "$D/values.bin" --natives "$tmp/bad.natives.json"
has "$tmp/err" "bad.natives.json:2:36: error: unknown type word \"flaot\"" "natives error names line:column"
printf '{"natives": [{"name": "Show", "args": ["string", "any", "any", "any", "any", "any"]}]}\n' >"$tmp/int.natives.json"
expect 3 "declared type mismatch faults" "$G" patho run "$D/values.bin" --natives "$tmp/int.natives.json"
has "$tmp/out" "Type mismatch in argument 1 of 'Show': bool, declared string" "declared types are checked"
expect 2 "no file" "$G" patho run
head -c 20 "$D/door.bin" >"$tmp/cut.bin"
expect 1 "truncated bin" "$G" patho run "$tmp/cut.bin"
has "$tmp/err" "byte" "truncated bin names a byte offset"
printf '{"advance_ms":16}\n{"evnt":3}\n' >"$tmp/bad.jsonl"
expect 1 "bad timeline entry" "$G" patho run "$D/door.bin" --events "$tmp/bad.jsonl"
has "$tmp/err" "entry 2" "bad timeline names the entry"
[ -s "$tmp/out" ] && { fail=$((fail+1)); echo "FAIL: output before a rejected timeline"; } || pass=$((pass+1))
printf '{"advance_ms":16}\nnot json\n' >"$tmp/bad2.jsonl"
expect 1 "timeline not JSON" "$G" patho run "$D/door.bin" --events "$tmp/bad2.jsonl"
has "$tmp/err" ":2:" "timeline syntax error names the line"
printf '{"event":10,"args":[1]}\n' >"$tmp/types.jsonl"
expect 0 "event with wrong types is reported, not fatal" "$G" patho run "$D/door.bin" --events "$tmp/types.jsonl"
has "$tmp/err" "wrong argument types" "undelivered event notice"
# -o and stdin
expect 0 "output file" "$G" patho run "$D/door.bin" --events "$D/door.jsonl" -o "$tmp/o.txt"
cmp -s "$tmp/o.txt" "$D/door.out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: -o output differs"; }
"$G" patho run - --events "$D/door.jsonl" <"$D/door.bin" >"$tmp/stdin.txt"
cmp -s "$tmp/stdin.txt" "$D/door.out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: stdin output differs"; }
# --save-state / --resume: splitting the timeline anywhere changes nothing
n=$(wc -l <"$D/door.jsonl")
k=0
while [ $k -le "$n" ]; do
    head -n $k "$D/door.jsonl" >"$tmp/first.jsonl"
    tail -n +$((k+1)) "$D/door.jsonl" >"$tmp/rest.jsonl"
    "$G" patho run "$D/door.bin" --events "$tmp/first.jsonl" --save-state "$tmp/s.state" >"$tmp/1.out" 2>/dev/null
    "$G" patho run "$D/door.bin" --events "$tmp/rest.jsonl" --resume "$tmp/s.state" >"$tmp/2.out" 2>/dev/null
    cat "$tmp/1.out" "$tmp/2.out" | cmp -s - "$D/door.out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: split at $k differs"; }
    k=$((k+1))
done
head -c 30 "$tmp/s.state" >"$tmp/cut.state"
expect 1 "truncated state" "$G" patho run "$D/door.bin" --resume "$tmp/cut.state"
has "$tmp/err" "cut.state: byte" "truncated state names file and offset"
expect 1 "state of another program" "$G" patho run "$D/fault.bin" --resume "$tmp/s.state"
has "$tmp/err" "another program" "foreign state message"
# the layout flag is honoured: the alpha script read as hd is rejected
expect 1 "wrong layout" "$G" patho run "$D/values.bin" --layout hd --natives "$D/examples.natives.json"
expect 0 "alpha detected" "$G" patho run "$D/values.bin" --natives "$D/examples.natives.json"
# a corpus script against a timeline (Sleep(1) on simulation time)
S=${GSVM_SHARED_DIR:-../shared}/corpus/pathologic/bin/hd/rat_race.bin
if [ -f "$S" ]; then
    expect 3 "rat_race" "$G" patho run "$S" --events "$D/rat_race.jsonl"
    cmp -s "$tmp/out" "$D/rat_race.out" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: rat_race output differs:"; diff "$D/rat_race.out" "$tmp/out"; }
elif [ "${CI:-}" = true ]; then
    fail=$((fail+1)); echo "FAIL: corpus missing under CI"
else
    echo "skipped: corpus not found at $S"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
