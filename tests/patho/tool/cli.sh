#!/bin/sh
# The toolchain verbs' contracts: exit codes, -o, stdin, errors naming
# the file and the byte offset or line:column.
. tests/cli_test.sh
data=tests/patho/tool/data

# list / asm through stdin and stdout, -o
expect 0 "$G" patho list "$data/bad.bin" -o "$T/bad.lst"
expect 0 sh -c "'$G' patho asm - < '$T/bad.lst' > '$T/bad2.bin'"
check cmp -s "$T/bad2.bin" "$data/bad.bin"
expect 0 sh -c "'$G' patho list - < '$data/bad.bin' | '$G' patho asm - -o '$T/bad3.bin'"
check cmp -s "$T/bad3.bin" "$data/bad.bin"
# the compact listing (no comment columns) rebuilds the same bytes too
expect 0 sh -c "'$G' patho list --compact '$data/bad.bin' | '$G' patho asm - -o '$T/compact.bin'"
check cmp -s "$T/compact.bin" "$data/bad.bin"
expect 0 sh -c "'$G' patho list --compact '$data/bad.bin' | grep -c ';' | grep -q '^0\$'"
# layout conversion: the same listing as alpha, and back
expect 0 "$G" patho asm --layout alpha "$T/bad.lst" -o "$T/alpha.bin"
expect 0 sh -c "'$G' patho list '$T/alpha.bin' | grep -q '^.layout alpha'"
expect 0 sh -c "'$G' patho list '$T/alpha.bin' | '$G' patho asm --layout hd - -o '$T/hd.bin'"
check cmp -s "$T/hd.bin" "$data/bad.bin"

# verify: exit 1 with each violation on stdout
expect 1 "$G" patho verify "$data/bad.bin"
check grep -q "6 problems" "$T/out"

# a truncated file: exit 1, the message names the file and a byte offset
head -c 150 "$data/bad.bin" > "$T/trunc.bin"
expect 1 "$G" patho list "$T/trunc.bin"
check grep -q "trunc.bin: byte [0-9]*: error: truncated" "$T/err"
expect 1 "$G" patho verify "$T/trunc.bin"
# a bad listing: exit 1 with file:line:column
printf '.code\n    Jump nowhere\n' > "$T/e.lst"
expect 1 "$G" patho asm "$T/e.lst" -o "$T/e.bin"
check grep -q "e.lst:2:10: error: undefined label 'nowhere'" "$T/err"
check test ! -e "$T/e.bin"
printf '0x0: Frob(1)\n' > "$T/e.asm"
expect 1 "$G" patho asm --from pathologic_re "$T/e.asm"
check grep -q "e.asm:1:6: error: cannot read instruction" "$T/err"

# usage errors exit 2
expect 2 "$G" patho list --layout beta "$data/bad.bin"
expect 2 "$G" patho asm --from nonsense "$T/bad.lst"
expect 2 "$G" patho cfg --task 9 "$data/bad.bin"
expect 2 "$G" patho list
expect 1 "$G" patho list "$T/does-not-exist.bin"

# roundtrip: identical files exit 0, a file that does not load exits 1
expect 0 "$G" patho roundtrip "$data/bad.bin" "$T/alpha.bin"
check grep -q "2 files, .*: 2 identical, 0 not" "$T/out"
expect 1 "$G" patho roundtrip "$T/trunc.bin"
# the demo script's hand-written example assembles and verifies clean
expect 0 "$G" patho asm examples/patho/greeter.lst -o "$T/greeter.bin"
expect 0 "$G" patho verify "$T/greeter.bin"

# stats and cfg
expect 0 "$G" patho stats --json "$data/bad.bin"
check grep -q '"instructions":14' "$T/out"
expect 0 "$G" patho cfg "$data/bad.bin" --task 0 -o "$T/g.dot"
check grep -q '^digraph task0' "$T/g.dot"

cli_test_end
