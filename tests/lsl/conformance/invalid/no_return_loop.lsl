// expect-error: 3:7: Not all code paths return a value
// a loop may not run: its return does not count
float f()
{
    while (TRUE) return 1.0;
}
default { state_entry() { f(); } }
