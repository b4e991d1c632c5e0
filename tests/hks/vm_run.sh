#!/bin/sh
# gsvm hks run: programs of our own (tests/hks/vm/*.lua, compiled for the
# float64 target) print exactly what stock lua5.1 prints (the .out files are
# lua5.1's output; when lua5.1 is installed they are checked against it
# too); the world example's JSON Lines match their golden file; limits end
# endless loops and memory bombs with exit 4; bad timelines are rejected
# with file:line.
G=${GSVM_BIN:?}; SRC=${GSVM_SOURCE_DIR:-$(pwd)}
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
expect() {
    want=$1; pat=$2; shift 2
    "$@" >"$tmp/o" 2>&1; rc=$?
    if [ "$rc" != "$want" ]; then bad "exit $rc, want $want: $*"; head -5 "$tmp/o"; return; fi
    if [ -n "$pat" ] && ! grep -Eq -- "$pat" "$tmp/o"; then bad "no /$pat/ in output of: $*"; head -5 "$tmp/o"; return; fi
    ok
}
for f in "$SRC"/tests/hks/vm/*.lua; do
    n=$(basename "$f" .lua)
    if command -v lua5.1 >/dev/null 2>&1; then
        (cd "$SRC/tests/hks/vm" && lua5.1 "$n.lua") >"$tmp/lua.out" 2>&1
        cmp -s "$tmp/lua.out" "${f%.lua}.out" && ok || bad "$n.out is not lua5.1's output"
    fi
    "$G" hks run --target doubles --print text "$f" >"$tmp/got" 2>&1
    cmp -s "$tmp/got" "${f%.lua}.out" && ok || { bad "$n differs from lua5.1"; diff "$tmp/got" "${f%.lua}.out" | head -5; }
    "$G" hks run --target doubles --checked --print text "$f" >"$tmp/got2" 2>&1
    cmp -s "$tmp/got" "$tmp/got2" && ok || bad "$n differs in checked mode"
done
# HavokScript programs of our own (structures): NAME.hks compiled for a
# structure target prints NAME.out, which is lua5.1's output of NAME.lua,
# the same program with tables in place of structures
for f in "$SRC"/tests/hks/vm_hks/*.hks; do
    n=${f%.hks}
    if command -v lua5.1 >/dev/null 2>&1; then
        lua5.1 "$n.lua" >"$tmp/lua.out" 2>&1
        cmp -s "$tmp/lua.out" "$n.out" && ok || bad "$n.out is not lua5.1's output of $n.lua"
    fi
    for mode in "" --checked; do
        "$G" hks run --target sekiro $mode --print text "$f" >"$tmp/got" 2>&1
        cmp -s "$tmp/got" "$n.out" && ok || { bad "$f $mode differs"; diff "$tmp/got" "$n.out" | head -5; }
    done
done
# the world example: exit 0, the golden JSON Lines
L=$SRC/examples/hks/layer
"$G" hks run "$L/keep.lua" --world "$L/keep.world.json" --events "$L/keep.timeline.jsonl" >"$tmp/w" 2>"$tmp/we"
rc=$?
[ $rc = 3 ] && ok || bad "world example exit $rc, want 3 (one handler faults by design)"
if [ "$GSVM_UPDATE_GOLDEN" = 1 ]; then cp "$tmp/w" "$SRC/tests/hks/golden/vm/keep.jsonl"; fi
cmp -s "$tmp/w" "$SRC/tests/hks/golden/vm/keep.jsonl" && ok || { bad "world example differs from its golden"; diff "$tmp/w" "$SRC/tests/hks/golden/vm/keep.jsonl" | head; }
grep -q '"cached":true' "$tmp/w" && ok || bad "the reinstall cache is not observable"
grep -q 'This function should only be called from script code' "$tmp/w" && ok || bad "no script-stack refusal"
grep -q 'argument 2: expected record of kind Alignments, got string' "$tmp/w" && ok || bad "no shape fault"
# the same layer as a SCRI payload with its Lua source (flag 1): compiled at
# the first install, reused by the timeline's {"install": true} (cached, no
# second compile); the output is the golden one but for the chunk's name
"$G" hks scri pack "$L/keep.lua" -o "$tmp/keep.scri" && ok || bad "scri pack of keep.lua"
expect 0 'flag 1 \(Lua source\)' "$G" hks scri unpack "$tmp/keep.scri" -o "$tmp/keep.body"
"$G" hks run "$tmp/keep.scri" --world "$L/keep.world.json" --events "$L/keep.timeline.jsonl" >"$tmp/ws" 2>&1
rc=$?
[ $rc = 3 ] && ok || bad "SCRI world example exit $rc, want 3"
sed -e 's/keep\.scri:/keep.lua:/' -e 's/"script_id":[0-9]*//' "$tmp/ws" >"$tmp/ws.n"
sed -e 's/"script_id":[0-9]*//' "$SRC/tests/hks/golden/vm/keep.jsonl" >"$tmp/w.n"
cmp -s "$tmp/ws.n" "$tmp/w.n" && ok || { bad "SCRI flag-1 layer differs from the source layer"; diff "$tmp/ws.n" "$tmp/w.n" | head; }
[ "$(grep -c '"reinstall":"keep".*"cached":true' "$tmp/ws")" = 1 ] && ok || bad "SCRI layer: no cached reinstall"
# bad timelines and worlds
printf '{"advance_ms": 10}\n{"bogus": 1}\n' >"$tmp/t1"
expect 1 't1:2:1: error: unknown timeline entry' "$G" hks run "$L/keep.lua" --world "$L/keep.world.json" --events "$tmp/t1"
printf '{"advance_ms": 10}\nnot json\n' >"$tmp/t2"
expect 1 't2:2:' "$G" hks run "$L/keep.lua" --world "$L/keep.world.json" --events "$tmp/t2"
printf '{"records": 5}' >"$tmp/w1.json"
expect 1 'records' "$G" hks run "$L/keep.lua" --world "$tmp/w1.json"
expect 2 'needs --world' "$G" hks run "$L/keep.lua" --events "$tmp/t1"
# limits: an endless loop, a memory bomb, a string bomb, deep recursion
printf 'while true do end\n' >"$tmp/loop.lua"
expect 4 '"limit":"instruction limit reached"' "$G" hks run --max-instructions 100000 "$tmp/loop.lua"
expect 4 'instruction limit' "$G" hks run --budget 1000 --max-instructions 100000 "$tmp/loop.lua"
printf 'local t = {}\nwhile true do t[#t + 1] = {} end\n' >"$tmp/bomb.lua"
expect 4 'memory limit of 8388608 bytes' "$G" hks run --max-memory 8388608 "$tmp/bomb.lua"
printf 'local s = "x"\nwhile true do s = s .. s end\n' >"$tmp/sbomb.lua"
expect 3 'string length exceeds the limit' "$G" hks run "$tmp/sbomb.lua"
printf 'local function f(n) return 1 + f(n + 1) end\nf(1)\n' >"$tmp/deep.lua"
expect 3 'stack overflow' "$G" hks run --max-depth 5000 "$tmp/deep.lua"
printf 'local t = setmetatable({}, {__index = function(t, k) return t[k] end})\nprint(t.x)\n' >"$tmp/c.lua"
expect 3 'C stack overflow' "$G" hks run "$tmp/c.lua"
printf 'print(("x"):rep(100):find(string.rep("x?", 60) .. string.rep("x", 60) .. "y"))\n' >"$tmp/re.lua"
expect 4 'instruction limit' "$G" hks run --max-instructions 2000000 "$tmp/re.lua"
# a world thread that never sleeps ends at the limit
printf 'local s = {}\nfunction s._Spin_SC_Script_1(self, id) while true do end end\n_G.loadedresource = s\n' >"$tmp/spin.lua"
printf '{"objects": [{"name": "Spin.SC", "prefab": "Spin", "hash": "1"}]}' >"$tmp/spin.json"
expect 4 '"limit":"instruction limit reached","thread"' "$G" hks run --max-instructions 50000 "$tmp/spin.lua" --world "$tmp/spin.json"
# a world run that ends finalizes what the layer left (__gc), as a plain run does
printf 'local p = newproxy(true)\ngetmetatable(p).__gc = function() print("finalized") end\nkeep = p\nlocal s = {}\nfunction s._Idle_SC_Script_1(self, id) print("started") end\n_G.loadedresource = s\n' >"$tmp/gcw.lua"
printf '{"objects": [{"name": "Idle.SC", "prefab": "Idle", "hash": "1"}]}' >"$tmp/gcw.json"
printf '{"advance_ms": 10}\n' >"$tmp/gcw.jsonl"
"$G" hks run --print text "$tmp/gcw.lua" --world "$tmp/gcw.json" --events "$tmp/gcw.jsonl" >"$tmp/gcw.out" 2>&1
rc=$?
[ $rc = 0 ] && ok || bad "gc world exit $rc, want 0"
[ "$(tail -n 1 "$tmp/gcw.out")" = finalized ] && ok || { bad "a world run's end does not run __gc"; cat "$tmp/gcw.out"; }
echo "hks run: $pass passed, $fail failed"
[ $fail = 0 ]
