// expect-error: 3:32: Function call mismatches type or number of arguments
default {
    state_entry() { llOwnerSay(1); }
}
