#!/bin/sh
# usage: compile_each.sh gsvm|luac FILE...: compiles each file in its own
# process (as a user runs the compiler), output to /dev/null; exits 1 at
# the first file that fails.  $GSVM is the gsvm to run.
tool=$1
shift
for f; do
    if [ "$tool" = luac ]; then
        luac5.1 -o /dev/null "$f" || exit 1
    else
        "$GSVM" hks compile "$f" --target sekiro -o /dev/null || exit 1
    fi
done
