// expect-error: 3:33: Name not defined within scope
default {
    state_entry() { integer a = b; }
}
