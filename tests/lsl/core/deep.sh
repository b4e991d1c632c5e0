#!/bin/sh
# Nesting as deep as Second Life accepts (its parser stack holds 10,000
# entries): generated scripts nesting each construct LSL_MAX_NESTING (10,000)
# levels deep must compile and run under both ABIs on the calling thread,
# with its stack cut to 256 KB (`ulimit -s`; under ASan frames are larger
# still; no pass of the front end recurses), and one level more must be
# refused with FILE:LINE:COL: error: ... nested too deeply.
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
        if (shape ~ /^user/) # g(v, 1) and g(1, v) are v
            print "integer g(integer a, integer b) { return a + b - 1; }"
        # a chain of n binary operators OP, left to right: its first operand
        # and the others (the value of each chain is in want)
        split("+ 0 1 - 10000 1 * 1 1 / 7 1 % 7 100 == 1 1 != 0 0 < 0 1 <= 1 1 > 1 0 >= 1 1 " \
              "&& 1 1 || 1 0 & 7 7 | 0 7 ^ 7 7 << 1 0 >> 1 0", ops, " ")
        for (k = 1; k in ops; k += 3)
            chain["op" ops[k]] = k
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
        } else if (shape in chain) {
            k = chain[shape]
            printf "n = %s%s;\n", ops[k + 1], rep(" " ops[k] " " ops[k + 2], n)
        } else if (shape == "mixed") { # each precedence level in turn, left to right
            printf "n = 1%s;\n", rep(" * 1 + 0 - 0 << 0 | 0 ^ 0 & 1 != 0 == 1 > 0 && 1 || 0", n / 12)
        } else if (shape == "casts") { # (integer)( and (float)( in turn: two levels each
            printf "n = %s", n % 2 ? "-" : ""
            for (i = 0; i < int(n / 2); i++)
                printf "%s(", i % 2 ? "(float)" : "(integer)"
            printf "5%s;\n", rep(")", int(n / 2))
        } else if (shape == "neg") {
            printf "n = %s5;\n", rep("- ", n)
        } else if (shape == "bitnot") {
            printf "n = %s5;\n", rep("~", n)
        } else if (shape == "prefixmix") { # - ! ~ in turn
            printf "n = %s5;\n", rep("- ! ~ ", int(n / 3))
        } else if (shape == "userfirst") { # the deep call in the first argument
            printf "n = %s5%s;\n", rep("g(", n), rep(", 1)", n)
        } else if (shape == "userlast") { # and in the last
            printf "n = %s5%s;\n", rep("g(1, ", n), rep(")", n)
        } else if (shape == "listfirst") { # a list whose first item nests
            printf "n = %s5%s;\n", rep("llList2Integer([", n / 2), rep(", 1], 0)", n / 2)
        } else if (shape == "vecfirst") { # the deep component first (the cast: one level)
            printf "n = (integer)%s5%s;\n", rep("llVecMag(<", int((n - 1) / 2)), rep(", 0, 0>)", int((n - 1) / 2))
        } else if (shape == "rotations") { # in the last component, where `>` may close it
            printf "rotation q = <0, 0, 0, %s5%s>; n = (integer)q.s;\n", rep("(", n - 1), rep(")", n - 1)
        } else if (shape == "dobodies") {
            printf "%s n = %d; %s\n", rep("do ", n), n, rep("while (0); ", n)
        } else if (shape == "forbodies") {
            printf "%s n += 1;\n", rep("for (a = 0; a < 1; a++) ", n)
        } else if (shape == "elsebodies") { # each body is an else of an if
            printf "%s n = %d;\n", rep("if (!x) ; else ", n), n
        } else if (shape == "blockexpr") { # blocks and parentheses share the limit
            printf "%s n = %s%d%s; %s\n", rep("{", n / 2), rep("(", n / 2), n, rep(")", n / 2), rep("}", n / 2)
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
    dobodies | elsebodies | blockexpr | "op+") echo $N ;;
    whilebodies) echo 0 ;; # x runs out before the innermost loop
    not | forbodies) echo 1 ;; # an even number of ! on 5; the innermost loop's body runs once
    "op-") echo 0 ;;
    "op*" | "op==" | "op<=" | "op>" | "op>=" | "op&&" | "op||" | "op<<" | "op>>" | mixed) echo 1 ;;
    "op!=") echo 0 ;;
    "op<") echo 0 ;; # 0 < 1 is 1, then 1 < 1 is 0, and so on: 10,000 of them
    "op/" | "op%" | "op&" | "op|" | "op^") echo 7 ;;
    casts | neg | bitnot | userfirst | userlast | listfirst | vecfirst | rotations) echo 5 ;;
    prefixmix) echo 0 ;; # 3,333 times - ! ~: ~5 is -6, !-6 is 0, -0 is 0; then ~0 is -1, !-1 is 0 ...
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

shapes="elseif blocks ifbodies whilebodies dobodies forbodies elsebodies parens plus rightplus not
neg bitnot prefixmix casts assign calls userfirst userlast lists listfirst vectors vecfirst rotations mixed
blockexpr op+ op- op* op/ op% op== op!= op< op<= op> op>= op&& op|| op& op| op^ op<< op>>"
# the file of a shape (op+ is op_2b.lsl)
file() { printf '%s/%s.lsl' "$tmp" "$(printf %s "$1" | od -An -tx1 | tr -d ' \n')"; }

for shape in $shapes; do
    f=$(file "$shape")
    gen "$shape" $N >"$f"
    for abi in 2 3; do
        case $abi:$shape in # ABI 2 has integer + - * < > == only, no user functions, do or for
        2:elseif | 2:blocks | 2:ifbodies | 2:whilebodies | 2:parens | 2:plus | 2:rightplus | 2:assign) ;;
        2:op+ | 2:op- | 2:op\* | 2:op== | 2:op\> | 2:blockexpr) ;;
        2:*) continue ;;
        esac
        (ulimit -s 256 && "$GSVM_BIN" lsl run "$f" --no-cache --abi $abi \
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
for shape in elseif blocks ifbodies whilebodies dobodies forbodies elsebodies parens plus not neg bitnot casts \
    calls userfirst userlast op- op\* op/ op% op== op!= op\< op\<= op\> op\>= op\&\& op\|\| op\& op\| op^ op\<\< op\>\>; do
    f=$(file "$shape")
    gen "$shape" $((N + 1)) >"$f"
    (ulimit -s 256 && "$GSVM_BIN" lsl compile "$f" -o "$tmp/out.fpc") \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok=0
    [ $rc -eq 1 ] && grep -Eq "^$f:[0-9]+:[0-9]+: error: .*nested too deeply" "$tmp/err" && ok=1
    check "$shape, $((N + 1)) deep: refused" $ok
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
