#!/bin/sh
# The CLI's common contract: --help everywhere, exit 2 on usage errors.
pass=0; fail=0
expect() { # expect RC CMD...
    want=$1; shift
    "$@" >/dev/null 2>&1; rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "exit $rc, want $want: $*"; fi
}
expect 0 "$GSVM_BIN" --help
expect 0 "$GSVM_BIN" --version
expect 2 "$GSVM_BIN"
expect 2 "$GSVM_BIN" no-such-engine
"$GSVM_BIN" --version | grep -q '^gsvm [0-9]' && pass=$((pass+1)) || { fail=$((fail+1)); echo "bad --version"; }
for engine in $("$GSVM_BIN" --help | awk '/^engines:/{on=1;next} on&&NF{print $1} on&&!NF{on=0}'); do
    expect 0 "$GSVM_BIN" "$engine" --help
    expect 2 "$GSVM_BIN" "$engine" no-such-verb
    for verb in $("$GSVM_BIN" "$engine" --help | awk '/^verbs:/{on=1;next} on&&NF{print $1} on&&!NF{on=0}'); do
        expect 0 "$GSVM_BIN" "$engine" $verb --help
        expect 2 "$GSVM_BIN" "$engine" $verb --no-such-option
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
