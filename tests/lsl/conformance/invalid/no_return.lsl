// expect-error: 2:9: Not all code paths return a value
integer pick(integer x)
{
    if (x) return 1;
    else if (x > 5) return 2;
}
default { state_entry() { pick(1); } }
