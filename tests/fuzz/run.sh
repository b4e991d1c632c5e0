#!/bin/sh
# run.sh BUILD_DIR SECONDS [TARGET...]: runs every fuzz target of tests/fuzz/
# (or the TARGETs named) for SECONDS
# each, from its seed directory (BUILD_DIR/seeds/<target>/, made at build
# time from tests/fuzz/<target>.seeds), keeping what it finds new in
# BUILD_DIR/corpus/<target>/.  Prints each target's inputs and inputs per
# second.  Exits non-zero when a target of an engine that was built is
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
    # A "# fuzz-options: FLAGS" line in the .seeds list adds libFuzzer flags.
    opts=$(sed -n 's/^# fuzz-options: *//p' "tests/fuzz/$name.seeds" 2>/dev/null)
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 $opts \
        -artifact_prefix="$build/corpus/$name-" "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    if [ $rc -ne 0 ] || ! grep -q '^Done [0-9]* runs in' "$log" || [ -z "$runs" ]; then
        echo "== $name: FAILED (exit $rc, $nseeds seeds): see $log"
        grep -E 'ERROR|SUMMARY|Test unit written|Not a directory|exiting' "$log" | head -8 | sed 's/^/   /'
        status=1; failed="$failed $name"
    else
        printf '== %-24s %9s inputs %7s/s  (%s seeds, %s s)\n' "$name" "$runs" "$rate" "$nseeds" "$seconds"
    fi
done
[ $status -eq 0 ] || echo "fuzz: FAILED:$failed"
exit $status
