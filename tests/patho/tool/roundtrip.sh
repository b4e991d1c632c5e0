#!/bin/sh
# Corpus: for every .bin, `list` then `asm` reproduces every byte, with the
# layout detected and with it forced; and `asm --from pathologic_re` on the
# community listing gives the same bytes as the corpus .bin.
shared=${GSVM_SHARED_DIR:-../shared}
corpus="$shared/corpus/pathologic"
pass=0; fail=0
if [ ! -d "$corpus/bin" ]; then
    if [ "${CI:-}" = true ]; then echo "corpus missing under CI"; echo "0 passed, 1 failed"; exit 1; fi
    echo "skipped: $corpus not found"; echo "0 passed, 0 failed"; exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$corpus"/bin/*/*.bin; do
    ver=$(basename "$(dirname "$f")"); name=$(basename "$f" .bin)
    case $ver in alpha) layout=alpha;; *) layout=hd;; esac
    if "$GSVM_BIN" patho list "$f" -o "$tmp/l.txt" && "$GSVM_BIN" patho asm "$tmp/l.txt" -o "$tmp/x.bin" &&
        cmp -s "$tmp/x.bin" "$f"; then pass=$((pass+1)); else fail=$((fail+1)); echo "list/asm differs: $f"; fi
    if "$GSVM_BIN" patho list --compact "$f" | "$GSVM_BIN" patho asm - -o "$tmp/c.bin" && cmp -s "$tmp/c.bin" "$f"; then
        pass=$((pass+1)); else fail=$((fail+1)); echo "compact list/asm differs: $f"; fi
    if grep -q "^.layout $layout\$" "$tmp/l.txt"; then pass=$((pass+1)); else fail=$((fail+1)); echo "wrong layout detected: $f"; fi
    if "$GSVM_BIN" patho list --layout "$layout" "$f" | "$GSVM_BIN" patho asm --layout "$layout" - -o "$tmp/y.bin" &&
        cmp -s "$tmp/y.bin" "$f"; then pass=$((pass+1)); else fail=$((fail+1)); echo "forced layout differs: $f"; fi
    if "$GSVM_BIN" patho verify -q "$f"; then pass=$((pass+1)); else fail=$((fail+1)); echo "verify rejects: $f"; fi
    if "$GSVM_BIN" patho stats --json "$f" | grep -q '"instructions":' &&
        "$GSVM_BIN" patho cfg "$f" | grep -q '^digraph'; then pass=$((pass+1)); else fail=$((fail+1)); echo "stats/cfg failed: $f"; fi
    re="$corpus/listings/$ver/$name.asm"
    if [ -f "$re" ]; then
        if "$GSVM_BIN" patho asm --from pathologic_re --layout "$layout" "$re" -o "$tmp/r.bin" 2>"$tmp/err" && cmp -s "$tmp/r.bin" "$f"; then
            pass=$((pass+1))
        else
            fail=$((fail+1)); echo "pathologic_re import differs: $re"; head -3 "$tmp/err"
        fi
        # and with the layout left to the listing (and its folder name)
        if "$GSVM_BIN" patho asm --from pathologic_re "$re" -o "$tmp/r2.bin" && cmp -s "$tmp/r2.bin" "$f"; then
            pass=$((pass+1))
        else
            fail=$((fail+1)); echo "pathologic_re import (layout detected) differs: $re"
        fi
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
