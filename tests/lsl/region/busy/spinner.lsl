// Loops forever from the start: it must not delay anybody else's events.
integer spins = 0;

default
{
    state_entry()
    {
        while (TRUE)
            spins++;
    }
}
