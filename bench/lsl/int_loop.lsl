// Integer loop: 3,000,000 rounds of arithmetic and a comparison.
default
{
    state_entry()
    {
        integer i = 0;
        integer sum = 0;
        while (i < 3000000)
        {
            sum = sum + i * 3 - 7;
            i = i + 1;
        }
        llOwnerSay((string)sum);
    }
}
