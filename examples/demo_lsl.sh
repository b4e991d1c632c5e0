# make demo, lsl part (sourced by examples/demo.sh, which defines run and say).
say "The Falcon VM: LSL compiled to fixed-width p-code, run in instruction budgets,"
say "snapshotted after any instruction and resumed in a fresh VM (or another process)."
run 'gsvm lsl compile examples/lsl/touch_counter.lsl -o touch.fpc'
run 'gsvm lsl list touch.fpc | sed -n 17,22p'
run 'gsvm lsl run touch.fpc --events examples/lsl/touches.jsonl'
say "Stop after exactly 12 instructions (inside the first touch), write a snapshot,"
say "and finish in a fresh VM: the same host calls as the uninterrupted run."
run 'gsvm lsl run touch.fpc --events examples/lsl/touches.jsonl --snapshot-at 12 --snapshot-out x.snap'
run 'tail -n +2 examples/lsl/touches.jsonl > rest.jsonl'
run 'gsvm lsl run touch.fpc --resume x.snap --events rest.jsonl'
say "The whole language (ABI 3): states, timers and listens on simulated time."
run 3 'gsvm lsl run examples/lsl/abi3_tour.lsl --events examples/lsl/abi3_timeline.jsonl | tail -4'
say "Refused, with the place:"
run 1 'gsvm lsl compile examples/lsl/bad.lsl -o bad.fpc'
say "More: docs/lsl.md (ABI 2 and 3, snapshots, the cache, regions), docs/lsl_library.md."
