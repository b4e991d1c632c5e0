# make demo, patho part (sourced by examples/demo.sh, which defines run and say).
say "Pathologic's script VM: its .bin bytecode listed, assembled, verified and run"
say "with tasks, events and natives."
run 'gsvm patho asm examples/patho/greeter.lst -o greeter.bin'
run 'gsvm patho run greeter.bin --events examples/patho/greeter.jsonl'
if corpus pathologic; then
    say "Every script of the game comes back byte for byte through list and asm:"
    run 'gsvm patho roundtrip ../shared/corpus/pathologic/bin/*/*.bin'
fi
say "Refused, with the line and column:"
run "printf '.code\\n    Mov t1, s1\\n' > e.lst"
run 1 'gsvm patho asm e.lst -o e.bin'
say "More: docs/patho.md (the listing, the community's syntax, verify, the VM)."
