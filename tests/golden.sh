#!/bin/sh
# golden.sh EXPECTED EXIT_CODE COMMAND ARGS...
# Runs COMMAND, compares its stdout with the file EXPECTED and its exit code
# with EXIT_CODE.  With GSVM_UPDATE_GOLDEN=1 it rewrites EXPECTED instead.
expected=$1; want_rc=$2; shift 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$@" >"$out"; rc=$?
if [ "${GSVM_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$out" "$expected"; echo "updated $expected"
fi
status=0
if [ "$rc" != "$want_rc" ]; then
    echo "exit code $rc, want $want_rc: $*"; status=1
fi
if ! diff -u "$expected" "$out"; then
    echo "output differs from $expected"; status=1
fi
[ $status = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
