#!/bin/sh
# Re-runs tools/lsl_builtins.py into a temporary file and compares it with
# the committed src/lsl/builtins.def.  Skips (with the reason) when python3,
# PyYAML or the shared/ definitions are missing; under CI (CI=true) a
# missing shared/ folder is a failure.
src=${GSVM_SOURCE_DIR:-.}
shared=${GSVM_SHARED_DIR:-$src/../shared}
yaml=$shared/data/lsl/lsl_definitions.yaml
if [ ! -f "$yaml" ]; then
    if [ "$CI" = true ]; then
        echo "shared definitions not found at $yaml under CI"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "skipped: $yaml not found"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import yaml' 2>/dev/null; then
    echo "skipped: python3 with PyYAML is not installed (tools/install-deps.sh installs it)"
    echo "0 passed, 0 failed"
    exit 0
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
if ! python3 "$src/tools/lsl_builtins.py" "$yaml" -o "$tmp"; then
    echo "generator failed"
    echo "0 passed, 1 failed"
    exit 1
fi
if diff -u "$src/src/lsl/builtins.def" "$tmp"; then
    echo "builtins.def is up to date"
    echo "1 passed, 0 failed"
else
    echo "src/lsl/builtins.def differs from the generator's output: run python3 tools/lsl_builtins.py"
    echo "0 passed, 1 failed"
    exit 1
fi
