#!/bin/sh
# make demo: each engine in a screen or two -- what it is, one real run, a
# snapshot or a round trip, one refused input, where to read more.  The parts
# are examples/demo_<engine>.sh; they run in a scratch directory holding
# examples/ (linked) and ../shared (the corpus, when present), with `gsvm` on
# PATH, so every command is shown exactly as a reader would type it.
# Exit 1 when a command exits with another status than the one it should.
GSVM=$(realpath "${1:-build/release/gsvm}") || exit 1
SRC=$(pwd)
SHARED=${GSVM_SHARED_DIR:-$SRC/../shared}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin" "$T/work"
ln -s "$GSVM" "$T/bin/gsvm"
ln -s "$SRC/examples" "$T/work/examples"
[ -d "$SHARED" ] && ln -s "$(realpath "$SHARED")" "$T/shared"
PATH=$T/bin:$PATH
export PATH
: >"$T/failed"
export DEMO_FAILED="$T/failed"

# run [EXIT] 'COMMAND': prints "$ COMMAND", runs it (stderr with stdout; the
# status of a pipeline is that of its first failing command),
# shows a non-zero status as "(exit N)" and records a failure unless the
# status is EXIT (default 0).
run() {
    want=0
    case $1 in [0-9]) want=$1; shift ;; esac
    printf '$ %s\n' "$1"
    bash -o pipefail -c "$1" 2>&1
    rc=$?
    [ "$rc" = 0 ] || echo "(exit $rc)"
    [ "$rc" = "$want" ] || echo "demo: '$1' exited $rc, not $want" >>"$DEMO_FAILED"
    return 0
}
# say TEXT...: a line of explanation.
say() { echo "# $*"; }
corpus() { [ -d ../shared/corpus/"$1" ]; }

cd "$T/work" || exit 1
echo "gsvm runs, inspects and changes game scripts: one C11 library, one command."
run 'gsvm --help'
for part in "$SRC"/examples/demo_*.sh; do
    engine=$(basename "$part" .sh | sed 's/demo_//')
    gsvm --help | grep -q "^  $engine " || continue
    echo
    echo "=== gsvm $engine"
    (. "$part")
done
echo
if [ -s "$T/failed" ]; then
    cat "$T/failed"
    exit 1
fi
echo "All of it: README.md; every verb has --help; make test runs the tests."
