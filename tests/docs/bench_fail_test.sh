#!/bin/sh
# Every bench/bench_*.sh, given a gsvm whose every run fails, exits non-zero
# and prints no figure made of failed runs (no negative, infinite or NaN
# numbers: a failed run once printed "-0.01x its limit" and exited 0).
# RUNS=1 N=10 keep the reference interpreters' part short.
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf '#!/bin/sh\nexit 3\n' >"$T/gsvm"
chmod +x "$T/gsvm"
status=0
for b in bench/bench_*.sh; do
    GSVM="$T/gsvm" RUNS=1 N=10 sh "$b" "$T/gsvm" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then
        echo "FAIL: $b exits 0 when every run fails"; status=1
    fi
    if grep -Eiq '(^|[^a-z0-9_.-])-[0-9]|(^|[^a-z])(inf|nan)([^a-z]|$)' "$T/out"; then
        echo "FAIL: $b prints a figure of failed runs:"; grep -Ei -- '-[0-9]|inf|nan' "$T/out" | head -5; status=1
    fi
done
[ "$status" = 0 ] && echo "every bench script fails loudly on failed runs"
exit $status
