#!/bin/sh
# The CLI's common contract: --help everywhere, exit 2 on usage errors.
. tests/cli_test.sh
expect 0 "$G" --help
expect 0 "$G" --version
expect 2 "$G"
expect 2 "$G" no-such-engine
"$G" --version | grep -q '^gsvm [0-9]' && ok || bad "bad --version"
for engine in $("$G" --help | awk '/^engines:/{on=1;next} on&&NF{print $1} on&&!NF{on=0}'); do
    expect 0 "$G" "$engine" --help
    expect 2 "$G" "$engine" no-such-verb
    for verb in $("$G" "$engine" --help | awk '/^verbs:/{on=1;next} on&&NF{print $1} on&&!NF{on=0}'); do
        expect 0 "$G" "$engine" $verb --help
        expect 2 "$G" "$engine" $verb --no-such-option
    done
done
cli_test_end
