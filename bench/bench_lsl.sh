#!/bin/sh
# Falcon (gsvm lsl) benchmarks, run by `make bench` with $GSVM = optimized build.
#  1. slicing: the same program with --budget 1024 vs. no slicing (target: at most 10% slower);
#  2. snapshot + restore after every instruction of a ~10,000-instruction handler;
#  3. side by side with Debian's lua5.4: an integer loop and a string-building loop;
#  4. ABI 3 compute benchmarks beside lua5.4 and luajit -joff (LuaJIT's interpreter).
# Times are CPU seconds (user+sys, so other load on the machine matters less),
# the median of RUNS runs; the figures are ratios.
GSVM=${GSVM:-build/release/gsvm}
RUNS=${RUNS:-5}
dir=$(dirname "$0")/lsl
bin=$(dirname "$GSVM")
export XDG_CACHE_HOME="${TMPDIR:-/tmp}/gsvm-bench-cache.$$"
# A run that fails leaves this file behind: the script then exits 1 at the end.
FAILED="${TMPDIR:-/tmp}/gsvm-bench-failed.$$"
export FAILED
trap 'rm -rf "$XDG_CACHE_HOME" "$FAILED"' EXIT
failed() { echo "bench_lsl: $*" >&2; : >"$FAILED"; }

cpu() { # cpu CMD...: CPU seconds of one run
    bash -c 'TIMEFORMAT=%3U+%3S; { time "$@" >/dev/null 2>&1; } 2>&1 ||
             { echo "bench_lsl: run failed: $*" >&2; : >"$FAILED"; }' _ "$@" |
        awk -F+ '{printf "%.3f\n", $1 + $2}'
}
median() { # median CMD...: median CPU seconds of RUNS runs
    i=0
    while [ $i -lt "$RUNS" ]; do cpu "$@"; i=$((i + 1)); done |
        sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

for prog in int_loop str_loop; do
    # warm the cache so both sides measure the run, not the compile
    "$GSVM" lsl run "$dir/$prog.lsl" >/dev/null || failed "run failed: $dir/$prog.lsl"
done

echo "-- slicing cost (CPU s, median of $RUNS, runs interleaved)"
printf '%-12s %10s %10s %8s\n' program "budget=1024" unsliced ratio
tmp=$(mktemp -d)
for prog in int_loop str_loop; do
    : >"$tmp/s"; : >"$tmp/u"
    i=0
    while [ $i -lt "$RUNS" ]; do
        cpu "$GSVM" lsl run "$dir/$prog.lsl" --budget 1024 >>"$tmp/s"
        cpu "$GSVM" lsl run "$dir/$prog.lsl" --budget 9223372036854775807 >>"$tmp/u"
        i=$((i + 1))
    done
    s=$(sort -n "$tmp/s" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    u=$(sort -n "$tmp/u" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    printf '%-12s %10s %10s %8s\n' "$prog" "$s" "$u" "$(ratio "$s" "$u")"
done
rm -rf "$tmp"

echo "-- in one process: slicing cost and snapshot + restore after every instruction"
if [ -x "$bin/lsl_bench_snapshot" ]; then
    "$bin/lsl_bench_snapshot" 526 || failed "lsl_bench_snapshot failed"
else
    failed "lsl_bench_snapshot not found next to $GSVM (build the whole tree)"
fi

echo "-- side by side with lua5.4 (CPU s, median of $RUNS)"
if command -v lua5.4 >/dev/null 2>&1; then
    printf '%-12s %10s %10s %14s\n' program falcon lua5.4 "falcon/lua"
    for prog in int_loop str_loop; do
        f=$(median "$GSVM" lsl run "$dir/$prog.lsl")
        l=$(median lua5.4 "$dir/$prog.lua")
        printf '%-12s %10s %10s %14s\n' "$prog" "$f" "$l" "$(ratio "$f" "$l")"
    done
else
    echo "lua5.4 not installed: skipped"
fi

# pair CMD1 -- CMD2: RUNS rounds, each running CMD1 then CMD2, so that a
# change in the machine's load hits both alike; prints the two medians
pair() {
    a=""; b=""
    while [ "$1" != "--" ]; do a="$a $1"; shift; done
    shift
    tmp=$(mktemp -d)
    i=0
    while [ $i -lt "$RUNS" ]; do
        cpu $a >>"$tmp/a"
        cpu "$@" >>"$tmp/b"
        i=$((i + 1))
    done
    echo "$(sort -n "$tmp/a" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')" \
         "$(sort -n "$tmp/b" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
    rm -rf "$tmp"
}

# trio CMD1 -- CMD2 -- CMD3: RUNS rounds, each running the three in turn (a
# change in the machine's load hits all alike); prints the three medians
trio() {
    tmp=$(mktemp -d)
    i=0
    while [ $i -lt "$RUNS" ]; do
        k=1; cmd=""
        for w in "$@" --; do
            if [ "$w" = "--" ]; then
                cpu $cmd >>"$tmp/$k"
                k=$((k + 1)); cmd=""
            else
                cmd="$cmd $w"
            fi
        done
        i=$((i + 1))
    done
    for k in 1 2 3; do
        [ -f "$tmp/$k" ] && sort -n "$tmp/$k" | awk '{a[NR] = $1} END {printf "%s ", a[int((NR + 1) / 2)]}'
    done
    echo
    rm -rf "$tmp"
}

echo "-- ABI 3 compute benchmarks beside lua5.4 and luajit -joff (CPU s, median of $RUNS interleaved rounds;"
echo "   targets: falcon/lua <= 0.60 and falcon/luajit <= 0.80)"
if command -v lua5.4 >/dev/null 2>&1 && command -v luajit >/dev/null 2>&1; then
    printf '%-11s %7s %7s %7s %10s %13s  %s\n' program falcon lua5.4 luajit "falcon/lua" "falcon/luajit" "same result, targets"
    for prog in mandelbrot floatgrid floatwalk vecmath vecbounce sieve fib tak hanoi calls hash strings lists wordlist primes listbuild gcd collatz floatlist; do
        [ -f "$dir/$prog.lsl" ] || continue
        jit=$dir/$prog.lua
        [ -f "$dir/$prog.jit.lua" ] && jit=$dir/$prog.jit.lua # LuaJIT is Lua 5.1
        # the twins must print the same checksum
        fo=$("$GSVM" lsl run "$dir/$prog.lsl" --no-cache | sed -n 's/^{"host":"llOwnerSay","args":\["\(.*\)"\]}$/\1/p')
        lo=$(lua5.4 "$dir/$prog.lua")
        jo=$(luajit -joff "$jit")
        same=no; [ "$fo" = "$lo" ] && [ "$fo" = "$jo" ] && same=yes
        [ "$same" = yes ] || failed "$prog: falcon, lua5.4 and luajit print different results"
        "$GSVM" lsl run "$dir/$prog.lsl" >/dev/null # fill the cache: time the run, not the compile
        set -- $(trio "$GSVM" lsl run "$dir/$prog.lsl" -- lua5.4 "$dir/$prog.lua" -- luajit -joff "$jit")
        f=$1 l=$2 j=$3
        rl=$(ratio "$f" "$l")
        rj=$(ratio "$f" "$j")
        mark=$(awk -v a="$rl" -v b="$rj" 'BEGIN { print (a + 0 <= 0.60 && b + 0 <= 0.80) ? "meets both" : (a + 0 <= 0.60 ? "misses luajit" : (b + 0 <= 0.80 ? "misses lua" : "misses both")) }')
        printf '%-11s %7s %7s %7s %10s %13s  %s, %s\n' "$prog" "$f" "$l" "$j" "$rl" "$rj" "$same" "$mark"
    done
else
    echo "lua5.4 or luajit not installed: skipped"
fi

echo "-- ABI 3 snapshot + restore of a script holding 64 KiB of live data"
if [ -x "$bin/lsl_bench_snapshot3" ]; then
    "$bin/lsl_bench_snapshot3" 2000 || failed "lsl_bench_snapshot3 failed"
else
    failed "lsl_bench_snapshot3 not found next to $GSVM (build the whole tree)"
fi
[ ! -e "$FAILED" ]
