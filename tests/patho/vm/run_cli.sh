#!/bin/sh
# gsvm patho run: exit codes and error messages of the CLI host.
. tests/cli_test.sh
D=tests/patho/vm/data
expect 1 "$G" patho run "$T/nope.bin"
expect 2 "$G" patho run "$D/door.bin" --layout beta
has "$T/err" "unknown layout"
expect 2 "$G" patho run "$D/door.bin" --max-instructions 0
expect 2 "$G" patho run "$D/door.bin" --frame-instructions 0
# natives: an undeclared one is refused before anything runs, naming it
expect 1 "$G" patho run "$D/values.bin"
has "$T/err" "values.bin: error: import #0 'Show' with 6 arguments is not declared"
[ -s "$T/out" ] && bad "output before a refused program" || ok
printf '{"natives": [\n  {"name": "Show", "args": ["int", "flaot"]}]}\n' >"$T/bad.natives.json"
expect 1 "$G" patho run "$D/values.bin" --natives "$T/bad.natives.json"
has "$T/err" "bad.natives.json:2:36: error: unknown type word \"flaot\""
printf '{"natives": [{"name": "Show", "args": ["string", "any", "any", "any", "any", "any"]}]}\n' >"$T/int.natives.json"
expect 3 "$G" patho run "$D/values.bin" --natives "$T/int.natives.json"
has "$T/out" "Type mismatch in argument 1 of 'Show': bool, declared string"
expect 2 "$G" patho run
head -c 20 "$D/door.bin" >"$T/cut.bin"
expect 1 "$G" patho run "$T/cut.bin"
has "$T/err" "byte"
printf '{"advance_ms":16}\n{"evnt":3}\n' >"$T/bad.jsonl"
expect 1 "$G" patho run "$D/door.bin" --events "$T/bad.jsonl"
has "$T/err" "entry 2"
[ -s "$T/out" ] && bad "output before a rejected timeline" || ok
printf '{"advance_ms":16}\nnot json\n' >"$T/bad2.jsonl"
expect 1 "$G" patho run "$D/door.bin" --events "$T/bad2.jsonl"
has "$T/err" ":2:"
printf '{"event":10,"args":[1]}\n' >"$T/types.jsonl"
expect 0 "$G" patho run "$D/door.bin" --events "$T/types.jsonl"
has "$T/err" "wrong argument types"
# -o and stdin
expect 0 "$G" patho run "$D/door.bin" --events "$D/door.jsonl" -o "$T/o.txt"
cmp -s "$T/o.txt" "$D/door.out" && ok || bad "-o output differs"
"$G" patho run - --events "$D/door.jsonl" <"$D/door.bin" >"$T/stdin.txt"
cmp -s "$T/stdin.txt" "$D/door.out" && ok || bad "stdin output differs"
# --save-state / --resume: splitting the timeline anywhere changes nothing
n=$(wc -l <"$D/door.jsonl")
k=0
while [ $k -le "$n" ]; do
    head -n $k "$D/door.jsonl" >"$T/first.jsonl"
    tail -n +$((k+1)) "$D/door.jsonl" >"$T/rest.jsonl"
    "$G" patho run "$D/door.bin" --events "$T/first.jsonl" --save-state "$T/s.state" >"$T/1.out" 2>/dev/null
    "$G" patho run "$D/door.bin" --events "$T/rest.jsonl" --resume "$T/s.state" >"$T/2.out" 2>/dev/null
    cat "$T/1.out" "$T/2.out" | cmp -s - "$D/door.out" && ok || bad "split at $k differs"
    k=$((k+1))
done
head -c 30 "$T/s.state" >"$T/cut.state"
expect 1 "$G" patho run "$D/door.bin" --resume "$T/cut.state"
has "$T/err" "cut.state: byte"
expect 1 "$G" patho run "$D/fault.bin" --resume "$T/s.state"
has "$T/err" "another program"
# the layout flag is honoured: the alpha script read as hd is rejected
expect 1 "$G" patho run "$D/values.bin" --layout hd --natives "$D/examples.natives.json"
expect 0 "$G" patho run "$D/values.bin" --natives "$D/examples.natives.json"
# a corpus script against a timeline (Sleep(1) on simulation time; the race
# object is the global the sim binds, GetScene answers an object)
S=${GSVM_SHARED_DIR:-../shared}/corpus/pathologic/bin/hd/rat_race.bin
if [ -f "$S" ]; then
    expect 0 "$G" patho run "$S" --events "$D/rat_race.jsonl"
    cmp -s "$T/out" "$D/rat_race.out" && ok || { bad "rat_race output differs:"; diff "$D/rat_race.out" "$T/out"; }
elif [ "${CI:-}" = true ]; then
    bad "corpus missing under CI"
else
    echo "skipped: corpus not found at $S"
fi
cli_test_end
