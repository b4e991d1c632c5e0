#!/bin/sh
# The programs hksc refuses for a target (../shared/corpus/hks-hksc/rejected):
# gsvm hks compile refuses them too, exit 1, on the same line, with a message
# that says what and why.
gsvm=${GSVM_BIN:?}
SRC=${GSVM_SOURCE_DIR:-$(pwd)}
. "$SRC/tests/cli_test.sh" # need, and the scratch directory $T
corpus=${GSVM_SHARED_DIR:-$SRC/../shared}/corpus/hks-hksc
need "$corpus/rejected"
case $gsvm in /*) ;; *) gsvm=$(pwd)/$gsvm ;; esac
fail=0; n=0
for err in "$corpus"/rejected/*.err; do
    base=$(basename "$err" .err)          # TARGET.VARIANT.NAME
    dir=${base%%.*}; rest=${base#*.}; variant=${rest%%.*}; name=${rest#*.}
    case $dir in sekiro-be) t=sekiro ;; sow-le) t=sow ;; iw6) t=ghosts ;;
        doubles-be) t=doubles ;; t6) t=bo2 ;; t7) t=bo3 ;; esac
    case $variant in debug) d=full ;; profile) d=profile ;; strip) d=none ;; esac
    line=$(sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p' "$err")
    (cd "$corpus/src" && "$gsvm" hks compile "$name.lua" --target $t --debug $d \
        -o "$T/out") >"$T/msg" 2>&1
    rc=$?
    n=$((n + 1))
    # hksc's words that say what is refused, which ours must carry too
    case $(cat "$err") in
        *hstructure*) want='hstructure.*structure' ;;
        *typed*) want='typed local.*structures' ;;
        *) want="near '<'" ;;
    esac
    if [ $rc != 1 ]; then
        echo "FAIL: $base: exit $rc, want 1"; fail=1
    elif ! grep -Eq "^$name\.lua:$line:[0-9]+: error: .*$want" "$T/msg"; then
        echo "FAIL: $base: want line $line and /$want/, got: $(cat "$T/msg")"; fail=1
    fi
done
echo "rejected: $n programs checked"
exit $fail
