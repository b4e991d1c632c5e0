# make demo, mission part (sourced by examples/demo.sh, which defines run and say).
say "Sandboxed Lua 5.4 missions whose callbacks are transactions: a callback that"
say "faults or runs out of budget changes nothing (here table.sort of two million numbers)."
run 3 'gsvm mission run examples/mission/sort_bomb.lua --events examples/mission/sort_events.jsonl'
say "The record lives in SQLite: a second process continues the timeline."
run 'gsvm mission run examples/mission/timers.lua --state t.db --events examples/mission/timers_part1.jsonl'
run 'gsvm mission run examples/mission/timers.lua --state t.db --events examples/mission/timers_part2.jsonl'
say "Refused: a script that does not load."
run "printf 'local x =' > syntax.lua"
run 1 'gsvm mission run syntax.lua'
say "More: docs/mission.md (callbacks, effects, timers, the store, recipes)."
