#!/bin/sh
# make demo: the mission runtime.  Mission scripts are Lua 5.4 chunks whose
# callbacks run as transactions; `gsvm mission run` plays a timeline against
# one and prints its requests, their outcomes, faults and the committed record.
GSVM=${GSVM:-build/release/gsvm}
EX=examples/mission
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
show() { echo; echo "\$ gsvm $*"; "$GSVM" "$@"; echo "(exit $?)"; }

echo "-- Recipe 'checkpoint wipe': a private activity, the fireteam dies, a checkpoint restart starts attempt 2"
show mission run $EX/checkpoint_wipe.lua --world $EX/checkpoint_world.json --events $EX/checkpoint_events.jsonl

echo; echo "-- Delivery: one request at a time; accept, refuse, stall (2 s), drop, pending (17 s), unpublished (60 s)"
show mission run $EX/delivery.lua --events $EX/delivery_events.jsonl

echo; echo "-- A fault discards the callback's changes; it survives reopen; reload_script clears it"
show mission run $EX/fault_reload.lua --events $EX/fault_events.jsonl

echo; echo "-- table.sort of two million numbers is charged to the budget, so it faults at once"
show mission run $EX/sort_bomb.lua --events $EX/sort_events.jsonl

echo; echo "-- Recipe 'step flow': found by the file-stem rule, progress kept in variables, no replay after reopen"
show mission run $EX/root --world $EX/root/world_step_flow.json --events $EX/root/events_step_flow.jsonl

echo; echo "-- initial_state: on_start waits for its publication; a player who joined before is delivered after it"
show mission run $EX/vault_door.lua --world $EX/vault_world.json --events $EX/vault_events.jsonl

echo; echo "-- The record lives in SQLite: a second process continues it through on_load"
show mission run $EX/timers.lua --state "$T/timers.db" --events $EX/timers_part1.jsonl
show mission run $EX/timers.lua --state "$T/timers.db" --events $EX/timers_part2.jsonl
echo; echo "-- A host that answers later (examples/mission/async_host.c), built against the installed library"
# Installed into a temporary prefix and compiled with the installed gsvm.pc,
# as an embedder outside this tree would.
BUILD=$(dirname "$GSVM")
if cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null 2>"$T/install.err"; then
    PC=$(dirname "$(find "$T/prefix" -name gsvm.pc | head -n 1)")
    LIBDIR=$(PKG_CONFIG_PATH="$PC" pkg-config --variable=libdir gsvm)
    # (-rpath: the prefix is not on the loader's path when libgsvm.so is there)
    if cc -o "$T/async_host" $EX/async_host.c -Wl,-rpath,"$LIBDIR" \
        $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs --static gsvm) 2>"$T/cc.err"; then
        echo; echo "\$ cc -o async_host $EX/async_host.c \$(pkg-config --cflags --libs --static gsvm) && ./async_host"
        "$T/async_host"; echo "(exit $?)"
    else
        echo "(cannot compile against the installed library:)"; head -n 5 "$T/cc.err"
    fi
else
    echo "(cannot install $BUILD:)"; head -n 5 "$T/install.err"
fi
exit 0
