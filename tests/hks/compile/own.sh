#!/bin/sh
# Programs of our own (tests/hks/compile/*.lua; NAME.TARGET.lua only for that
# target, NAME.structs.lua for the targets with structures) compiled for every target and debug level: each chunk verifies with
# 0 violations and lists and reassembles to the same bytes.  Then the bad
# programs of errors/: exit 1 and exactly the message in NAME.err.
gsvm=${GSVM_BIN:?}
SRC=${GSVM_SOURCE_DIR:-$(pwd)}
dir=$SRC/tests/hks/compile
case $gsvm in /*) ;; *) gsvm=$(pwd)/$gsvm ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for f in "$dir"/*.lua; do
    base=$(basename "$f" .lua)
    only=
    case $base in *.*) only=${base#*.} ;; esac
    for t in sekiro sow ghosts doubles bo2 bo3; do
        if [ "$only" = structs ]; then
            case $t in bo2 | bo3) continue ;; esac
        elif [ -n "$only" ] && [ "$only" != $t ]; then
            continue
        fi
        for d in full profile none; do
            n=$((n + 1))
            what="$base --target $t --debug $d"
            if ! "$gsvm" hks compile "$f" --target $t --debug $d -o "$tmp/c" 2>"$tmp/e"; then
                echo "FAIL: $what: $(cat "$tmp/e")"; fail=1; continue
            fi
            if ! "$gsvm" hks verify "$tmp/c" >"$tmp/v" 2>&1 ||
                ! grep -q ' 0 violations' "$tmp/v"; then
                echo "FAIL: verify $what:"; head -5 "$tmp/v"; fail=1
            fi
            if ! "$gsvm" hks list "$tmp/c" >"$tmp/l" || ! "$gsvm" hks asm "$tmp/l" -o "$tmp/a" ||
                ! cmp -s "$tmp/c" "$tmp/a"; then
                echo "FAIL: list -> asm of $what does not give the same bytes"; fail=1
            fi
        done
    done
done
echo "own programs: $n chunks compiled, verified, listed and reassembled"
# corners.lua run on the VM (float64 numbers) prints what lua5.1 printed
# (corners.out is lua5.1's output)
if ! "$gsvm" hks compile "$dir/corners.lua" --target doubles -o "$tmp/c" ||
    ! "$gsvm" hks run "$tmp/c" --print text >"$tmp/out" 2>"$tmp/e" ||
    ! cmp -s "$tmp/out" "$dir/corners.out"; then
    echo "FAIL: corners.lua on the VM differs from lua5.1's output:"
    diff "$dir/corners.out" "$tmp/out" | head -10; cat "$tmp/e"; fail=1
fi
# the structure block's order (hksc's walk of its table of the ids the code
# names: by node for Ghosts, newest insertion first for FromSoftware); the
# model's order for 10 structures, checked against hksc's own rules in
# compile_struct.c and pinned in structorder.out
for t in sekiro ghosts; do
    echo "# --target $t"
    "$gsvm" hks compile "$dir/structorder.structs.lua" --target $t -o "$tmp/so" &&
        "$gsvm" hks list "$tmp/so" | grep '^\.struct ' | cut -f1
done >"$tmp/order" 2>&1
if ! cmp -s "$tmp/order" "$dir/structorder.out"; then
    echo "FAIL: structure block order:"; diff "$dir/structorder.out" "$tmp/order"; fail=1
fi
m=0
for f in "$dir"/errors/*.lua; do
    base=$(basename "$f" .lua)
    (cd "$dir/errors" && "$gsvm" hks compile "$base.lua" --target sow -o "$tmp/x"; echo "exit $?") \
        >"$tmp/got" 2>&1
    m=$((m + 1))
    if ! cmp -s "$tmp/got" "$dir/errors/$base.err"; then
        echo "FAIL: errors/$base.lua:"; diff "$dir/errors/$base.err" "$tmp/got"; fail=1
    fi
done
echo "error programs: $m messages compared"
# a FromSoftware insertion list that loops (a moved node: hksc's walk would
# never end): the block still holds each of the 11 structures the code names
i=1
while [ $i -le 392 ]; do echo "hstructure S$i v : number; end"; i=$((i + 1)); done >"$tmp/cyc.lua"
for i in 292 392 33 131 61 254 390 231 242 334 195; do
    echo "local x$i = hmake S$i { v = $i }"
done >>"$tmp/cyc.lua"
"$gsvm" hks compile "$tmp/cyc.lua" --target sekiro -o "$tmp/cyc" &&
    [ "$("$gsvm" hks list "$tmp/cyc" | grep -c '^\.struct ')" = 11 ] ||
    { echo "FAIL: a looping insertion list loses structures"; fail=1; }
# typed parameters on a target without structures: refused on their line
printf 'local function f(n:number)\n  return n\nend\n' >"$tmp/tp.lua"
(cd "$tmp" && "$gsvm" hks compile tp.lua --target bo2 -o "$tmp/tp") >"$tmp/e" 2>&1
rc=$?
if [ $rc != 1 ] || ! grep -q '^tp.lua:1:20: error: cannot use typed parameters when the virtual machine is built without structures' "$tmp/e"; then
    echo "FAIL: typed parameters on bo2 (exit $rc): $(cat "$tmp/e")"; fail=1
fi
# table sizes: the NEWTABLE operands (fb-encoded array, hash) of
# tablesizes.sow.lua, and the refusal on a target without them
"$gsvm" hks compile "$dir/tablesizes.sow.lua" --target sow -o "$tmp/ts" &&
    [ "$("$gsvm" hks list "$tmp/ts" | grep NEWTABLE | cut -f5 | head -4 | tr '\n' ' ')" = \
        "0 10 4 1 0 3 2 16 1 3 3 0 " ] ||
    { echo "FAIL: table sizes: $("$gsvm" hks list "$tmp/ts" | grep NEWTABLE)"; fail=1; }
(cd "$dir" && "$gsvm" hks compile tablesizes.sow.lua --target bo2 -o "$tmp/ts") 2>"$tmp/e"
[ $? = 1 ] && grep -q "^tablesizes.sow.lua:3:17: error: unexpected symbol near ':' (table sizes" "$tmp/e" ||
    { echo "FAIL: table sizes on bo2: $(cat "$tmp/e")"; fail=1; }
# stdin, stdout and --chunkname
printf 'return 1\n' | "$gsvm" hks compile - --target sow -o - >"$tmp/s" 2>"$tmp/e" &&
    "$gsvm" hks list "$tmp/s" | grep -q '"=stdin"' || { echo "FAIL: - to -o -"; fail=1; }
printf 'return 1\n' >"$tmp/p.lua"
"$gsvm" hks compile "$tmp/p.lua" --chunkname @game/p.lua -o "$tmp/p" &&
    "$gsvm" hks list "$tmp/p" | grep -q '"@game/p.lua"' || { echo "FAIL: --chunkname"; fail=1; }
# usage errors exit 2; a source that does not compile exits 1 naming
# file:line:col (stdin as "stdin") and writes nothing to -o -
for bad in "--target nosuch" "--debug bogus" "--endian middle" "--size-t 5" "--format 12" \
    "--number float16" "--profile nosuch" "--hash-debug t8"; do
    # shellcheck disable=SC2086
    "$gsvm" hks compile "$tmp/p.lua" $bad -o "$tmp/p" 2>/dev/null
    [ $? = 2 ] || { echo "FAIL: $bad is not a usage error"; fail=1; }
done
"$gsvm" hks compile "$tmp/p.lua" 2>/dev/null
[ $? = 2 ] || { echo "FAIL: a missing -o is not a usage error"; fail=1; }
printf 'local a = 1
local x = = 1
' | "$gsvm" hks compile - -o - >"$tmp/so" 2>"$tmp/e"
rc=$?
[ $rc = 1 ] && [ ! -s "$tmp/so" ] &&
    [ "$(cat "$tmp/e")" = "stdin:2:11: error: unexpected symbol near '='" ] ||
    { echo "FAIL: a stdin syntax error (exit $rc): $(cat "$tmp/e")"; fail=1; }
printf 'x = 1
function f(
' >"$tmp/q.lua"
(cd "$tmp" && "$gsvm" hks compile ./q.lua -o "$tmp/q") 2>"$tmp/e"
[ $? = 1 ] && grep -q "^\./q\.lua:[0-9]*:[0-9]*: error: " "$tmp/e" && [ ! -e "$tmp/q" ] ||
    { echo "FAIL: a file's error names the path as given: $(cat "$tmp/e")"; fail=1; }
"$gsvm" hks compile "$tmp/nosuch.lua" -o "$tmp/q" 2>"$tmp/e"
[ $? = 1 ] && grep -q 'nosuch.lua: error: cannot open' "$tmp/e" ||
    { echo "FAIL: a missing source: $(cat "$tmp/e")"; fail=1; }
# the path as given is the source name
(cd "$tmp" && "$gsvm" hks compile ./p.lua -o p2 && "$gsvm" hks list p2) | grep -q '"@./p.lua"' ||
    { echo "FAIL: the source name is not @ and the path as given"; fail=1; }
# scri pack --compile: a flag-0 payload whose body is the compiled chunk
"$gsvm" hks scri pack --compile "$dir/closures.lua" --target bo2 -o "$tmp/s.scri" &&
    "$gsvm" hks scri unpack "$tmp/s.scri" -o "$tmp/body" 2>"$tmp/e" &&
    grep -q 'flag 0 (bytecode)' "$tmp/e" &&
    "$gsvm" hks compile "$dir/closures.lua" --target bo2 -o "$tmp/direct" &&
    cmp -s "$tmp/body" "$tmp/direct" || { echo "FAIL: scri pack --compile"; fail=1; }
exit $fail
