#!/bin/sh
# Nesting as deep as Second Life accepts (its parser stack holds 10,000
# entries): generated scripts nesting each construct LSL_MAX_NESTING (10,000)
# levels deep must compile and run under both ABIs, with the caller's stack
# cut to 256 KB (`ulimit -s`; under ASan frames are larger still), and one
# level more must be refused with FILE:LINE:COL: error: ... nested too deeply.
# Needs $GSVM_BIN.
set -u
: "${GSVM_BIN:?set GSVM_BIN to the gsvm binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
N=10000

# gen SHAPE DEPTH: prints a script whose default state_entry says the value
# of its deep expression or statement (the expected value is known per shape).
gen() {
    awk -v shape="$1" -v n="$2" 'function rep(s, k,  r) { r = ""; while (k-- > 0) r = r s; return r }
    BEGIN {
        print "integer x = 7;"
        print "default { state_entry() {"
        print "integer n = 0; integer a;"
        if (shape == "elseif") {
            for (i = 0; i < n; i++)
                printf "%sif (x == %d) n = %d;\n", (i ? "else " : ""), i + 7 - n + 1, i + 1
        } else if (shape == "blocks") {
            printf "%s n = %d; %s\n", rep("{", n), n, rep("}", n)
        } else if (shape == "ifbodies") {
            printf "%s n = %d;\n", rep("if (x) ", n), n
        } else if (shape == "whilebodies") {
            printf "%s n += 1;\n", rep("while (x-- > 0) ", n)
        } else if (shape == "parens") {
            printf "n = %s%d%s;\n", rep("(", n), n, rep(")", n)
        } else if (shape == "plus") {
            printf "n = 0%s;\n", rep(" + 1", n)
        } else if (shape == "rightplus") {
            printf "n = %s1%s;\n", rep("1 + (", n - 1), rep(")", n - 1)
        } else if (shape == "not") {
            printf "n = %s%d;\n", rep("!", n), 5
        } else if (shape == "assign") {
            printf "n = %s%d;\n", rep("a = ", n - 1), n
        } else if (shape == "calls") {
            printf "n = %s%d%s;\n", rep("llAbs(", n), n, rep(")", n)
        } else if (shape == "lists") {
            printf "n = %s%d%s;\n", rep("llList2Integer([", n / 2), n, rep("], 0)", n / 2)
        } else if (shape == "vectors") {
            printf "float f = %s%d%s; n = (integer)f;\n", rep("llVecMag(<0, 0, ", n / 2), n, rep(">)", n / 2)
        }
        print "llOwnerSay((string)n);"
        print "} }"
    }'
}

# The value each shape's script says, at depth N.
want() {
    case $1 in
    elseif) echo $N ;;
    blocks | ifbodies | parens | plus | rightplus | assign | calls | lists | vectors) echo $N ;;
    whilebodies) echo 0 ;; # x runs out before the innermost loop
    not) echo 1 ;; # an even number of ! on 5
    esac
}

check() { # NAME COND: counts a pass or a failure
    if [ "$2" = 1 ]; then
        passed=$((passed + 1))
        echo "ok   $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1"
        sed 's/^/    /' "$tmp/err" | head -n 5
    fi
}

for shape in elseif blocks ifbodies whilebodies parens plus rightplus not assign calls lists vectors; do
    gen $shape $N >"$tmp/$shape.lsl"
    for abi in 2 3; do
        case $abi:$shape in # ABI 2 has neither ! nor these functions
        2:not | 2:calls | 2:lists | 2:vectors) continue ;;
        esac
        (ulimit -s 256 && "$GSVM_BIN" lsl run "$tmp/$shape.lsl" --no-cache --abi $abi \
            --max-instructions 100000000) >"$tmp/out" 2>"$tmp/err"
        rc=$?
        ok=0 note=
        [ $rc -eq 0 ] && grep -q "\"args\": *\[\"$(want $shape)\"\]" "$tmp/out" && ok=1
        # ABI 3 counts the code in the script's 64 KB as Mono does: a script
        # of 10,000 branches does not fit in Second Life either
        if [ $abi = 3 ] && [ $rc -eq 3 ] && grep -q 'error: Stack-Heap Collision' "$tmp/err"; then
            ok=1 note=" (compiled; too big for 64 KB at run time, as in Second Life)"
        fi
        [ $ok = 1 ] || { echo "    exit $rc"; head -c 300 "$tmp/out"; } >>"$tmp/err"
        check "$shape, $N deep, ABI $abi, ulimit -s 256$note" $ok
    done
done

# One level deeper than Second Life's parser allows: a clear error, no crash.
for shape in elseif blocks ifbodies parens plus not calls; do
    gen $shape $((N + 1)) >"$tmp/$shape.lsl"
    (ulimit -s 256 && "$GSVM_BIN" lsl compile "$tmp/$shape.lsl" -o "$tmp/out.fpc") \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok=0
    [ $rc -eq 1 ] && grep -Eq "^$tmp/$shape.lsl:[0-9]+:[0-9]+: error: .*nested too deeply" "$tmp/err" && ok=1
    check "$shape, $((N + 1)) deep: refused" $ok
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
