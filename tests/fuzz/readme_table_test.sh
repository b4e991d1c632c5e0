#!/bin/sh
# tests/fuzz/README.md's table "What each target feeds" names every fuzz
# target (tests/fuzz/fuzz_*.c) in exactly one row, every row names a target
# that exists, and its loader and input columns are text (a bad edit once
# put a speed table's figures there).
set -eu
dir=$(dirname "$0")
readme="$dir/README.md"
status=0
# The table's rows, "| `name` | loader | input |", from its heading to the next.
rows=$(awk '/^## / { on = ($0 ~ /^## What each target feeds/); next } on && /^\| `/' "$readme")
if [ -z "$rows" ]; then
    echo "FAIL: no rows in the table \"What each target feeds\" of $readme"
    exit 1
fi
for src in "$dir"/fuzz_*.c; do
    name=$(basename "$src" .c)
    n=$(printf '%s\n' "$rows" | grep -c "^| \`$name\` |" || true)
    if [ "$n" -ne 1 ]; then
        echo "FAIL: $name has $n rows in the table (want 1)"
        status=1
    fi
done
while IFS= read -r row; do
    name=$(printf '%s\n' "$row" | sed 's/^| `\([^`]*\)`.*/\1/')
    if [ ! -f "$dir/$name.c" ]; then
        echo "FAIL: a row names $name, which is not a target: $row"
        status=1
    fi
    # Fields split at '|': empty, name, loader, input, empty.
    if [ "$(printf '%s\n' "$row" | awk -F'|' '{ print NF }')" -ne 5 ]; then
        echo "FAIL: $name's row does not have 3 columns: $row"
        status=1
        continue
    fi
    for col in 3 4; do
        # Text has a letter; a figure is digits, commas, dots and spaces only.
        if ! printf '%s\n' "$row" | awk -F'|' -v c=$col '{ print $c }' | grep -q '[A-Za-z]'; then
            echo "FAIL: $name's row holds a figure where text belongs: $row"
            status=1
        fi
    done
done <<END
$rows
END
[ "$status" -eq 0 ] && echo "ok: $(printf '%s\n' "$rows" | wc -l) rows, one per target"
exit "$status"
