#!/bin/sh
# run.sh BUILD_DIR SECONDS: runs every built fuzz target for SECONDS each,
# starting from the seeds its .seeds file lists.
build=$1; seconds=${2:-20}
shared=${GSVM_SHARED_DIR:-$(pwd)/../shared}
status=0
for bin in "$build"/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    work="build/fuzz-corpus/$name"; mkdir -p "$work"
    seeds=""
    if [ -f "tests/fuzz/$name.seeds" ]; then
        while IFS= read -r line; do
            case "$line" in ''|'#'*) continue;; '$SHARED/'*) line="$shared/${line#\$SHARED/}";; esac
            [ -e "$line" ] && seeds="$seeds $line"
        done < "tests/fuzz/$name.seeds"
    fi
    echo "== $name ($seconds s)"
    if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
            -artifact_prefix="build/fuzz-corpus/$name-" "$work" $seeds >"build/fuzz-corpus/$name.log" 2>&1; then
        echo "   FAILED: see build/fuzz-corpus/$name.log"; tail -30 "build/fuzz-corpus/$name.log"; status=1
    else
        grep -E "stat::number_of_executed_units" "build/fuzz-corpus/$name.log" | sed 's/^/   /'
    fi
done
exit $status
