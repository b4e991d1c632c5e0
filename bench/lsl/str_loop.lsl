// String building: 3,000 strings, each built from 100 integers cast to text.
default
{
    state_entry()
    {
        integer n = 0;
        string last;
        while (n < 3000)
        {
            string s = "";
            integer i = 0;
            while (i < 100)
            {
                s = s + (string)i + ",";
                i = i + 1;
            }
            last = s;
            n = n + 1;
        }
        llOwnerSay(last);
    }
}
