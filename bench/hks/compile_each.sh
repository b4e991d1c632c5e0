#!/bin/sh
# usage: compile_each.sh gsvm|luac FILE...: compiles each file in its own
# process (as a user runs the compiler) into a real file,
# $OUTDIR/TOOL.out (overwritten each time: both tools pay for writing
# their output, none for keeping it); exits 1 at the first file that fails.
# $GSVM is the gsvm to run.
tool=$1
shift
out=${OUTDIR:-${TMPDIR:-/tmp}}/$tool.out
for f; do
    if [ "$tool" = luac ]; then
        luac5.1 -o "$out" "$f" || exit 1
    else
        "$GSVM" hks compile "$f" --target sekiro -o "$out" || exit 1
    fi
done
