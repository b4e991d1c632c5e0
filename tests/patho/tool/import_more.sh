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
. tests/cli_test.sh
need "$corpus/more" "$corpus/release2-sample"
n=0; nbin=0
for f in "$corpus"/more/listings/*/*.asm; do
    ver=$(basename "$(dirname "$f")"); name=$(basename "$f" .asm); n=$((n+1))
    if ! "$G" patho asm --from pathologic_re "$f" -o "$T/x.bin" 2>"$T/err"; then bad "import $f: $(head -1 "$T/err")"; continue; fi
    [ -s "$T/err" ] && bad "import of an exact listing warns: $f: $(head -1 "$T/err")" || ok
    b="$corpus/more/bin/$ver/$name.bin"
    if [ -f "$b" ]; then
        nbin=$((nbin+1))
        cmp -s "$T/x.bin" "$b" && ok || bad "import differs from $b"
    else
        "$G" patho list "$T/x.bin" | grep -q "PushVec" && ok || bad "$f has no .bin and no PushVec"
    fi
    "$G" patho verify -q "$T/x.bin" && ok || bad "verify rejects the import of $f"
    "$G" patho list "$T/x.bin" -o "$T/l.txt" && "$G" patho asm "$T/l.txt" -o "$T/y.bin" &&
        cmp -s "$T/x.bin" "$T/y.bin" && ok || bad "list/asm round trip differs for $f"
done
[ "$n" = 19 ] && ok || bad "$n listings in more/, want 19"
[ "$nbin" = 15 ] && ok || bad "$nbin .bin in more/bin, want 15"

n=0
for f in "$corpus"/release2-sample/*.asm; do
    n=$((n+1))
    if "$G" patho asm --from pathologic_re "$f" -o "$T/r.bin" 2>"$T/warn"; then ok; else bad "release-2 import $f: $(head -1 "$T/warn")"; continue; fi
    grep -q "warning: release-2 listing:" "$T/warn" && ok || bad "no loss warning for $f"
    # one warning per kind of loss, each naming a line
    kinds=$(sed 's/.*warning: //' "$T/warn" | sort | uniq -d | wc -l)
    [ "$kinds" = 0 ] && ok || bad "a kind of loss warned twice for $f"
    grep -v -q -E '^[^:]+:[0-9]+:[0-9]+: warning: ' "$T/warn" && bad "a warning without line:column: $f" || ok
    "$G" patho asm --from pathologic_re --strict "$f" -o "$T/s.bin" 2>"$T/err" && bad "--strict accepted $f" || ok
    grep -q "error: release-2 listing: .*(refused: --strict)" "$T/err" && ok || bad "--strict message for $f"
    [ -e "$T/s.bin" ] && bad "--strict wrote output for $f" || ok
done
[ "$n" = 11 ] && ok || bad "$n release-2 listings, want 11"
# where the exact bytes are known: only the lost fields differ
"$G" patho asm --from pathologic_re "$corpus/release2-sample/d2q01_house1.bin.asm" -o "$T/d.bin" 2>/dev/null
"$G" patho list --compact "$T/d.bin" >"$T/d.txt"
"$G" patho list --compact "$corpus/bin/hd/d2q01_house1.bin" >"$T/e.txt"
diff "$T/d.txt" "$T/e.txt" >"$T/de.txt"
[ "$(grep -c '^[<>]' "$T/de.txt")" = 2 ] && grep -q '^<     Not s1, pop=0' "$T/de.txt" &&
    grep -q '^>     NullEq s1, pop=0' "$T/de.txt" && ok || { bad "d2q01_house1 differs beyond NullEq/Not:"; cat "$T/de.txt"; }
"$G" patho asm --from pathologic_re "$corpus/release2-sample/ui_editbox.bin.asm" -o "$T/u.bin" 2>/dev/null
"$G" patho list --compact "$T/u.bin" >"$T/u.txt"
"$G" patho list --compact "$corpus/more/bin/2005/ui_editbox.bin" >"$T/v.txt"
# the differences are task flags (tN shown as sN), the method call's object
# slot (0) and the method name's width
diff "$T/u.txt" "$T/v.txt" | grep '^<' | grep -v -E '^<     (Func|ObjFunc) .*\(|^<     W "add"' >"$T/other.txt"
[ -s "$T/other.txt" ] && { bad "ui_editbox differs beyond the lost fields:"; cat "$T/other.txt"; } || ok
cli_test_end
