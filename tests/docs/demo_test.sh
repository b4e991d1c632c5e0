#!/bin/sh
# `make demo` shows every engine and must stay readable: the showcase
# (examples/demo.sh) runs against the built binary, exits 0 (it exits 1 when
# a command's status is not the one it should be), names each built engine,
# and is at most 200 lines, so that with make's build lines of an already
# built tree (about 30) the whole of `make demo` stays under 250.
GSVM=${GSVM_BIN:?GSVM_BIN must name the gsvm binary}
out=$(mktemp); trap 'rm -f "$out"' EXIT
sh examples/demo.sh "$GSVM" >"$out" 2>&1
rc=$?
fail=0
if [ $rc != 0 ]; then
    echo "FAIL: examples/demo.sh exited $rc"; fail=1
fi
lines=$(wc -l <"$out")
if [ "$lines" -gt 200 ]; then
    echo "FAIL: examples/demo.sh printed $lines lines, more than 200"; fail=1
fi
for engine in $("$GSVM" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
    grep -q "^=== gsvm $engine\$" "$out" || { echo "FAIL: the demo does not show gsvm $engine"; fail=1; }
    grep -q "^\$ gsvm $engine " "$out" || { echo "FAIL: the demo runs no gsvm $engine command"; fail=1; }
done
if grep -q 'ERROR: AddressSanitizer\|runtime error:' "$out"; then
    echo "FAIL: a sanitizer report in the demo"; fail=1
fi
[ $fail = 0 ] || { echo "--- the demo's output:"; cat "$out"; exit 1; }
echo "demo: $lines lines, exit 0"
