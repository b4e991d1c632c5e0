// A tour of ABI 3: every type, user functions with recursion, jump/labels,
// do-while, vectors and rotations, lists, a timer on simulation time,
// llSleep, listens with filters, and a state change (state_exit, then
// state_entry of the new state; the timer is kept, listens are cleared).
integer count = 0;
float scale = 0.5;
string greeting = "hello";
key owner = "00000000-0000-0000-0000-000000000001";
vector home = <1.0, 2.0, 3.0>;
rotation turn = <0.0, 0.0, 0.70710677, 0.70710677>;
list log = [1, 2.5, "three", <4, 5, 6>];

integer fact(integer n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

string repeat(string s, integer n)
{
    string out;
    do {
        out += s;
    } while (--n > 0);
    return out;
}

integer sum_to(integer n)
{
    integer i = 0;
    integer total;
    @again;
    total += i;
    if (++i <= n)
        jump again;
    return total;
}

default
{
    state_entry()
    {
        llOwnerSay(greeting + " " + (string)fact(10) + " " + (string)sum_to(100));
        llOwnerSay(repeat("ab", 3) + " " + (string)(home * scale) + " " + (string)(home * turn));
        llOwnerSay((string)(home % <0, 0, 1>) + " " + (string)(home * home) + " " + (string)(-7 / 2) + " " + (string)(-7 % 3));
        log += [owner, turn];
        llOwnerSay(llList2CSV(log) + " | " + (string)llGetListLength(log) + " " + (string)(log == [1, 2]));
        llOwnerSay((string)((integer)"0x1A") + " " + (string)((float)"2.5e1") + " " + (string)((vector)"<1,2,3>") + " " + (string)(1.0 / 3));
        if (owner) llOwnerSay("owner is a valid key");
        llListen(7, "", NULL_KEY, "");
        llSetTimerEvent(2.0);
    }
    listen(integer channel, string name, key id, string message)
    {
        llSay(0, name + " said " + message + " on " + (string)channel);
        if (message == "go")
            state counting;
    }
    timer()
    {
        count++;
        llOwnerSay("tick " + (string)count + " at " + (string)llGetTime());
    }
    state_exit()
    {
        llOwnerSay("leaving default after " + (string)count + " ticks");
    }
}

state counting
{
    state_entry()
    {
        llOwnerSay("counting; free memory " + (string)(llGetFreeMemory() > 0));
        llSleep(1.5);
        llOwnerSay("slept until " + (string)llGetTime());
    }
    timer()
    {
        count++;
        llOwnerSay("tick " + (string)count);
        if (count >= 4)
        {
            llSetTimerEvent(0);
            llOwnerSay("done: " + (string)count);
        }
    }
    touch_start(integer n)
    {
        llOwnerSay("touched by " + (string)n);
        integer zero;
        llOwnerSay((string)(n / zero));
    }
}
