#!/bin/sh
# gsvm lsl: compile LSL to Falcon p-code, list it, run it with events,
# stop it at an instruction limit, snapshot it mid-handler and resume it.
GSVM=${GSVM:-build/release/gsvm}
ex=examples/lsl
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { echo "\$ $*" | sed "s#$tmp#/tmp#g"; "$@"; }
run "$GSVM" lsl compile $ex/touch_counter.lsl -o "$tmp/touch.fpc" || exit 1
run "$GSVM" lsl list "$tmp/touch.fpc" | sed -n '1,24p'
echo "..."
run "$GSVM" lsl verify "$tmp/touch.fpc" | sed "s#$tmp#/tmp#g" || exit 1
run "$GSVM" lsl run $ex/touch_counter.lsl --no-cache --events $ex/touches.jsonl || exit 1
echo "# a handler that never ends is stopped by the instruction limit (exit 4):"
run "$GSVM" lsl run $ex/forever.lsl --no-cache --max-instructions 20000
echo "exit $?"
echo "# stop after exactly 12 instructions (inside the first touch), then resume in a fresh VM:"
head -1 $ex/touches.jsonl >"$tmp/first.jsonl"; tail -n +2 $ex/touches.jsonl >"$tmp/rest.jsonl"
run "$GSVM" lsl run $ex/touch_counter.lsl --no-cache --events $ex/touches.jsonl \
    --snapshot-at 12 --snapshot-out "$tmp/crossing.snap" || exit 1
echo "# (the snapshot is $(wc -c <"$tmp/crossing.snap") bytes, magic $(head -c 4 "$tmp/crossing.snap"))"
run "$GSVM" lsl run "$tmp/touch.fpc" --resume "$tmp/crossing.snap" --events "$tmp/rest.jsonl" || exit 1
echo "# a diagnostic (exit 1):"
printf 'default {\n    state_entry() {\n        llSay(0, 42);\n    }\n}\n' >"$tmp/bad.lsl"
run "$GSVM" lsl run "$tmp/bad.lsl" 2>&1 | sed "s#$tmp#/tmp#g"
echo "# ABI 3, the whole language: functions, states, vectors, lists, timers and listens on"
echo "# simulation time ({\"advance_ms\":N} lines), ending in a Math Error fault (exit 3):"
run "$GSVM" lsl run $ex/abi3_tour.lsl --no-cache --events $ex/abi3_timeline.jsonl
echo "exit $?"
echo "# stop fib(20) after 700 instructions, resume from the snapshot (same calls as uninterrupted):"
run "$GSVM" lsl run $ex/abi3_fib.lsl --no-cache --snapshot-at 700 --snapshot-out "$tmp/fib.snap" || exit 1
run "$GSVM" lsl run $ex/abi3_fib.lsl --no-cache --resume "$tmp/fib.snap" || exit 1
true
