#!/bin/sh
# Corpus: for every .bin, `list` then `asm` reproduces every byte, with the
# layout detected and with it forced; and `asm --from pathologic_re` on the
# community listing gives the same bytes as the corpus .bin.
shared=${GSVM_SHARED_DIR:-../shared}
corpus="$shared/corpus/pathologic"
. tests/cli_test.sh
need "$corpus/bin"
for f in "$corpus"/bin/*/*.bin; do
    ver=$(basename "$(dirname "$f")"); name=$(basename "$f" .bin)
    case $ver in alpha) layout=alpha;; *) layout=hd;; esac
    if "$G" patho list "$f" -o "$T/l.txt" && "$G" patho asm "$T/l.txt" -o "$T/x.bin" &&
        cmp -s "$T/x.bin" "$f"; then ok; else bad "list/asm differs: $f"; fi
    if "$G" patho list --compact "$f" | "$G" patho asm - -o "$T/c.bin" && cmp -s "$T/c.bin" "$f"; then
        ok; else bad "compact list/asm differs: $f"; fi
    if grep -q "^.layout $layout\$" "$T/l.txt"; then ok; else bad "wrong layout detected: $f"; fi
    if "$G" patho list --layout "$layout" "$f" | "$G" patho asm --layout "$layout" - -o "$T/y.bin" &&
        cmp -s "$T/y.bin" "$f"; then ok; else bad "forced layout differs: $f"; fi
    if "$G" patho verify -q "$f"; then ok; else bad "verify rejects: $f"; fi
    if "$G" patho stats --json "$f" | grep -q '"instructions":' &&
        "$G" patho cfg "$f" | grep -q '^digraph'; then ok; else bad "stats/cfg failed: $f"; fi
    re="$corpus/listings/$ver/$name.asm"
    if [ -f "$re" ]; then
        if "$G" patho asm --from pathologic_re --layout "$layout" "$re" -o "$T/r.bin" 2>"$T/err" && cmp -s "$T/r.bin" "$f"; then
            ok
        else
            bad "pathologic_re import differs: $re"; head -3 "$T/err"
        fi
        # and with the layout left to the listing (and its folder name)
        if "$G" patho asm --from pathologic_re "$re" -o "$T/r2.bin" && cmp -s "$T/r2.bin" "$f"; then
            ok
        else
            bad "pathologic_re import (layout detected) differs: $re"
        fi
    fi
done
cli_test_end
