// expect-error: 3:34: Lists can't be included in lists
default {
    state_entry() { list l = [1, [2]]; }
}
