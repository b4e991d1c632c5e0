#!/bin/sh
# The toolchain verbs' contracts: exit codes, -o, stdin, errors naming
# the file and the byte offset or line:column.
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
G=$GSVM_BIN
data=tests/patho/tool/data
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "failed: $*"; fi; }
rc() { want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; got=$?; if [ "$got" = "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "exit $got, want $want: $*"; cat "$tmp/err"; fi; }

# list / asm through stdin and stdout, -o
rc 0 "$G" patho list "$data/bad.bin" -o "$tmp/bad.lst"
rc 0 sh -c "'$G' patho asm - < '$tmp/bad.lst' > '$tmp/bad2.bin'"
ok cmp -s "$tmp/bad2.bin" "$data/bad.bin"
rc 0 sh -c "'$G' patho list - < '$data/bad.bin' | '$G' patho asm - -o '$tmp/bad3.bin'"
ok cmp -s "$tmp/bad3.bin" "$data/bad.bin"
# the compact listing (no comment columns) rebuilds the same bytes too
rc 0 sh -c "'$G' patho list --compact '$data/bad.bin' | '$G' patho asm - -o '$tmp/compact.bin'"
ok cmp -s "$tmp/compact.bin" "$data/bad.bin"
rc 0 sh -c "'$G' patho list --compact '$data/bad.bin' | grep -c ';' | grep -q '^0\$'"
# layout conversion: the same listing as alpha, and back
rc 0 "$G" patho asm --layout alpha "$tmp/bad.lst" -o "$tmp/alpha.bin"
rc 0 sh -c "'$G' patho list '$tmp/alpha.bin' | grep -q '^.layout alpha'"
rc 0 sh -c "'$G' patho list '$tmp/alpha.bin' | '$G' patho asm --layout hd - -o '$tmp/hd.bin'"
ok cmp -s "$tmp/hd.bin" "$data/bad.bin"

# verify: exit 1 with each violation on stdout
rc 1 "$G" patho verify "$data/bad.bin"
ok grep -q "6 problems" "$tmp/out"

# a truncated file: exit 1, the message names the file and a byte offset
head -c 150 "$data/bad.bin" > "$tmp/trunc.bin"
rc 1 "$G" patho list "$tmp/trunc.bin"
ok grep -q "trunc.bin: byte [0-9]*: error: truncated" "$tmp/err"
rc 1 "$G" patho verify "$tmp/trunc.bin"
# a bad listing: exit 1 with file:line:column
printf '.code\n    Jump nowhere\n' > "$tmp/e.lst"
rc 1 "$G" patho asm "$tmp/e.lst" -o "$tmp/e.bin"
ok grep -q "e.lst:2:10: error: undefined label 'nowhere'" "$tmp/err"
ok test ! -e "$tmp/e.bin"
printf '0x0: Frob(1)\n' > "$tmp/e.asm"
rc 1 "$G" patho asm --from pathologic_re "$tmp/e.asm"
ok grep -q "e.asm:1:6: error: cannot read instruction" "$tmp/err"

# usage errors exit 2
rc 2 "$G" patho list --layout beta "$data/bad.bin"
rc 2 "$G" patho asm --from nonsense "$tmp/bad.lst"
rc 2 "$G" patho cfg --task 9 "$data/bad.bin"
rc 2 "$G" patho list
rc 1 "$G" patho list "$tmp/does-not-exist.bin"

# roundtrip: identical files exit 0, a file that does not load exits 1
rc 0 "$G" patho roundtrip "$data/bad.bin" "$tmp/alpha.bin"
ok grep -q "2 files, .*: 2 identical, 0 not" "$tmp/out"
rc 1 "$G" patho roundtrip "$tmp/trunc.bin"
# the demo script's hand-written example assembles and verifies clean
rc 0 "$G" patho asm examples/patho/greeter.lst -o "$tmp/greeter.bin"
rc 0 "$G" patho verify "$tmp/greeter.bin"

# stats and cfg
rc 0 "$G" patho stats --json "$data/bad.bin"
ok grep -q '"instructions":14' "$tmp/out"
rc 0 "$G" patho cfg "$data/bad.bin" --task 0 -o "$tmp/g.dot"
ok grep -q '^digraph task0' "$tmp/g.dot"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
