#!/bin/sh
# Crossing between two `gsvm lsl region` processes on loopback: the walker
# crosses from A to B in the middle of a handler; A's and B's outputs
# together equal a single-region run of the same timeline.  Then a failure
# is injected at every step of the handoff, on either side: the walker ends
# up running in exactly one region, and its ticks, counted over both
# outputs, are exactly the single run's (nothing lost, nothing twice).
# A refusal (B's --max-scripts) leaves it running in A.
G=${GSVM_BIN:?GSVM_BIN not set}
D=tests/lsl/region/cross
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
base=$((20000 + $$ % 20000))
n=0
OPTS="--no-cache --throttle-above 0 --slice-guard-us 0 --frame-guard-us 0"
pair() { # pair NAME A_TIMELINE B_TIMELINE A_OPTS B_OPTS: runs B (accepting) and A
    n=$((n + 1)); port=$((base + n))
    sed "s/PORT/$port/" "$2" >"$T/$1.a.jsonl"
    sed "s/PORT/$port/" "$3" >"$T/$1.b.jsonl"
    "$G" lsl region $D/empty.json $OPTS $5 --events "$T/$1.b.jsonl" >"$T/$1.b" 2>"$T/$1.b.err" &
    bpid=$!
    "$G" lsl region $D/single.json $OPTS $4 --events "$T/$1.a.jsonl" >"$T/$1.a" 2>"$T/$1.a.err"
    arc=$?
    wait $bpid; brc=$?
    if [ $arc != 0 ] || [ $brc != 0 ]; then bad "$1: exit A $arc B $brc ($(cat "$T/$1.a.err" "$T/$1.b.err"))"; fi
    grep -v '"crossing"' "$T/$1.a" >"$T/$1.a.trace"
    grep -v '"crossing"' "$T/$1.b" >"$T/$1.b.trace"
}

# ---- a clean crossing: the combined trace is the single-region trace ----------
printf '{"advance_ms": 3000}\n{"touch": {"object": "walker", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c", "name": "Alice"}}\n{"advance_ms": 3000}\n' >"$T/single.jsonl"
"$G" lsl region $D/single.json $OPTS --events "$T/single.jsonl" >"$T/single" || bad "the single run failed"
printf '{"advance_ms": 3000}\n{"cross": {"object": "walker", "port": PORT}}\n{"advance_ms": 3000}\n' >"$T/a.jsonl"
printf '{"accept": {"port": PORT}}\n{"touch": {"object": "walker", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c", "name": "Alice"}}\n{"advance_ms": 3000}\n' >"$T/b.jsonl"
pair clean "$T/a.jsonl" "$T/b.jsonl" "" ""
cat "$T/clean.a.trace" "$T/clean.b.trace" >"$T/combined"
if cmp -s "$T/single" "$T/combined"; then ok; else bad "A+B differ from the single run"; diff "$T/single" "$T/combined" | head; fi
grep -q '"crossing":"crossed"' "$T/clean.a" && ok || bad "A should report crossed: $(cat "$T/clean.a" | grep crossing)"
grep -q '"crossing":"arrived"' "$T/clean.b" && ok || bad "B should report arrived"
[ -s "$T/clean.a.trace" ] && [ -s "$T/clean.b.trace" ] && ok || bad "both regions should have printed ticks"
# the walker was in the middle of a handler: B's first tick is one A started
grep -q 'tick 6 ' "$T/clean.b.trace" && ok || bad "B should finish the tick A had started"

# ---- a failure at every step, on each side ----------------------------------------
printf '{"advance_ms": 6000}\n' >"$T/plain.jsonl"
"$G" lsl region $D/single.json $OPTS --events "$T/plain.jsonl" | grep -o 'tick [0-9]*' >"$T/want"
printf '{"accept": {"port": PORT}}\n{"advance_ms": 3000}\n' >"$T/b2.jsonl"
for side in A B; do
    for step in 1 2 3 4 5 6 7; do
        if [ $side = A ]; then pair "f$side$step" "$T/a.jsonl" "$T/b2.jsonl" "--cross-fault $step" ""
        else pair "f$side$step" "$T/a.jsonl" "$T/b2.jsonl" "" "--cross-fault $step"; fi
        cat "$T/f$side$step.a.trace" "$T/f$side$step.b.trace" | grep -o 'tick [0-9]*' | sort -t' ' -k2 -n >"$T/got"
        if cmp -s "$T/want" "$T/got"; then ok; else
            bad "fault at step $step on $side: ticks differ ($(grep crossing "$T/f$side$step.a" "$T/f$side$step.b" | tr '\n' ' '))"
        fi
        a=$(grep -c walker "$T/f$side$step.a.trace"); b=$(grep -c walker "$T/f$side$step.b.trace")
        # the object runs on in exactly one region after 3 s
        if grep -q '"crossing":"crossed"' "$T/f$side$step.a"; then
            grep -q 'tick 12 ' "$T/f$side$step.b.trace" && ! grep -q 'tick 12 ' "$T/f$side$step.a.trace" && ok ||
                bad "step $step on $side: crossed but B did not go on ($a in A, $b in B)"
        else
            grep -q 'tick 12 ' "$T/f$side$step.a.trace" && [ "$b" = 0 ] && ok ||
                bad "step $step on $side: not crossed but A did not go on alone ($a in A, $b in B)"
        fi
    done
done

# ---- a refusal leaves the object running in A ---------------------------------------
pair refused "$T/a.jsonl" "$T/b2.jsonl" "" "--max-scripts 0"
pair refused2 "$T/a.jsonl" "$T/b2.jsonl" "" "" >/dev/null
printf '{"accept": {"port": PORT}}\n{"advance_ms": 3000}\n' >"$T/b3.jsonl"
n=$((n + 1)); port=$((base + n))
sed "s/PORT/$port/" "$T/a.jsonl" >"$T/r.a.jsonl"; sed "s/PORT/$port/" "$T/b3.jsonl" >"$T/r.b.jsonl"
printf '{"objects": [{"id": "stone", "owner": "a2e76fcd-9360-4f6d-a924-000000000002", "scripts": ["walker.lsl"]}]}\n' >"$T/full.json"
cp $D/walker.lsl "$T/"
"$G" lsl region "$T/full.json" $OPTS --max-scripts 1 --events "$T/r.b.jsonl" >"$T/r.b" 2>&1 &
bpid=$!
"$G" lsl region $D/single.json $OPTS --events "$T/r.a.jsonl" >"$T/r.a" 2>&1
wait $bpid
grep -q '"crossing":"refused","object":"walker","detail":"over this region'"'"'s script limit"' "$T/r.a" && ok ||
    bad "a full region should refuse: $(grep crossing "$T/r.a")"
grep 'walker' "$T/r.a" | grep -q 'tick 12 ' && ok || bad "after a refusal the walker runs on in A"
grep -q '"object":"walker"' "$T/r.b" && bad "the refusing region ran the walker" || ok

# ---- an ABI-2 object crosses with a touch still queued ----------------------------
"$G" lsl compile $D/counter.lsl -o "$T/counter.fpc" 2>"$T/abi" && grep -q 'ABI 2' "$T/abi" && ok ||
    bad "counter.lsl should compile to ABI 2: $(cat "$T/abi")"
TOUCH='{"touch": {"object": "counter", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c"}}'
printf '%s\n{"advance_ms": 100}\n%s\n%s\n{"advance_ms": 100}\n' "$TOUCH" "$TOUCH" "$TOUCH" >"$T/c.single.jsonl"
"$G" lsl region $D/counter.json $OPTS --events "$T/c.single.jsonl" >"$T/c.single" || bad "the ABI-2 single run failed"
n=$((n + 1)); port=$((base + n))
printf '%s\n{"advance_ms": 100}\n%s\n{"cross": {"object": "counter", "port": %d}}\n{"advance_ms": 100}\n' \
    "$TOUCH" "$TOUCH" $port >"$T/c.a.jsonl"
printf '{"accept": {"port": %d}}\n%s\n{"advance_ms": 100}\n' $port "$TOUCH" >"$T/c.b.jsonl"
"$G" lsl region $D/empty.json $OPTS --events "$T/c.b.jsonl" >"$T/c.b" 2>&1 &
bpid=$!
"$G" lsl region $D/counter.json $OPTS --events "$T/c.a.jsonl" >"$T/c.a" 2>&1
wait $bpid
grep -q '"crossing":"crossed"' "$T/c.a" && ok || bad "the ABI-2 object should cross: $(cat "$T/c.a")"
grep -hv '"crossing"' "$T/c.a" "$T/c.b" >"$T/c.combined"
if cmp -s "$T/c.single" "$T/c.combined"; then ok; else bad "ABI 2: A+B differ from the single run"; diff "$T/c.single" "$T/c.combined" | head; fi
grep -q '"touched 2"' "$T/c.b" && ok || bad "the touch queued in A should run in B: $(cat "$T/c.b")"

# ---- what the region keeps beside the VM crosses too --------------------------------
# across WORLD OPTS SINGLE A B: B accepts, A runs; A's and B's traces (with
# timestamps) together must equal the single run's.  Exit 4 is a region
# whose script still has work when the drain ends (the pulser never stops).
across() {
    n=$((n + 1)); port=$((base + n))
    "$G" lsl region $D/$1.json $2 --timestamps --events "$3" >"$T/$1.single"; src=$?
    sed "s/PORT/$port/" "$4" >"$T/$1.a.jsonl"; sed "s/PORT/$port/" "$5" >"$T/$1.b.jsonl"
    "$G" lsl region $D/empty.json $2 --timestamps --events "$T/$1.b.jsonl" >"$T/$1.b" 2>"$T/$1.b.err" &
    bpid=$!
    "$G" lsl region $D/$1.json $2 --timestamps --events "$T/$1.a.jsonl" >"$T/$1.a" 2>"$T/$1.a.err"
    wait $bpid; brc=$?
    grep -q '"crossing":"crossed"' "$T/$1.a" && ok || bad "$1 should cross: $(cat "$T/$1.a" "$T/$1.a.err")"
    [ $brc = $src ] && ok || bad "$1: B exits $brc, the single run $src ($(cat "$T/$1.b.err"))"
    grep -hv '"crossing"' "$T/$1.a" "$T/$1.b" >"$T/$1.combined"
    if cmp -s "$T/$1.single" "$T/$1.combined"; then ok; else bad "$1: A+B differ from the single run"; diff "$T/$1.single" "$T/$1.combined" | head; fi
}
# a touch being handled and one queued when the object crosses: llDetected*
# answer in B for Alice and Bob (who touched in A)
ALICE='{"touch": {"object": "greeter", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c", "name": "Alice"}}'
BOB='{"touch": {"object": "greeter", "avatar": "7c1e2a44-0000-4000-8000-0000000000b0", "name": "Bob", "pos": [1, 2, 3]}}'
printf '%s\n%s\n{"advance_ms": 100}\n{"advance_ms": 1000}\n' "$ALICE" "$BOB" >"$T/g.single.jsonl"
printf '%s\n%s\n{"advance_ms": 100}\n{"cross": {"object": "greeter", "port": PORT}}\n{"advance_ms": 1000}\n' "$ALICE" "$BOB" >"$T/g.a.jsonl"
printf '{"accept": {"port": PORT}}\n{"advance_ms": 1000}\n' >"$T/g.b.jsonl"
across greeter "$OPTS" "$T/g.single.jsonl" "$T/g.a.jsonl" "$T/g.b.jsonl"
grep -q 'touch 1 by Alice 7c1e2a44-0000-4000-8000-00000000a11c at <30' "$T/greeter.b" && ok ||
    bad "the touch being handled at the crossing should name Alice in B: $(cat "$T/greeter.b")"
grep -q 'touch 2 by Bob 7c1e2a44-0000-4000-8000-0000000000b0 at <1.00000, 2.00000, 3.00000>' "$T/greeter.b" && ok ||
    bad "the touch queued at the crossing should name Bob in B: $(cat "$T/greeter.b")"
# a throttled script stays throttled with its moving average: B neither
# announces it again nor lets it run at full speed
TOPTS="--no-cache --slice-guard-us 0 --frame-guard-us 0"
printf '{"advance_ms": 1000}\n{"advance_ms": 1000}\n' >"$T/p.single.jsonl"
printf '{"advance_ms": 1000}\n{"cross": {"object": "pulser", "port": PORT}}\n{"advance_ms": 1000}\n' >"$T/p.a.jsonl"
printf '{"accept": {"port": PORT}}\n{"advance_ms": 1000}\n' >"$T/p.b.jsonl"
across pulser "$TOPTS" "$T/p.single.jsonl" "$T/p.a.jsonl" "$T/p.b.jsonl"
grep -q '"throttled"' "$T/pulser.b" && grep -q '"throttled"' "$T/pulser.a" && ok ||
    bad "the pulser should be throttled in A and go on so in B"

# an ABI-2 program sent to B (which lacked it) keeps its line table: a fault
# in B names line:column as in the single run
GT='{"touch": {"object": "grower", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c"}}'
printf '{"advance_ms": 100}\n%s\n{"advance_ms": 100}\n' "$GT" >"$T/gr.single.jsonl"
printf '{"advance_ms": 100}\n{"cross": {"object": "grower", "port": PORT}}\n{"advance_ms": 100}\n' >"$T/gr.a.jsonl"
printf '{"accept": {"port": PORT}}\n%s\n{"advance_ms": 100}\n' "$GT" >"$T/gr.b.jsonl"
across grower "$OPTS" "$T/gr.single.jsonl" "$T/gr.a.jsonl" "$T/gr.b.jsonl"
grep -q '"fault":"string too long.*"line":10,"col":19' "$T/grower.b" && ok || bad "B's ABI-2 fault should carry 10:19: $(cat "$T/grower.b")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
