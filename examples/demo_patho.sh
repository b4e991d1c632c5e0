#!/bin/sh
# make demo, patho toolchain part: read, change and rebuild Pathologic .bin
# scripts.  Uses $GSVM; the corpus part runs when ../shared is present.
GSVM=${GSVM:-build/release/gsvm}
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
C=$SHARED/corpus/pathologic
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { echo "\$ $*"; "$@"; }

if [ -d "$C/bin" ]; then
    echo "# a real script (the HD edition's fire.bin), as a lossless listing:"
    echo "\$ gsvm patho list fire.bin | sed -n '1,26p'"
    "$GSVM" patho list "$C/bin/hd/fire.bin" | sed -n '1,26p'
    echo
    echo "# change a message in the listing and rebuild: only that string changes"
    "$GSVM" patho list "$C/bin/hd/fire.bin" -o "$tmp/fire.lst"
    sed 's/Can.t find fire particle system/No fire here/' "$tmp/fire.lst" > "$tmp/fire2.lst"
    run "$GSVM" patho asm "$tmp/fire2.lst" -o "$tmp/fire2.bin" || exit 1
    "$GSVM" patho list "$tmp/fire2.bin" | grep -n 'No fire here'
    run "$GSVM" patho verify "$tmp/fire2.bin" || exit 1
    echo
    echo "# every corpus file survives list -> asm byte for byte"
    echo "\$ gsvm patho roundtrip corpus/pathologic/bin/*/*.bin"
    "$GSVM" patho roundtrip "$C"/bin/*/*.bin || exit 1
    echo
    echo "# the community's listing syntax (pathologic_re) assembles to the same bytes"
    run "$GSVM" patho asm --from pathologic_re "$C/listings/alpha/blood.asm" --layout alpha -o "$tmp/blood.bin" || exit 1
    cmp "$tmp/blood.bin" "$C/bin/alpha/blood.bin" && echo "identical to the corpus blood.bin"
    echo
fi

echo "# a script written by hand (examples/patho/greeter.lst)"
run "$GSVM" patho asm examples/patho/greeter.lst -o "$tmp/greeter.bin" || exit 1
run "$GSVM" patho verify "$tmp/greeter.bin" || exit 1
echo "\$ gsvm patho stats greeter.bin | head -12"
"$GSVM" patho stats "$tmp/greeter.bin" | head -12
echo "\$ gsvm patho cfg greeter.bin --task 0 | head -8"
"$GSVM" patho cfg "$tmp/greeter.bin" --task 0 | head -8
echo
echo "# and run it: three uses of the object, then goodbye"
run "$GSVM" patho run "$tmp/greeter.bin" --events examples/patho/greeter.jsonl
