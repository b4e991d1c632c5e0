// List manipulation: a list built element by element, read back by index,
// sorted, searched and sliced, ROUNDS times; the twin of lists.lua.
integer ROUNDS = 2400;
integer N = 500;

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 1; r <= ROUNDS; ++r)
        {
            list l = [];
            integer i;
            for (i = 0; i < N; ++i)
                l += [(i * 7919 + r) % 1000];
            integer s = 0;
            for (i = 0; i < N; ++i)
                s += llList2Integer(l, i);
            list sorted = llListSort(l, 1, TRUE);
            integer found = llListFindList(sorted, [500]);
            list slice = llList2List(sorted, 100, 199);
            total += s + llList2Integer(sorted, 0) + llList2Integer(sorted, N - 1) + found
                + llGetListLength(slice) + llList2Integer(slice, 0);
        }
        llOwnerSay("lists " + (string)total);
    }
}
