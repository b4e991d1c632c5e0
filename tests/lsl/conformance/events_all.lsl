// Conformance: every LSL event of the definitions file (but state_entry
// and state_exit, which only state changes run) is dispatched from
// events_all.events.jsonl with typed arguments of each kind (integer, float,
// string, key, vector, rotation, list), in the order given; each handler logs
// its arguments as (string) casts them, and on_rez(-1) compares the log.
// The script says "PASS <n>" when every check holds.
// ---- check helpers (the same in every conformance script) ----
// Each check call site runs exactly once; run.sh counts the call sites and
// requires the script's last line to be "PASS <that count>".
integer gPass;
integer gFail;

fail(string name, string got, string want)
{
    ++gFail;
    llOwnerSay("FAIL " + name + ": got " + got + " want " + want);
}

checkI(string name, integer got, integer want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkF(string name, float got, float want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

// approximately: relative tolerance 1e-5
checkA(string name, float got, float want)
{
    if (llFabs(got - want) <= 0.00001 * (1.0 + llFabs(want)))
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkS(string name, string got, string want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, "\"" + got + "\"", "\"" + want + "\"");
}

checkV(string name, vector got, vector want)
{
    if (llVecDist(got, want) <= 0.00001)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkR(string name, rotation got, rotation want)
{
    if (llFabs(got.x - want.x) <= 0.00001 && llFabs(got.y - want.y) <= 0.00001
        && llFabs(got.z - want.z) <= 0.00001 && llFabs(got.s - want.s) <= 0.00001)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

// a list's types and texts, e.g. [1, "a"] -> "1:1|3:a"
string sig(list l)
{
    string out = "";
    integer i;
    integer n = llGetListLength(l);
    for (i = 0; i < n; ++i)
    {
        if (i)
            out += "|";
        out += (string)llGetListEntryType(l, i) + ":" + llList2String(l, i);
    }
    return out;
}

checkL(string name, list got, list want)
{
    string g = sig(got);
    string w = sig(want);
    if (g == w)
        ++gPass;
    else
        fail(name, "[" + g + "]", "[" + w + "]");
}

done()
{
    if (gFail == 0)
        llOwnerSay("PASS " + (string)gPass);
    else
        llOwnerSay("FAILED " + (string)gFail + " of " + (string)(gPass + gFail));
}
// ---- end of helpers ----

string gLog;

default
{
    state_entry()
    {
        llListen(0, "", NULL_KEY, "");
    }

    on_rez(integer start_param)
    {
        checkI("on_rez argument", start_param, -1);
        checkS("every event with its arguments, in order", gLog,
            "at_rot_target(3,<0.00000, 0.00000, 0.50000, 1.00000>,<0.00000, 0.00000, 0.50000, 1.00000>);at_target(3,<1.00000, 2.00000, 4.00000>,<1.00000, 2.00000, 5.00000>);attach(a2e76fcd-9360-4f6d-a924-938f923df11d);changed(3);collision(3);collision_end(3);collision_start(3);control(a2e76fcd-9360-4f6d-a924-938f923df11d,4,5);dataserver(a2e76fcd-9360-4f6d-a924-938f923df11d,s1);email(s0,s1,s2,s3,7);experience_permissions(a2e76fcd-9360-4f6d-a924-938f923df11d);experience_permissions_denied(a2e76fcd-9360-4f6d-a924-938f923df11d,4);final_damage(3);game_control(a2e76fcd-9360-4f6d-a924-938f923df11d,4,1:1|3:a|2:2.500000);http_request(a2e76fcd-9360-4f6d-a924-938f923df11d,s1,s2);http_response(a2e76fcd-9360-4f6d-a924-938f923df11d,4,1:1|3:a|2:2.500000,s3);land_collision(<1.00000, 2.00000, 3.00000>);land_collision_end(<1.00000, 2.00000, 3.00000>);land_collision_start(<1.00000, 2.00000, 3.00000>);link_message(3,4,s2,a2e76fcd-9360-4f6d-a924-938f923df11d);linkset_data(3,s1,s2);listen(0,s1,a2e76fcd-9360-4f6d-a924-938f923df11d,s3);money(a2e76fcd-9360-4f6d-a924-938f923df11d,4);moving_end();moving_start();no_sensor();not_at_rot_target();not_at_target();object_rez(a2e76fcd-9360-4f6d-a924-938f923df11d);on_damage(3);on_death();path_update(3,1:1|3:a|2:2.500000);remote_data(3,a2e76fcd-9360-4f6d-a924-938f923df11d,a2e76fcd-9360-4f6d-a924-938f923df11d,s3,7,s5);run_time_permissions(3);sensor(3);timer();touch(3);touch_end(3);touch_start(3);transaction_result(a2e76fcd-9360-4f6d-a924-938f923df11d,4,s2);");
        done();
    }

    at_rot_target(integer handle, rotation targetrot, rotation ourrot)
    {
        gLog += "at_rot_target(" + (string)handle + "," + (string)targetrot + "," + (string)ourrot + ");";
    }

    at_target(integer tnum, vector targetpos, vector ourpos)
    {
        gLog += "at_target(" + (string)tnum + "," + (string)targetpos + "," + (string)ourpos + ");";
    }

    attach(key avatar)
    {
        gLog += "attach(" + (string)avatar + ");";
    }

    changed(integer changes)
    {
        gLog += "changed(" + (string)changes + ");";
    }

    collision(integer num_detected)
    {
        gLog += "collision(" + (string)num_detected + ");";
    }

    collision_end(integer num_detected)
    {
        gLog += "collision_end(" + (string)num_detected + ");";
    }

    collision_start(integer num_detected)
    {
        gLog += "collision_start(" + (string)num_detected + ");";
    }

    control(key id, integer level, integer edge)
    {
        gLog += "control(" + (string)id + "," + (string)level + "," + (string)edge + ");";
    }

    dataserver(key queryid, string data)
    {
        gLog += "dataserver(" + (string)queryid + "," + data + ");";
    }

    email(string time, string address, string subject, string msg, integer num_left)
    {
        gLog += "email(" + time + "," + address + "," + subject + "," + msg + "," + (string)num_left + ");";
    }

    experience_permissions(key agent_id)
    {
        gLog += "experience_permissions(" + (string)agent_id + ");";
    }

    experience_permissions_denied(key agent_id, integer reason)
    {
        gLog += "experience_permissions_denied(" + (string)agent_id + "," + (string)reason + ");";
    }

    final_damage(integer num_detected)
    {
        gLog += "final_damage(" + (string)num_detected + ");";
    }

    game_control(key id, integer button_levels, list axes)
    {
        gLog += "game_control(" + (string)id + "," + (string)button_levels + "," + sig(axes) + ");";
    }

    http_request(key request_id, string method, string body)
    {
        gLog += "http_request(" + (string)request_id + "," + method + "," + body + ");";
    }

    http_response(key request_id, integer status, list metadata, string body)
    {
        gLog += "http_response(" + (string)request_id + "," + (string)status + "," + sig(metadata) + "," + body + ");";
    }

    land_collision(vector pos)
    {
        gLog += "land_collision(" + (string)pos + ");";
    }

    land_collision_end(vector pos)
    {
        gLog += "land_collision_end(" + (string)pos + ");";
    }

    land_collision_start(vector pos)
    {
        gLog += "land_collision_start(" + (string)pos + ");";
    }

    link_message(integer sender_num, integer num, string str, key id)
    {
        gLog += "link_message(" + (string)sender_num + "," + (string)num + "," + str + "," + (string)id + ");";
    }

    linkset_data(integer action, string name, string value)
    {
        gLog += "linkset_data(" + (string)action + "," + name + "," + value + ");";
    }

    listen(integer channel, string name, key id, string msg)
    {
        gLog += "listen(" + (string)channel + "," + name + "," + (string)id + "," + msg + ");";
    }

    money(key id, integer amount)
    {
        gLog += "money(" + (string)id + "," + (string)amount + ");";
    }

    moving_end()
    {
        gLog += "moving_end();";
    }

    moving_start()
    {
        gLog += "moving_start();";
    }

    no_sensor()
    {
        gLog += "no_sensor();";
    }

    not_at_rot_target()
    {
        gLog += "not_at_rot_target();";
    }

    not_at_target()
    {
        gLog += "not_at_target();";
    }

    object_rez(key id)
    {
        gLog += "object_rez(" + (string)id + ");";
    }

    on_damage(integer num_detected)
    {
        gLog += "on_damage(" + (string)num_detected + ");";
    }

    on_death()
    {
        gLog += "on_death();";
    }

    path_update(integer type, list reserved)
    {
        gLog += "path_update(" + (string)type + "," + sig(reserved) + ");";
    }

    remote_data(integer event_type, key channel, key message_id, string sender, integer idata, string sdata)
    {
        gLog += "remote_data(" + (string)event_type + "," + (string)channel + "," + (string)message_id + "," + sender + "," + (string)idata + "," + sdata + ");";
    }

    run_time_permissions(integer perm)
    {
        gLog += "run_time_permissions(" + (string)perm + ");";
    }

    sensor(integer num_detected)
    {
        gLog += "sensor(" + (string)num_detected + ");";
    }

    timer()
    {
        gLog += "timer();";
    }

    touch(integer num_detected)
    {
        gLog += "touch(" + (string)num_detected + ");";
    }

    touch_end(integer num_detected)
    {
        gLog += "touch_end(" + (string)num_detected + ");";
    }

    touch_start(integer num_detected)
    {
        gLog += "touch_start(" + (string)num_detected + ");";
    }

    transaction_result(key id, integer success, string data)
    {
        gLog += "transaction_result(" + (string)id + "," + (string)success + "," + data + ");";
    }
}
