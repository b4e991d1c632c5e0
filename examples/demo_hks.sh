# make demo, hks part (sourced by examples/demo.sh, which defines run and say).
say "HavokScript (Havok's Lua 5.1 fork): chunks listed losslessly, reassembled byte"
say "for byte, verified operand by operand, compiled from Lua, and run."
run 'gsvm hks asm examples/hks/counter.hksl -o counter.hksc'
run 'gsvm hks list counter.hksc | sed -n 16,22p'
if corpus hks; then
    say "A Halo Infinite tag whose chunk starts at byte 548, taken apart and put back:"
    run 'gsvm hks list ../shared/corpus/hks/halo/hinf_luas.luas -o hinf.hksl'
    run 'gsvm hks asm hinf.hksl -o again && cmp again ../shared/corpus/hks/halo/hinf_luas.luas && echo same bytes'
    run 'gsvm hks roundtrip ../shared/corpus/hks/*/*'
else
    run 'gsvm hks list counter.hksc -o again.hksl && gsvm hks asm again.hksl -o again && cmp again counter.hksc && echo same bytes'
fi
say "A world layer: two sleeping threads, a bound event, a native called wrong (exit 3):"
run 3 'gsvm hks run examples/hks/layer/keep.lua --world examples/hks/layer/keep.world.json --events examples/hks/layer/keep.timeline.jsonl | tail -4'
say "Refused: a chunk whose operands point nowhere."
run 'gsvm hks asm examples/hks/broken.hksl -o broken.hksc'
run 1 'gsvm hks verify broken.hksc | head -3'
say "More: docs/hks.md (listing syntax, verify, stats, SCRI, compile, decompile, run)."
