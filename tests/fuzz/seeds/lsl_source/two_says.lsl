default { state_entry() { llOwnerSay("hi"); llOwnerSay("there"); } }
