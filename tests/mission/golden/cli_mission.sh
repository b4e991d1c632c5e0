#!/bin/sh
# The `gsvm mission run` contract: exit codes, output lines, --state across
# processes, timeline errors.
G=${GSVM_BIN:?}
pass=0; fail=0
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
expect_rc() { # RC CMD...
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc, want $want: $* ($(cat "$T/err"))"; fi
}
has() { # FILE TEXT
    if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2"; cat "$1"; fi
}

# Scripts that cannot be loaded: exit 1 with a message.
printf 'return {' >"$T/syntax.lua"
expect_rc 1 "$G" mission run "$T/syntax.lua"; has "$T/err" "syntax.lua"
: >"$T/empty.lua"
expect_rc 1 "$G" mission run "$T/empty.lua"
printf '\033Lua' >"$T/binary.lua"
expect_rc 1 "$G" mission run "$T/binary.lua"; has "$T/err" "binary"
printf 'return { on_event = function() end }' >"$T/catchall.lua"
expect_rc 1 "$G" mission run "$T/catchall.lua"; has "$T/err" "on_event is unsupported; use one on_event_<type> callback"
printf 'while true do end' >"$T/forever.lua"
expect_rc 1 "$G" mission run "$T/forever.lua"; has "$T/err" "mission instruction budget exhausted"
expect_rc 1 "$G" mission run "$T/missing.lua"
expect_rc 2 "$G" mission run "$T/x.lua" --role boss

# A state file carries the record from one process to the next.
cat >"$T/count.lua" <<'LUA'
return {
  on_start = function(c) c:set_variable("n", 0) c:start_timer("tick", 500) end,
  on_load = function(c, st) c:set_variable("loads", (st:variable("loads") or 0) + 1) end,
  on_event_session_joined = function(c, st) c:set_variable("n", st:variable("n") + 1) end,
  on_event_session_left = function(c) error("gone") end,
}
LUA
printf '{"event":"session_joined"}\n{"event":"session_joined"}\n' >"$T/two.jsonl"
expect_rc 0 "$G" mission run "$T/count.lua" --state "$T/s.db" --events "$T/two.jsonl"
has "$T/out" '{"committed":{"phase":0,"revision":"3","attempt":"1","faulted":false,"variables":{"n":2},"timers":{"tick":"500"}}}'
expect_rc 0 "$G" mission run "$T/count.lua" --state "$T/s.db" --events "$T/two.jsonl"
has "$T/out" '"variables":{"loads":1,"n":4}'
printf '{"event":"session_left"}\n' >"$T/left.jsonl"
expect_rc 3 "$G" mission run "$T/count.lua" --state "$T/s.db" --events "$T/left.jsonl"
has "$T/out" '{"fault":"[string '"'"'count'"'"']:5: gone"}'
has "$T/out" '"faulted":true'
# Still faulted in the next process; reload_script clears it.
expect_rc 3 "$G" mission run "$T/count.lua" --state "$T/s.db"
printf '{"reload_script":true}\n{"event":"session_joined"}\n' >"$T/reload.jsonl"
expect_rc 0 "$G" mission run "$T/count.lua" --state "$T/s.db" --events "$T/reload.jsonl"
has "$T/out" '"variables":{"loads":3,"n":5}'
# A state file cut short or corrupt is refused, naming the state file (not
# the script); a 0-byte one is a fresh record.
head -c 4500 "$T/s.db" >"$T/cut.db"
expect_rc 1 "$G" mission run "$T/count.lua" --state "$T/cut.db"; has "$T/err" "$T/cut.db: error: "
head -c 40 "$T/s.db" >"$T/short.db"
expect_rc 1 "$G" mission run "$T/count.lua" --state "$T/short.db"
has "$T/err" "$T/short.db: error: state store is corrupt: shorter than SQLite's 100-byte header"
printf 'not a database at all, just some text of a hundred bytes or more, padded out to be long enough, and longer still\n' >"$T/text.db"
expect_rc 1 "$G" mission run "$T/count.lua" --state "$T/text.db"
has "$T/err" "$T/text.db: error: state store is corrupt: no SQLite header"
: >"$T/zero.db"
expect_rc 0 "$G" mission run "$T/count.lua" --state "$T/zero.db"
has "$T/out" '"variables":{"n":0}'

# Timeline errors name the line.
printf '{"advance_ms":1}\n{"event":"no_such_kind"}\n' >"$T/badkind.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/badkind.jsonl"; has "$T/err" "badkind.jsonl:2:1"
printf '{"what":1}\n' >"$T/badline.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/badline.jsonl"
printf '{"host":"maybe"}\n' >"$T/badhost.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/badhost.jsonl"
printf '{"advance_ms":-5}\n' >"$T/badadv.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/badadv.jsonl"
printf '{"slots": 3}' >"$T/badworld.json"
expect_rc 1 "$G" mission run "$T/count.lua" --world "$T/badworld.json"

# -o FILE and the timers line.
printf '{"advance_ms":500}\n' >"$T/adv.jsonl"
expect_rc 0 "$G" mission run "$T/count.lua" --events "$T/adv.jsonl" -o "$T/o.jsonl"
has "$T/o.jsonl" '"timers":{}'
# A larger variable capacity for hosts that need one.
printf 'return { on_start = function(c) for i = 1, 600 do c:set_variable("v" .. i, i) end end }' >"$T/many.lua"
expect_rc 3 "$G" mission run "$T/many.lua"; has "$T/out" "mission variable capacity exceeded"
expect_rc 0 "$G" mission run "$T/many.lua" --max-variables 1000; has "$T/out" '"v600":600'

# Issue 11: bounds and line:column of the timeline, the script size checked first.
printf '{"advance_ms":1}\n{"advance_ms": 9223372036854775807}\n' >"$T/huge.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/huge.jsonl"; has "$T/err" "huge.jsonl:2:16: error:"
has "$T/err" "2^53"
printf '{"advance_ms":1000000000000}\n' >"$T/long.jsonl"
expect_rc 0 "$G" mission run "$T/count.lua" --events "$T/long.jsonl"; has "$T/out" '"n":0'
printf '{"slots":[{"id":"gate","type":4}]}' >"$T/gate.json"
printf '{"event":"object_interacted", "slot": "nope"}\n' >"$T/noslot.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --world "$T/gate.json" --events "$T/noslot.jsonl"
has "$T/err" "noslot.jsonl:1:39: error: unknown slot 'nope'"
printf '{"event":"object_interacted", "slot": 2.5}\n' >"$T/halfslot.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --world "$T/gate.json" --events "$T/halfslot.jsonl"
has "$T/err" "halfslot.jsonl:1:39: error: slot must be"
printf '{"outcome":"committed"}\n' >"$T/nohead.jsonl"
expect_rc 1 "$G" mission run "$T/count.lua" --events "$T/nohead.jsonl"
has "$T/err" "nohead.jsonl:1:12: error: no deferred request is in delivery"
head -c 300000000 /dev/zero >"$T/huge.lua"
expect_rc 1 "$G" mission run "$T/huge.lua"; has "$T/err" "source_too_large"
# Variables print byte for byte.
printf 'return { on_start = function(c) c:set_variable("b", "\\255\\0x") c:set_variable("t", "a\\0b") end }' >"$T/bin.lua"
expect_rc 0 "$G" mission run "$T/bin.lua"; has "$T/out" '"b":{"hex":"ff0078"},"t":"a\u0000b"'
# (A second process on an open state file: test_mission_hostile's test_locked_state.)

# A long timeline costs its lines, not their square: 300,000 timer ticks and
# a bad last line, whose error still names its line and column.  Each
# advance line used to walk the text from the start to find a column it
# would only print on an error (300,000 lines took minutes); `timeout`
# turns such a hang into a failure.
printf 'return { on_start = function(c) c:start_timer("t", 0) end,\n on_event_timer_elapsed = function(c) c:start_timer("t", 0) end }\n' >"$T/ticker.lua"
awk 'BEGIN { for (i = 0; i < 300000; i++) print "{\"advance_ms\":50}"; print "{\"advance_ms\": -1}" }' >"$T/ticks.jsonl"
expect_rc 1 timeout 300 "$G" mission run "$T/ticker.lua" --events "$T/ticks.jsonl"
has "$T/err" "ticks.jsonl:300001:16: error: \"advance_ms\" must be an integer"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
