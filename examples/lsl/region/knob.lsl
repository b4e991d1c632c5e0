// The knob, link 2 of the door: hears the door through link messages.
default
{
    link_message(integer sender, integer num, string str, key id)
    {
        llOwnerSay("link " + (string)llGetLinkNumber() + " got " + str + " #" + (string)num
                   + " from link " + (string)sender);
    }
}
