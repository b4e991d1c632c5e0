// Beyond the ABI-2 slice (a float): compiled to ABI 3.
default {
    state_entry() {
        float f = 1.5;
        llOwnerSay((string)(f * 2));
    }
}
