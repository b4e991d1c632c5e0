#!/bin/sh
# gsvm lsl with ABI 3 through the command line: ABI choice (--abi), typed
# event arguments, {"advance_ms":N}, faults and limits, program files, and
# --snapshot-at K / --resume for many K giving the uninterrupted output.
. tests/cli_test.sh
magic() { head -c 4 "$1"; }
ex=examples/lsl

# ---- the ABI: 2 when the script fits the slice, else 3; --abi forces ----------------
expect 0 "$G" lsl compile $ex/touch_counter.lsl -o "$T/t2.fpc"
[ "$(magic "$T/t2.fpc")" = HWZP ] && ok || bad "touch_counter should compile to ABI 2"
expect 0 "$G" lsl compile $ex/abi3_tour.lsl -o "$T/tour.fpc"
[ "$(magic "$T/tour.fpc")" = HWZ3 ] && ok || bad "the tour should compile to ABI 3"
expect 0 "$G" lsl compile --abi 3 $ex/touch_counter.lsl -o "$T/t3.fpc"
[ "$(magic "$T/t3.fpc")" = HWZ3 ] && ok || bad "--abi 3 should force ABI 3"
expect 1 "$G" lsl compile --abi 2 $ex/abi3_tour.lsl -o "$T/x.fpc"
has "$T/err" "abi3_tour.lsl:"
expect 2 "$G" lsl compile --abi 4 $ex/touch_counter.lsl -o "$T/x.fpc"
# both ABIs of the touch counter print the same
printf '{"event":"touch_start","args":[1]}\n{"event":"touch_start","args":[2]}\n' >"$T/touch.jsonl"
expect 0 "$G" lsl run "$T/t2.fpc" --events "$T/touch.jsonl"; cp "$T/out" "$T/o2"
expect 0 "$G" lsl run "$T/t3.fpc" --events "$T/touch.jsonl"; cp "$T/out" "$T/o3"
same "$T/o2" "$T/o3" "ABI 2 and ABI 3 runs of the touch counter differ"
expect 0 "$G" lsl run --abi 3 --no-cache $ex/touch_counter.lsl --events "$T/touch.jsonl"
same "$T/o2" "$T/out" "run --abi 3 of the touch counter"
# a program file runs like its source; list and verify take both ABIs
expect 3 "$G" lsl run "$T/tour.fpc" --events $ex/abi3_timeline.jsonl; cp "$T/out" "$T/tour_fpc"
expect 3 "$G" lsl run $ex/abi3_tour.lsl --no-cache --events $ex/abi3_timeline.jsonl
same "$T/tour_fpc" "$T/out" "tour from .fpc vs source"
expect 0 "$G" lsl list "$T/tour.fpc"; has "$T/out" "abi_version: 3"
expect 0 "$G" lsl verify "$T/tour.fpc"; has "$T/out" "verified"
# a corrupt ABI-3 program file is refused with its offset
head -c 100 "$T/tour.fpc" >"$T/cut.fpc"
expect 1 "$G" lsl run "$T/cut.fpc"; has "$T/err" "cut.fpc"

# ---- typed event arguments and values in JSON ------------------------------------------
cat >"$T/types.lsl" <<'EOF'
default {
    http_response(key id, integer status, list meta, string body) {
        llSay(status, body);
        llOwnerSay(llList2CSV(meta) + " " + (string)id);
        llRegionSayTo(id, 0, body);
        llSetPos(<1, 2.5, -3>);
        llSetRot(<0, 0, 0, 1>);
        llSetPrimitiveParams([PRIM_COLOR, ALL_SIDES, <1, 0, 0>, 0.5]);
    }
    land_collision(vector pos) { llOwnerSay((string)pos); }
    at_rot_target(integer h, rotation a, rotation b) { llOwnerSay((string)(a * b)); }
}
EOF
cat >"$T/types.jsonl" <<'EOF'
{"event":"http_response","args":["00000000-0000-0000-0000-000000000009",200,[1,2.5,"x",{"vector":[1,2,3]}],"ok"]}
{"advance_ms":1000}
{"event":"land_collision","args":[{"vector":[1,2,3]}]}
{"event":"at_rot_target","args":[1,{"rotation":[0,0,0,1]},{"rotation":[0,0,1,0]}]}
EOF
expect 0 "$G" lsl run "$T/types.lsl" --no-cache --events "$T/types.jsonl"
cat >"$T/want" <<'EOF'
{"host":"llSay","args":[200,"ok"]}
{"host":"llOwnerSay","args":["1, 2.500000, x, <1.000000, 2.000000, 3.000000> 00000000-0000-0000-0000-000000000009"]}
{"host":"llRegionSayTo","args":["00000000-0000-0000-0000-000000000009",0,"ok"]}
{"host":"llSetPos","args":[{"vector":[1.0,2.5,-3.0]}]}
{"host":"llSetRot","args":[{"rotation":[0.0,0.0,0.0,1.0]}]}
{"host":"llSetPrimitiveParams","args":[[18,-1,{"vector":[1.0,0.0,0.0]},0.5]]}
{"host":"llOwnerSay","args":["<1.00000, 2.00000, 3.00000>"]}
{"host":"llOwnerSay","args":["<0.00000, 0.00000, 1.00000, 0.00000>"]}
EOF
same "$T/want" "$T/out" "typed events and JSON values"
# bad event lines: an unknown event, a wrong type, a wrong count, a bad advance
for line in '{"event":"no_such","args":[]}' '{"event":"land_collision","args":[1]}' \
            '{"event":"land_collision","args":[]}' '{"advance_ms":-5}' '{"event":"touch_start","args":[1]}'; do
    printf '%s\n' "$line" >"$T/bad.jsonl"
    expect 1 "$G" lsl run "$T/types.lsl" --no-cache --events "$T/bad.jsonl"
    has "$T/err" "bad.jsonl:1:1: error:"
done

# ---- time: timers and sleeps on {"advance_ms":N} ---------------------------------------
cat >"$T/timer.lsl" <<'EOF'
default {
    state_entry() { llSetTimerEvent(0.25); llOwnerSay("start"); }
    timer() { llOwnerSay("t " + (string)llGetTime()); llSleep(0.3); }
    touch_start(integer n) { llOwnerSay("touch at " + (string)llGetTime()); }
}
EOF
printf '{"advance_ms":1000}\n{"event":"touch_start","args":[1]}\n{"advance_ms":100}\n{"advance_ms":500}\n' >"$T/timer.jsonl"
expect 0 "$G" lsl run "$T/timer.lsl" --no-cache --events "$T/timer.jsonl"
cat >"$T/want" <<'EOF'
{"host":"llOwnerSay","args":["start"]}
{"host":"llOwnerSay","args":["t 0.250000"]}
{"host":"llOwnerSay","args":["t 0.550000"]}
{"host":"llOwnerSay","args":["t 0.850000"]}
{"host":"llOwnerSay","args":["t 1.150000"]}
{"host":"llOwnerSay","args":["touch at 1.450000"]}
{"host":"llOwnerSay","args":["t 1.450000"]}
{"asleep":"the run ended while the script sleeps","now_ms":1600,"wake_ms":1750}
EOF
same "$T/want" "$T/out" "timers and sleeps on simulation time (the run ends asleep: said)"

# ---- faults and the instruction limit ----------------------------------------------------
printf 'default { state_entry() { float z; llOwnerSay((string)(1 / z)); } }\n' >"$T/f.lsl"
expect 3 "$G" lsl run "$T/f.lsl" --no-cache; has "$T/out" '{"fault":"Math Error","ip":'
printf 'default { state_entry() { list l; while (TRUE) l += l + [1]; } }\n' >"$T/m.lsl"
expect 3 "$G" lsl run "$T/m.lsl" --no-cache; has "$T/out" '"Stack-Heap Collision"'
printf 'default { state_entry() { integer i; while (TRUE) i++; } }\n' >"$T/inf.lsl"
expect 4 "$G" lsl run "$T/inf.lsl" --no-cache --max-instructions 5000
has "$T/out" '{"stopped":"instruction limit","executed":5000}'

# ---- the compiled-program cache serves ABI 3 too (one .fp3 entry, same output) --------------
expect 3 "$G" lsl run $ex/abi3_tour.lsl --events $ex/abi3_timeline.jsonl; cp "$T/out" "$T/c1"
n3=$(find "$T/xdg/gsvm/lsl" -name '*.fp3' 2>/dev/null | wc -l)
[ "$n3" -eq 1 ] && ok || bad "an ABI-3 run should leave one .fp3 cache entry, found $n3"
expect 3 "$G" lsl run $ex/abi3_tour.lsl --events $ex/abi3_timeline.jsonl
same "$T/c1" "$T/out" "the cached ABI-3 program runs differently"
expect 3 "$G" lsl run $ex/abi3_tour.lsl --no-cache --events $ex/abi3_timeline.jsonl
same "$T/c1" "$T/out" "the cached and the freshly compiled ABI-3 program differ"
n3=$(find "$T/xdg/gsvm/lsl" -name '*.fp3' | wc -l)
[ "$n3" -eq 1 ] && ok || bad "the second run should reuse the entry, found $n3"

# ---- snapshots: stop at K, resume, same output as uninterrupted ----------------------------
expect 0 "$G" lsl run bench/lsl/fib.lsl --no-cache --abi 3 >/dev/null
cat >"$T/snap.lsl" <<'EOF'
integer depth(integer n) { if (n == 0) return 0; return 1 + depth(n - 1); }
list acc;
default {
    state_entry() {
        integer i;
        for (i = 0; i < 12; i++) { acc += [depth(i), <i, 0, 0>]; if (i % 4 == 0) llOwnerSay((string)i + " " + llList2CSV(acc)); }
        llListen(4, "", "", "");
        state second;
    }
    state_exit() { llOwnerSay("exit " + (string)llGetListLength(acc)); }
}
state second { state_entry() { llOwnerSay("second " + (string)llGetUsedMemory()); } }
EOF
expect 0 "$G" lsl run "$T/snap.lsl" --no-cache; cp "$T/out" "$T/ref"
total=$("$G" lsl run "$T/snap.lsl" --no-cache --snapshot-out "$T/end.snap" >/dev/null 2>&1; echo)
k=0; mism=0
while [ $k -le 700 ]; do
    "$G" lsl run "$T/snap.lsl" --no-cache --snapshot-at $k --snapshot-out "$T/s.snap" >"$T/a" 2>/dev/null
    "$G" lsl run "$T/snap.lsl" --no-cache --resume "$T/s.snap" >"$T/b" 2>/dev/null
    cat "$T/a" "$T/b" >"$T/ab"
    cmp -s "$T/ab" "$T/ref" || { mism=$((mism+1)); echo "K=$k differs"; }
    k=$((k + 7))
done
[ $mism = 0 ] && ok || bad "$mism snapshot points gave different output"
# the snapshot header: HWZS, version 4, ABI 3
"$G" lsl run "$T/snap.lsl" --no-cache --snapshot-at 50 --snapshot-out "$T/s.snap" >/dev/null
[ "$(head -c 4 "$T/s.snap")" = HWZS ] && ok || bad "snapshot magic"
[ "$(od -An -tu2 -j4 -N2 "$T/s.snap" | tr -d ' ')" = 4 ] && ok || bad "snapshot version 4"
# another program's snapshot is refused; so is an ABI-2 snapshot; and a truncated one
expect 1 "$G" lsl run "$T/timer.lsl" --no-cache --resume "$T/s.snap"; has "$T/err" "another program"
expect 0 "$G" lsl run $ex/touch_counter.lsl --no-cache --snapshot-out "$T/v2.snap"
expect 1 "$G" lsl run "$T/snap.lsl" --no-cache --resume "$T/v2.snap"
head -c 60 "$T/s.snap" >"$T/cut.snap"
expect 1 "$G" lsl run "$T/snap.lsl" --no-cache --resume "$T/cut.snap"; has "$T/err" "cut.snap"

cli_test_end
