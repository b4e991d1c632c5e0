#!/bin/sh
# run.sh BUILD_DIR SECONDS [TARGET...]: runs every fuzz target of tests/fuzz/
# (or the TARGETs named) for SECONDS
# each, from its seed directory (BUILD_DIR/seeds/<target>/, made at build
# time from tests/fuzz/<target>.seeds), keeping what it finds new in
# BUILD_DIR/corpus/<target>/.  Prints each target's inputs, inputs per
# second and inputs per CPU second.  Exits non-zero when a target of an engine that was built is
# missing, has no seeds, does not run, or stops with anything but its time
# being up (a crash, leak, timeout or out-of-memory leaves an artifact named
# in its log).
build=$1; seconds=${2:-20}
shift 2 2>/dev/null
only="$*"
# A short run trades some of ASan's reach for inputs per second: no fill of
# new blocks, a 16 MiB quarantine (use-after-free of recent frees is still
# caught) and 8 frames per allocation stack.  This halves the cost of an
# input of the allocation-heavy targets (SQLite, Lua).  An artifact is best
# replayed with ASan's defaults: ASAN_OPTIONS= build/fuzz/fuzz_X ARTIFACT.
: "${ASAN_OPTIONS=max_malloc_fill_size=0:quarantine_size_mb=16:malloc_context_size=8}"
export ASAN_OPTIONS
[ -d "$build" ] || { echo "run.sh: no build directory $build"; exit 2; }
engines=$(sed -n 's/^GSVM_ENGINES:[A-Z]*=//p' "$build/CMakeCache.txt" | tr ';' ' ')
# The CPU seconds (user + system) the shell's children have used so far:
# inputs per CPU second do not depend on what else the machine runs, inputs
# per second (libFuzzer's figure, seed loading included) do.
# (`times` runs in this shell, not in a command substitution's subshell,
# whose children are not the fuzz targets.)
child_cpu() {
    times >"$build/.times"
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%.2f", t }' "$build/.times"
}
status=0
failed=""
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    engine=$(echo "$name" | sed 's/^fuzz_\([a-z]*\)_.*/\1/')
    case " base $engines " in *" $engine "*) ;; *) continue;; esac
    if [ -n "$only" ]; then case " $only " in *" $name "*) ;; *) continue;; esac; fi
    bin="$build/$name"
    seeds="$build/seeds/$name"
    corpus="$build/corpus/$name"
    log="$build/corpus/$name.log"
    mkdir -p "$corpus"
    if [ ! -x "$bin" ]; then
        echo "== $name: FAILED: not built"; status=1; failed="$failed $name"; continue
    fi
    nseeds=$(ls "$seeds" 2>/dev/null | wc -l)
    if [ "$nseeds" -eq 0 ]; then
        echo "== $name: FAILED: no seeds in $seeds"; status=1; failed="$failed $name"; continue
    fi
    # A "# fuzz-options: FLAGS" line in the .seeds list adds libFuzzer flags
    # (later flags win).  -entropic=0: the entropic schedule's per-input
    # feature bookkeeping (InputCorpus::UpdateFeatureFrequency) was half the
    # CPU of an input or more for the targets whose inputs reach much of the
    # library (patho .bin, hks decompile, lsl region, mission); a short run
    # does two to three times the inputs without it.
    opts=$(sed -n 's/^# fuzz-options: *//p' "tests/fuzz/$name.seeds" 2>/dev/null)
    child_cpu >"$build/.cpu0"; cpu0=$(cat "$build/.cpu0")
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -entropic=0 $opts \
        -artifact_prefix="$build/corpus/$name-" "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    child_cpu >"$build/.cpu1"
    cpu=$(awk -v a="$cpu0" -v b="$(cat "$build/.cpu1")" 'BEGIN { printf "%.1f", b - a }')
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    if [ $rc -ne 0 ] || ! grep -q '^Done [0-9]* runs in' "$log" || [ -z "$runs" ]; then
        echo "== $name: FAILED (exit $rc, $nseeds seeds): see $log"
        grep -E 'ERROR|SUMMARY|Test unit written|Not a directory|exiting' "$log" | head -8 | sed 's/^/   /'
        status=1; failed="$failed $name"
    else
        percpu=$(awk -v n="$runs" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? n / c : 0) }')
        printf '== %-24s %9s inputs %7s/s %7s/CPU-s  (%s seeds, %s s, %s CPU-s)\n' "$name" "$runs" \
            "$rate" "$percpu" "$nseeds" "$seconds" "$cpu"
    fi
done
[ $status -eq 0 ] || echo "fuzz: FAILED:$failed"
exit $status
