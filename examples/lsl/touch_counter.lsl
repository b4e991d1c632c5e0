// The document's canonical example: a touch counter kept in a persistent
// global, reported with llSay on every touch.
integer count = 0;
string greeting = "Touch me";

default
{
    state_entry()
    {
        llOwnerSay(greeting + "!");
    }

    touch_start(integer total_number)
    {
        count = count + 1;
        llSay(0, "Touched " + (string)count + " time(s) by " + (string)total_number);
    }
}
