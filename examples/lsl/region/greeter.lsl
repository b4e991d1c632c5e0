// A greeter: asks the host for the toucher's name (a dataserver operation)
// and only greets when the answer comes.
key query;

default
{
    touch_start(integer n)
    {
        query = llRequestAgentData(llDetectedKey(0), DATA_NAME);
    }

    dataserver(key id, string data)
    {
        if (id == query)
            llOwnerSay("hello, " + data);
    }
}
