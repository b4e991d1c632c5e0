#!/bin/sh
# gsvm lsl region's bad input: each error names the file and line (and
# column where the JSON parser gives one) and exits 1; usage errors exit 2.
G=${GSVM_BIN:?GSVM_BIN not set}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
expect() {
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc, want $want: $* ($(head -c 300 "$T/err"))"; fi
}
has() { if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2 (it has: $(head -c 300 "$1"))"; fi; }
W=examples/lsl/region/world.json
cp examples/lsl/region/*.lsl "$T/"

printf '{"objects": [\n  {"id": "a", "owner": }\n]}\n' >"$T/syntax.json"
expect 1 "$G" lsl region "$T/syntax.json" --no-cache
has "$T/err" "syntax.json:2:"
printf '{"objects": [{"id": "a", "owner": "nobody"}]}\n' >"$T/owner.json"
expect 1 "$G" lsl region "$T/owner.json" --no-cache
has "$T/err" "owner must be a UUID"
printf '{"objects": [{"id": "a", "owner": "a2e76fcd-9360-4f6d-a924-000000000001", "scripts": ["missing.lsl"]}]}\n' >"$T/missing.json"
expect 1 "$G" lsl region "$T/missing.json" --no-cache
has "$T/err" "missing.lsl"
printf 'default { state_entry() { integer x = "no"; } }\n' >"$T/broken.lsl"
printf '{"objects": [{"id": "a", "owner": "a2e76fcd-9360-4f6d-a924-000000000001", "scripts": ["broken.lsl"]}]}\n' >"$T/broken.json"
expect 1 "$G" lsl region "$T/broken.json" --no-cache
has "$T/err" "broken.lsl:1:"
printf '{"objects": [{"id": "a", "owner": "a2e76fcd-9360-4f6d-a924-000000000001"}, {"id": "a", "owner": "a2e76fcd-9360-4f6d-a924-000000000001"}]}\n' >"$T/twice.json"
expect 1 "$G" lsl region "$T/twice.json" --no-cache
has "$T/err" "used twice"

printf '{"advance_ms": 10}\n{"teleport": {}}\n' >"$T/t1.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t1.jsonl"
has "$T/err" "t1.jsonl:2:1: error: unknown timeline line \"teleport\""
printf '{"touch": {"object": "nobody", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c"}}\n' >"$T/t2.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t2.jsonl"
has "$T/err" "t2.jsonl:1:1: error: no object or link 'nobody'"
printf '{"chat": {"channel": "five"}}\n' >"$T/t3.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t3.jsonl"
has "$T/err" "t3.jsonl:1:1"
printf '{"dataserver": {"request": "7c1e2a44-0000-4000-8000-00000000a11c", "data": "x"}}\n' >"$T/t4.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t4.jsonl"
has "$T/err" "no pending host operation"
printf '{"event": {"object": "door", "name": "touch_start", "args": ["x"]}}\n' >"$T/t5.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t5.jsonl"
has "$T/err" "t5.jsonl:1:1"
printf '{"advance_ms": -1}\n' >"$T/t6.jsonl"
expect 1 "$G" lsl region $W --no-cache --events "$T/t6.jsonl"
expect 2 "$G" lsl region $W --fps 0
expect 2 "$G" lsl region
expect 0 "$G" lsl region --help

# the generic event line and an HTTP answer reach the scripts
cat >"$T/web.lsl" <<'LSL'
key req;
default {
    on_rez(integer p) { req = llHTTPRequest("http://example.org/" + (string)p, [], ""); }
    http_response(key id, integer status, list meta, string body) {
        if (id == req) llOwnerSay((string)status + " " + body);
    }
}
LSL
printf '{"objects": [{"id": "w", "owner": "a2e76fcd-9360-4f6d-a924-000000000001", "scripts": ["web.lsl"]}]}\n' >"$T/web.json"
printf '{"event": {"object": "w", "name": "on_rez", "args": [7]}}\n{"advance_ms": 100}\n{"http_response": {"request": "00009e51-0000-4000-8000-000000000001", "status": 200, "body": "ok"}}\n' >"$T/web.jsonl"
expect 0 "$G" lsl region "$T/web.json" --no-cache --events "$T/web.jsonl"
has "$T/out" '"host":"llHTTPRequest","args":["http://example.org/7",[],""],"request":"00009e51-0000-4000-8000-000000000001"}'
has "$T/out" '"args":["200 ok"]'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
