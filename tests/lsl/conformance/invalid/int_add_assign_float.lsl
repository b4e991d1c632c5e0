// expect-error: 5:11: Type mismatch
// integer += float is refused (only *= compiles, see fault_mixed_compound.lsl).
default {
    state_entry() { integer a;
        a += 1.5;
    }
}
