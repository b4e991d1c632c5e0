#!/bin/sh
# The listings the first 43 lack (../shared/corpus/pathologic, PROVENANCE.md):
# - more/listings: every one imports (asm --from pathologic_re) byte for byte
#   as its .bin in more/bin; the four 2005 ones with Push([x, y, z]) (which
#   the community assembler refuses) import as PushVec; each result
#   verifies clean, lists, and list -> asm gives the same bytes; no warnings.
# - release2-sample: every listing imports, each kind of lost field warned
#   once with its line, --strict refuses; the two whose exact .bin is in the
#   corpus differ from it only where the syntax lost information.
shared=${GSVM_SHARED_DIR:-../shared}
corpus="$shared/corpus/pathologic"
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
if [ ! -d "$corpus/more" ] || [ ! -d "$corpus/release2-sample" ]; then
    if [ "${CI:-}" = true ]; then echo "corpus missing under CI"; echo "0 passed, 1 failed"; exit 1; fi
    echo "skipped: $corpus/more or release2-sample not found"; echo "0 passed, 0 failed"; exit 0
fi
G=$GSVM_BIN
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0; nbin=0
for f in "$corpus"/more/listings/*/*.asm; do
    ver=$(basename "$(dirname "$f")"); name=$(basename "$f" .asm); n=$((n+1))
    if ! "$G" patho asm --from pathologic_re "$f" -o "$tmp/x.bin" 2>"$tmp/err"; then bad "import $f: $(head -1 "$tmp/err")"; continue; fi
    [ -s "$tmp/err" ] && bad "import of an exact listing warns: $f: $(head -1 "$tmp/err")" || ok
    b="$corpus/more/bin/$ver/$name.bin"
    if [ -f "$b" ]; then
        nbin=$((nbin+1))
        cmp -s "$tmp/x.bin" "$b" && ok || bad "import differs from $b"
    else
        "$G" patho list "$tmp/x.bin" | grep -q "PushVec" && ok || bad "$f has no .bin and no PushVec"
    fi
    "$G" patho verify -q "$tmp/x.bin" && ok || bad "verify rejects the import of $f"
    "$G" patho list "$tmp/x.bin" -o "$tmp/l.txt" && "$G" patho asm "$tmp/l.txt" -o "$tmp/y.bin" &&
        cmp -s "$tmp/x.bin" "$tmp/y.bin" && ok || bad "list/asm round trip differs for $f"
done
[ "$n" = 19 ] && ok || bad "$n listings in more/, want 19"
[ "$nbin" = 15 ] && ok || bad "$nbin .bin in more/bin, want 15"

n=0
for f in "$corpus"/release2-sample/*.asm; do
    n=$((n+1))
    if "$G" patho asm --from pathologic_re "$f" -o "$tmp/r.bin" 2>"$tmp/warn"; then ok; else bad "release-2 import $f: $(head -1 "$tmp/warn")"; continue; fi
    grep -q "warning: release-2 listing:" "$tmp/warn" && ok || bad "no loss warning for $f"
    # one warning per kind of loss, each naming a line
    kinds=$(sed 's/.*warning: //' "$tmp/warn" | sort | uniq -d | wc -l)
    [ "$kinds" = 0 ] && ok || bad "a kind of loss warned twice for $f"
    grep -v -q -E '^[^:]+:[0-9]+:[0-9]+: warning: ' "$tmp/warn" && bad "a warning without line:column: $f" || ok
    "$G" patho asm --from pathologic_re --strict "$f" -o "$tmp/s.bin" 2>"$tmp/err" && bad "--strict accepted $f" || ok
    grep -q "error: release-2 listing: .*(refused: --strict)" "$tmp/err" && ok || bad "--strict message for $f"
    [ -e "$tmp/s.bin" ] && bad "--strict wrote output for $f" || ok
done
[ "$n" = 11 ] && ok || bad "$n release-2 listings, want 11"
# where the exact bytes are known: only the lost fields differ
"$G" patho asm --from pathologic_re "$corpus/release2-sample/d2q01_house1.bin.asm" -o "$tmp/d.bin" 2>/dev/null
"$G" patho list --compact "$tmp/d.bin" >"$tmp/d.txt"
"$G" patho list --compact "$corpus/bin/hd/d2q01_house1.bin" >"$tmp/e.txt"
diff "$tmp/d.txt" "$tmp/e.txt" >"$tmp/de.txt"
[ "$(grep -c '^[<>]' "$tmp/de.txt")" = 2 ] && grep -q '^<     Not s1, pop=0' "$tmp/de.txt" &&
    grep -q '^>     NullEq s1, pop=0' "$tmp/de.txt" && ok || { bad "d2q01_house1 differs beyond NullEq/Not:"; cat "$tmp/de.txt"; }
"$G" patho asm --from pathologic_re "$corpus/release2-sample/ui_editbox.bin.asm" -o "$tmp/u.bin" 2>/dev/null
"$G" patho list --compact "$tmp/u.bin" >"$tmp/u.txt"
"$G" patho list --compact "$corpus/more/bin/2005/ui_editbox.bin" >"$tmp/v.txt"
# the differences are task flags (tN shown as sN), the method call's object
# slot (0) and the method name's width
diff "$tmp/u.txt" "$tmp/v.txt" | grep '^<' | grep -v -E '^<     (Func|ObjFunc) .*\(|^<     W "add"' >"$tmp/other.txt"
[ -s "$tmp/other.txt" ] && { bad "ui_editbox differs beyond the lost fields:"; cat "$tmp/other.txt"; } || ok
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
