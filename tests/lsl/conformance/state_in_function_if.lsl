// Conformance: `state X;` in a user function.  Second Life refuses it
// ("Global functions can't change state", invalid/state_in_function.lsl)
// except as the unbraced body of an `if` without else, a hack its wiki
// describes (State, caveats) and scripts use: there the state statement
// returns from the function (a typed one returns its type's default), the
// handler goes on, and the state changes when the handler ends (state_exit,
// then state_entry of the new state).
// ---- check helpers ----
// Each check call site runs exactly once; run.sh counts the call sites and
// requires the script's last line to be "PASS <that count>".
integer gPass;
integer gFail;

checkI(string name, integer got, integer want)
{
    if (got == want)
        ++gPass;
    else
    {
        ++gFail;
        llOwnerSay("FAIL " + name + ": got " + (string)got + " want " + (string)want);
    }
}
// ---- the checks ----
integer gSteps;
integer gExits;

integer leave(integer now)
{
    ++gSteps;
    if (now) state two;
    ++gSteps;
    return 5;
}

stay(integer now)
{
    if (now) state default; // the current state: no change
    ++gSteps;
}

default
{
    state_entry()
    {
        checkI("no change: the function runs on", leave(0), 5);
        checkI("the change returns the type's default", leave(1), 0);
        checkI("the function stopped at the state statement", gSteps, 3);
        ++gSteps;
        checkI("the handler goes on after the function", gSteps, 4);
    }
    state_exit()
    {
        ++gExits;
    }
}

state two
{
    state_entry()
    {
        checkI("state_exit of default ran once", gExits, 1);
        stay(0);
        checkI("a void function runs on", gSteps, 5);
        llOwnerSay("PASS " + (string)gPass);
    }
}
