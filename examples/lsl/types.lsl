default {
    http_response(key id, integer status, list meta, string body) {
        llOwnerSay(llList2CSV(meta) + " " + body);
        llSetPos(<1, 2.5, -3>);
        llOwnerSay("after the forced delay: " + (string)llGetTime());
    }
}
