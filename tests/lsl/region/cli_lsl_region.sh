#!/bin/sh
# gsvm lsl region's bad input: each error names the file and line (and
# column where the JSON parser gives one) and exits 1; usage errors exit 2.
. tests/cli_test.sh
W=examples/lsl/region/world.json
cp examples/lsl/region/*.lsl "$T/"

OWNER=a2e76fcd-9360-4f6d-a924-000000000001
# rejected_world NAME WORLD_JSON TEXT: the world is refused (exit 1) with TEXT
rejected_world() {
    printf '%s\n' "$2" >"$T/$1.json"
    expect 1 "$G" lsl region "$T/$1.json" --no-cache
    has "$T/err" "$3"
}
# rejected_timeline NAME LINES TEXT: the example world with this timeline is refused with TEXT
rejected_timeline() {
    printf '%s\n' "$2" >"$T/$1.jsonl"
    expect 1 "$G" lsl region $W --no-cache --events "$T/$1.jsonl"
    has "$T/err" "$3"
}
rejected_world syntax '{"objects": [
  {"id": "a", "owner": }
]}' "syntax.json:2:"
rejected_world owner '{"objects": [{"id": "a", "owner": "nobody"}]}' "owner must be a UUID"
rejected_world missing '{"objects": [{"id": "a", "owner": "'$OWNER'", "scripts": ["missing.lsl"]}]}' "missing.lsl"
printf 'default { state_entry() { integer x = "no"; } }\n' >"$T/broken.lsl"
rejected_world broken '{"objects": [{"id": "a", "owner": "'$OWNER'", "scripts": ["broken.lsl"]}]}' "broken.lsl:1:"
rejected_world twice '{"objects": [{"id": "a", "owner": "'$OWNER'"}, {"id": "a", "owner": "'$OWNER'"}]}' "used twice"

rejected_timeline t1 '{"advance_ms": 10}
{"teleport": {}}' 't1.jsonl:2:1: error: unknown timeline line "teleport"'
rejected_timeline t2 '{"touch": {"object": "nobody", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c"}}' \
    "t2.jsonl:1:1: error: no object or link 'nobody'"
rejected_timeline t3 '{"chat": {"channel": "five"}}' "t3.jsonl:1:1"
rejected_timeline t4 '{"dataserver": {"request": "7c1e2a44-0000-4000-8000-00000000a11c", "data": "x"}}' \
    "no pending host operation"
rejected_timeline t5 '{"event": {"object": "door", "name": "touch_start", "args": ["x"]}}' "t5.jsonl:1:1"
rejected_timeline t6 '{"advance_ms": -1}' "t6.jsonl:1:1"
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

# an ABI-2 script (it fits the document's slice) runs in the region and its
# fault carries line:col from the line table (here also when compiled to .fpc
# first: a program file of either ABI may stand in the world)
cat >"$T/grow.lsl" <<'LSL'
string s = "x";
default {
    touch_start(integer d) {
        llOwnerSay("growing");
        while (d) {
            s = s + s;
        }
    }
}
LSL
"$G" lsl compile "$T/grow.lsl" -o "$T/grow.fpc" 2>"$T/abi"
has "$T/abi" "ABI 2"
printf '{"objects": [{"id": "g", "owner": "%s", "scripts": ["grow.lsl", "grow.fpc"]}]}\n' $OWNER >"$T/grow.json"
printf '{"touch": {"object": "g", "avatar": "7c1e2a44-0000-4000-8000-00000000a11c"}}\n' >"$T/grow.jsonl"
expect 3 "$G" lsl region "$T/grow.json" --no-cache --events "$T/grow.jsonl"
has "$T/out" '{"object":"g","script":"grow.lsl","host":"llOwnerSay","args":["growing"]}'
has "$T/out" '{"object":"g","script":"grow.lsl","fault":"string too long: 33554432 bytes is over the 16777216-byte limit","ip":6,"line":6,"col":19}'
# the .fpc carries its line table (format 2): its fault names the line too
has "$T/out" '{"object":"g","script":"grow.fpc","fault":"string too long: 33554432 bytes is over the 16777216-byte limit","ip":6,"line":6,"col":19}'

cli_test_end
