// expect-error: 4:5: Global functions can't change state
go()
{
    state two;
}
default { state_entry() { go(); } }
state two { state_entry() { } }
