#!/bin/sh
# Falcon regions (gsvm lsl region), run by `make bench`: lsl_bench_region
# (bench/lsl/region_bench.c) prints each figure beside the same work done
# through today's per-VM API, in interleaved rounds (medians of CPU time):
# idle scripts' cost per frame and bytes, chat delivered per second, a
# crossing's time from order to resumed (B running it) on loopback, median
# and 90th percentile of CROSSINGS (default 11) rounds, a typed host call.
GSVM=${GSVM:-build/release/gsvm}
bin=$(dirname "$GSVM")
if [ -x "$bin/lsl_bench_region" ]; then
    "$bin/lsl_bench_region" "${REGION_IDLE:-10000}" "${RUNS:-5}" 1000 "${CROSSINGS:-11}"
else
    echo "lsl_bench_region not found next to $GSVM (build the whole tree)" >&2
    exit 1
fi
