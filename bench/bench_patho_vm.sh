#!/bin/sh
# The Pathologic VM's speed on a loop-heavy script (bench/patho/loop.bin,
# hand-assembled by tests/patho/vm/examples.h): sum += (i * 3) % 7 for
# i < 3,000,000, i.e. 9 VM instructions per iteration, 27,000,006 in all.
# Prints instructions per second (median of 5 runs) and the time ratio
# against lua5.4 running the same loop.  Times are CPU seconds (user + sys,
# via python3's resource module) so that other work on the machine does not
# skew them; wall-clock time is the fallback.
GSVM=${GSVM:-build/release/gsvm}
BIN=bench/patho/loop.bin   # calls Print(1 arg), declared in the test examples' natives
INSNS=27000006
RUNS=5
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# cpu CMD...: CPU seconds the command used.
cpu() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)' "$@"
    else
        s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l
    fi
}

out=$("$GSVM" patho run "$BIN" --frame-instructions 100000000 --natives tests/patho/vm/data/examples.natives.json) || { echo "patho vm: run failed"; exit 1; }
want='{"host":"Print","args":[9000000]}'
[ "$out" = "$want" ] || { echo "patho vm: unexpected output $out"; exit 1; }

t_vm=$(for i in $(seq $RUNS); do cpu "$GSVM" patho run "$BIN" --frame-instructions 100000000 --natives tests/patho/vm/data/examples.natives.json; done | median)
printf 'patho vm: %.1f M instructions/s (%s s for %d instructions, median of %d)\n' \
    "$(echo "$INSNS / $t_vm / 1000000" | bc -l)" "$t_vm" "$INSNS" "$RUNS"

if command -v lua5.4 >/dev/null 2>&1; then
    lua=$(mktemp); trap 'rm -f "$lua"' EXIT
    cat >"$lua" <<'LUA'
local sum = 0
for i = 0, 3000000 - 1 do sum = sum + (i * 3) % 7 end
print(sum)
LUA
    [ "$(lua5.4 "$lua")" = 9000000 ] || { echo "lua5.4 disagrees"; exit 1; }
    t_lua=$(for i in $(seq $RUNS); do cpu lua5.4 "$lua"; done | median)
    printf 'patho vm / lua5.4 on the same loop: %.2fx the time (lua5.4 %s s)\n' \
        "$(echo "$t_vm / $t_lua" | bc -l)" "$t_lua"
fi
