// expect-error: 3:38: Type mismatch
default {
    state_entry() { integer a = 4; a /= 2.0; }
}
