# Sourced by the CLI test scripts (`. tests/cli_test.sh`; ctest runs them from
# the source directory): the gsvm binary ($G), a scratch directory ($T, gone
# at exit, also the XDG cache), pass/fail counts and the checks.  A script
# ends with `cli_test_end`.
G=${GSVM_BIN:?GSVM_BIN not set}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg"
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
# expect RC CMD...: runs CMD, stdout in $T/out, stderr in $T/err
expect() {
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc, want $want: $* ($(head -c 300 "$T/err"))"; fi
}
same() { # same FILE1 FILE2 WHAT
    if cmp -s "$1" "$2"; then ok; else bad "$3"; diff "$1" "$2" | head -10; fi
}
has() { # has FILE TEXT
    if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2 (it has: $(head -c 300 "$1"))"; fi
}
check() { # check CMD...: passes when CMD succeeds
    if "$@"; then ok; else bad "$*"; fi
}
# need PATH...: at the start of a script, when a PATH (corpus data) is absent
# the script is skipped with the reason, and fails under CI=true
need() {
    for p; do
        [ -e "$p" ] && continue
        if [ "${CI:-}" = true ]; then echo "FAIL: $p missing under CI"; echo "0 passed, 1 failed"; exit 1; fi
        echo "skipped: $p not found"; echo "0 passed, 0 failed"; exit 0
    done
}
cli_test_end() {
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ]
}
