// Loops, branches, locals and string building within ABI 2.
integer total = 0;
string log = "";

default
{
    state_entry()
    {
        // Sum 1..10 and build "1,2,...,10".
        integer i = 1;
        string digits = "";
        while (i < 11)
        {
            total += i;
            if (i > 1)
                digits = digits + ",";
            digits += (string)i;
            i++;
        }
        llOwnerSay("sum=" + (string)total + " digits=" + digits);

        // Factorials until they overflow 32 bits (LSL integers wrap).
        integer n = 1;
        integer f = 1;
        while (f > 0)
        {
            f = f * n;
            n = n + 1;
        }
        llOwnerSay("factorials wrap at " + (string)(n - 1) + "! = " + (string)f);
    }

    touch_start(integer num)
    {
        if (num == 1)
        {
            log = log + "one ";
            llSay(0, "a single toucher");
        }
        else if (num > 1)
        {
            log = log + "many ";
            llSay(0, (string)num + " touchers");
        }
        else
            llSay(-1, "nobody?");
        llOwnerSay("log: " + log);
    }
}
