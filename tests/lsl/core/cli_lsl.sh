#!/bin/sh
# gsvm lsl through the command line: the issue's CLI contract (outputs, exit
# codes), snapshots at every instruction through --snapshot-at/--resume,
# corrupt programs and snapshots, the cache, event files.
. tests/cli_test.sh
ex=examples/lsl

# ---- run: host lines, exit 0 -------------------------------------------------------
cat >"$T/ev.jsonl" <<'EOF'
{"event":"touch_start","args":[1]}
{"event":"touch_start","args":[2]}
EOF
expect 0 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev.jsonl"
cat >"$T/want" <<'EOF'
{"host":"llOwnerSay","args":["Touch me!"]}
{"host":"llSay","args":[0,"Touched 1 time(s) by 1"]}
{"host":"llSay","args":[0,"Touched 2 time(s) by 2"]}
EOF
same "$T/want" "$T/out" "touch counter output"
cp "$T/out" "$T/ref_touch"
# stdin as the program, -o as the output
cat $ex/touch_counter.lsl | "$G" lsl run - --events "$T/ev.jsonl" -o "$T/o.jsonl" && ok || bad "run - -o"
same "$T/want" "$T/o.jsonl" "run from stdin"

# ---- compile / list / .fpc -------------------------------------------------------------
expect 0 "$G" lsl compile $ex/touch_counter.lsl -o "$T/t.fpc"
head -c 4 "$T/t.fpc" | grep -q HWZP && ok || bad ".fpc magic"
expect 0 "$G" lsl run "$T/t.fpc" --events "$T/ev.jsonl"
same "$T/want" "$T/out" ".fpc runs like the source"
"$G" lsl list $ex/touch_counter.lsl >"$T/l1"; "$G" lsl list "$T/t.fpc" >"$T/l2"
same "$T/l1" "$T/l2" "listing of .lsl and .fpc"
"$G" lsl compile "$T/t.fpc" -o "$T/t2.fpc" && cmp -s "$T/t.fpc" "$T/t2.fpc" && ok || bad "re-save of .fpc"

# ---- diagnostics: exit 1, FILE:LINE:COL ------------------------------------------------
printf 'default {\n  state_entry() {\n    llSay(0, 1);\n  }\n}\n' >"$T/bad.lsl"
expect 1 "$G" lsl compile "$T/bad.lsl" -o "$T/never.fpc"
has "$T/err" "$T/bad.lsl:3:14: error: Function call mismatches type or number of arguments: argument 2 of llSay must be string, got integer"
[ ! -e "$T/never.fpc" ] && ok || bad "no output on a compile error"
expect 1 "$G" lsl run "$T/bad.lsl"
has "$T/err" "bad.lsl:3:14: error:"
expect 1 "$G" lsl list "$T/bad.lsl"
expect 1 "$G" lsl run "$T/missing.lsl"

# ---- usage errors: exit 2 ----------------------------------------------------------------
expect 2 "$G" lsl run $ex/touch_counter.lsl --budget 0
expect 2 "$G" lsl run $ex/touch_counter.lsl --snapshot-at 3
expect 2 "$G" lsl run $ex/touch_counter.lsl --cache "$T/c" --no-cache
expect 2 "$G" lsl run $ex/touch_counter.lsl --budget -4
expect 2 "$G" lsl run
expect 2 "$G" lsl compile a.lsl b.lsl

# ---- faults: exit 3 with {"fault":...,"ip":N} ----------------------------------------------
printf 'default { state_entry() { llOwnerSay("hi"); } }' >"$T/hi.lsl"
"$G" lsl compile "$T/hi.lsl" -o "$T/hi.fpc"
size=$(wc -c <"$T/hi.fpc")
# code = PushConst k0; CallHost h0,1; Halt (9 bytes each) at the end of the
# file but for the line table after it (format 2): u32 run count, then 12
# bytes per run, one for each line:column the listing shows
runs=$("$G" lsl list "$T/hi.fpc" | grep -cE '^  [0-9]+:[0-9]+ ')
[ "$runs" = 3 ] && ok || bad "hi.fpc lists $runs source positions, not 3"
end=$((size - 4 - 12 * runs))  # where the code ends
poke() { # poke FILE OFFSET OCTAL
    printf "\\$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cp "$T/hi.fpc" "$T/f1.fpc"; poke "$T/f1.fpc" $((end - 26)) 005
expect 3 "$G" lsl run "$T/f1.fpc"
has "$T/out" '{"fault":"bad constant index 5 (1 constants)","ip":0,"line":1,"col":38}'
cp "$T/hi.fpc" "$T/f2.fpc"; poke "$T/f2.fpc" $((end - 13)) 003
expect 3 "$G" lsl run "$T/f2.fpc"
has "$T/out" '{"fault":"host-argument underflow: llOwnerSay called with 3 arguments, stack holds 1","ip":1,"line":1,"col":27}'
cp "$T/hi.fpc" "$T/f3.fpc"; poke "$T/f3.fpc" $((end - 9)) 020   # Halt -> Pop
expect 3 "$G" lsl run "$T/f3.fpc"
has "$T/out" '{"fault":"operand-stack underflow: Pop needs 1 operand, stack holds 0","ip":2,"line":1,"col":11}'
cp "$T/hi.fpc" "$T/f4.fpc"; poke "$T/f4.fpc" $((end - 27)) 005   # PushConst -> AddInt
expect 3 "$G" lsl run "$T/f4.fpc"
has "$T/out" '"ip":0,"line":1,"col":38}'
has "$T/out" 'operand-stack underflow: AddInt'
cp "$T/hi.fpc" "$T/f5.fpc"; poke "$T/f5.fpc" $((end - 18)) 014   # CallHost -> CastIntToStr
expect 3 "$G" lsl run "$T/f5.fpc"
has "$T/out" '{"fault":"type mismatch: CastIntToStr needs an integer, got string","ip":1,"line":1,"col":27}'
# a host name the boundary does not know
sed 's/llOwnerSay/llOwnerSaz/' "$T/hi.fpc" >"$T/f6.fpc"
expect 3 "$G" lsl run "$T/f6.fpc"
has "$T/out" '{"fault":"host function llOwnerSaz failed: no such host function","ip":1,"line":1,"col":27}'
# the static verifier refuses each of them up front (and passes the original)
expect 0 "$G" lsl verify "$T/hi.fpc"
has "$T/out" "hi.fpc: verified (3 instructions)"
expect 1 "$G" lsl verify "$T/f1.fpc"
has "$T/err" "f1.fpc: error: state_entry: bad constant index 5 at ip 0"
expect 1 "$G" lsl verify "$T/f2.fpc"
has "$T/err" "calls llOwnerSay with 3 arguments, it takes 1"
expect 1 "$G" lsl verify "$T/f3.fpc"
has "$T/err" "state_entry: Pop at ip 2 pops an empty stack"
expect 1 "$G" lsl verify "$T/f5.fpc"
has "$T/err" "CastIntToStr at ip 1 needs integer, the stack may hold string"
expect 1 "$G" lsl verify "$T/f6.fpc"
has "$T/err" "calls llOwnerSaz, which is not an ABI-2 host function"
expect 0 "$G" lsl verify $ex/loops.lsl
# a truncated or padded program is input rejected, with its byte offset
head -c $((end - 3)) "$T/hi.fpc" >"$T/trunc.fpc"
expect 1 "$G" lsl run "$T/trunc.fpc"
has "$T/err" "trunc.fpc: byte"
cp "$T/hi.fpc" "$T/pad.fpc"; printf 'x' >>"$T/pad.fpc"
expect 1 "$G" lsl list "$T/pad.fpc"
has "$T/err" "pad.fpc: byte $size: error: 1 bytes of trailing garbage after the program"

# ---- limits: exit 4 ------------------------------------------------------------------------
expect 4 "$G" lsl run $ex/forever.lsl --max-instructions 12345 --budget 100
has "$T/out" '{"stopped":"instruction limit","executed":12345}'
expect 4 "$G" lsl run $ex/forever.lsl --max-instructions 0
same "$T/out" /dev/stdin <<'EOF'
{"stopped":"instruction limit","executed":0}
EOF

# ---- budgets do not change what a script does ---------------------------------------------
"$G" lsl run $ex/loops.lsl --events $ex/touches.jsonl >"$T/b_default"
for b in 1 2 3 7 100 1000000; do
    "$G" lsl run $ex/loops.lsl --events $ex/touches.jsonl --budget $b >"$T/b_$b"
    same "$T/b_default" "$T/b_$b" "--budget $b output"
done

# ---- snapshot at every instruction K, resumed in a fresh process ----------------------------
# total instructions of state_entry alone, and of the whole run with events
"$G" lsl run $ex/touch_counter.lsl --snapshot-at 999999999 --snapshot-out "$T/end.snap" 2>"$T/e1" >/dev/null
se=$(sed -n 's/.*ended after \([0-9]*\) instructions.*/\1/p' "$T/e1")
"$G" lsl run $ex/touch_counter.lsl --events "$T/ev.jsonl" --snapshot-at 999999999 --snapshot-out "$T/end.snap" 2>"$T/e2" >/dev/null
all=$(sed -n 's/.*ended after \([0-9]*\) instructions.*/\1/p' "$T/e2")
head -1 "$T/ev.jsonl" >"$T/ev1.jsonl"
"$G" lsl run $ex/touch_counter.lsl --events "$T/ev1.jsonl" --snapshot-at 999999999 --snapshot-out "$T/end.snap" 2>"$T/e3" >/dev/null
one=$(sed -n 's/.*ended after \([0-9]*\) instructions.*/\1/p' "$T/e3")
[ -n "$se" ] && [ -n "$all" ] && [ "$se" -gt 0 ] && [ "$one" -gt "$se" ] && [ "$all" -gt "$one" ] && ok || bad "instruction totals: $se $one $all"
tail -n +2 "$T/ev.jsonl" >"$T/ev2.jsonl"
k=0; kfail=0
while [ $k -le "$all" ]; do
    # events still to dispatch after the handler interrupted at K
    if [ $k -le "$se" ]; then rest="$T/ev.jsonl"
    elif [ $k -le "$one" ]; then rest="$T/ev2.jsonl"
    else rest=/dev/null; fi
    "$G" lsl run $ex/touch_counter.lsl --events "$T/ev.jsonl" --snapshot-at $k --snapshot-out "$T/k.snap" >"$T/k1" 2>/dev/null || kfail=$((kfail+1))
    "$G" lsl run $ex/touch_counter.lsl --resume "$T/k.snap" --events "$rest" >"$T/k2" 2>/dev/null || kfail=$((kfail+1))
    cat "$T/k1" "$T/k2" >"$T/k12"
    cmp -s "$T/k12" "$T/ref_touch" || { kfail=$((kfail+1)); echo "snapshot at $k: output differs"; }
    k=$((k+1))
done
[ $kfail = 0 ] && ok || bad "$kfail failures snapshotting at every instruction (0..$all)"
# the snapshot's header: HWZS, version 2, ABI 2, and total == K
"$G" lsl run $ex/touch_counter.lsl --snapshot-at 3 --snapshot-out "$T/3.snap" >/dev/null
[ "$(od -An -tx1 -N27 "$T/3.snap" | tr -d ' \n')" = "48575a530200020000000300000000000000000300000000000000" ] && ok || bad "snapshot header: $(od -An -tx1 -N27 "$T/3.snap")"

# --snapshot-out alone: after the last event; resume then continues with new events
"$G" lsl run $ex/touch_counter.lsl --events "$T/ev1.jsonl" --snapshot-out "$T/after1.snap" >"$T/p1"
"$G" lsl run $ex/touch_counter.lsl --resume "$T/after1.snap" --events "$T/ev2.jsonl" >"$T/p2"
cat "$T/p1" "$T/p2" >"$T/p12"
same "$T/ref_touch" "$T/p12" "resume at an event boundary"
# the same through the .fpc
"$G" lsl run "$T/t.fpc" --resume "$T/after1.snap" --events "$T/ev2.jsonl" >"$T/p3"
same "$T/p2" "$T/p3" "resume through the .fpc"
# a bad snapshot: exit 1 with its byte offset, nothing printed
printf 'HWZS\003\000' >"$T/bad.snap"
expect 1 "$G" lsl run $ex/touch_counter.lsl --resume "$T/bad.snap"
has "$T/err" "bad.snap: byte 4: error: snapshot version 3 is not 2"
[ ! -s "$T/out" ] && ok || bad "output after a rejected snapshot"
head -c 30 "$T/after1.snap" >"$T/short.snap"
expect 1 "$G" lsl run $ex/touch_counter.lsl --resume "$T/short.snap"
has "$T/err" "short.snap: byte"
# a snapshot of a program with other globals
"$G" lsl run $ex/forever.lsl --snapshot-at 10 --snapshot-out "$T/forever.snap" >/dev/null
expect 1 "$G" lsl run $ex/touch_counter.lsl --resume "$T/forever.snap"
has "$T/err" "forever.snap: byte"

# ---- event files ------------------------------------------------------------------------------
printf '{"event":"touch_start","args":[1]}\n{"event":"timer","args":[]}\n' >"$T/ev_bad1"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad1"
has "$T/err" "ev_bad1:2:1: error: the script has no 'timer' handler"
[ ! -s "$T/out" ] && ok || bad "events are checked before anything runs"
printf '{"event":"touch_start","args":[1]}\n{"event":\n' >"$T/ev_bad2"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad2"
has "$T/err" "ev_bad2:2:"
printf '{"event":"touch_start","args":["x"]}\n' >"$T/ev_bad3"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad3"
has "$T/err" "touch_start argument 1 must be integer, got string"
printf '{"event":"touch_start","args":[1]}\n{"event":"touch_start","args":["x"]}\n' >"$T/ev_bad6"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad6"
has "$T/err" "ev_bad6:2:1: error: touch_start argument 1 must be integer, got string"
[ ! -s "$T/out" ] && ok || bad "argument types are checked before anything runs"
printf '{"event":"touch_start","args":[1.5]}\n' >"$T/ev_bad4"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad4"
has "$T/err" "ev_bad4:1:1: error: arguments must be integers or strings in ABI 2"
printf '{"event":"touch_start","args":[4294967296]}\n' >"$T/ev_bad5"
expect 1 "$G" lsl run $ex/touch_counter.lsl --events "$T/ev_bad5"

# ---- the cache ------------------------------------------------------------------------------
expect 0 "$G" lsl run $ex/touch_counter.lsl --cache "$T/c1"
n=$(find "$T/c1/lsl" -name '*.fpc' | wc -l); [ "$n" = 1 ] && ok || bad "cache entry count $n"
f=$(find "$T/c1/lsl" -name '*.fpc'); head -c 4 "$f" | grep -q HWZP && ok || bad "cache entry is a program"
cp "$T/out" "$T/c_first"
expect 0 "$G" lsl run $ex/touch_counter.lsl --cache "$T/c1"
same "$T/c_first" "$T/out" "cached run output"
printf 'HWZPgarbage' >"$f"   # a corrupt entry is recompiled, not trusted
expect 0 "$G" lsl run $ex/touch_counter.lsl --cache "$T/c1"
same "$T/c_first" "$T/out" "run after a corrupt cache entry"
head -c 4 "$f" | grep -q HWZP && [ "$(wc -c <"$f")" -gt 20 ] && ok || bad "corrupt entry rewritten"
rm -rf "$T/xdg"
expect 0 "$G" lsl run $ex/touch_counter.lsl --no-cache
[ ! -e "$T/xdg" ] && ok || bad "--no-cache wrote a cache"
expect 0 "$G" lsl run $ex/touch_counter.lsl
n=$(find "$T/xdg/gsvm/lsl" -name '*.fpc' 2>/dev/null | wc -l); [ "$n" = 1 ] && ok || bad "default cache under XDG_CACHE_HOME ($n)"
(unset XDG_CACHE_HOME; HOME="$T/home" "$G" lsl run $ex/touch_counter.lsl >/dev/null)
n=$(find "$T/home/.cache/gsvm/lsl" -name '*.fpc' 2>/dev/null | wc -l); [ "$n" = 1 ] && ok || bad "fallback cache ~/.cache/gsvm ($n)"

cli_test_end
