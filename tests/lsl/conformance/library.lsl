// Conformance: more of the pure library — base64 of integers and XOR,
// URL escaping of UTF-8, edge ranges of the string and list functions, CSV
// with vectors, list statistics and JSON.  Expected values are Second
// Life's (LSL wiki); the script says "PASS <n>" when every check holds.
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

default
{
    state_entry()
    {
        checkS("llIntegerToBase64 -1", llIntegerToBase64(-1), "/////w==");
        checkI("llBase64ToInteger -1", llBase64ToInteger("/////w=="), -1);
        checkS("llIntegerToBase64 big-endian", llIntegerToBase64(0x01020304), "AQIDBA==");
        checkS("llXorBase64 with zeros", llXorBase64("SGVsbG8=", "AAAA"), "SGVsbG8=");
        checkS("llStringToBase64 empty", llStringToBase64(""), "");
        checkS("llEscapeURL utf8", llEscapeURL("é"), "%C3%A9");
        checkS("llUnescapeURL hex", llUnescapeURL("%41%42"), "AB");
        checkS("llGetSubString past the end", llGetSubString("abc", 5, 6), "");
        checkS("llDeleteSubString past the end", llDeleteSubString("abc", 5, 6), "abc");
        checkS("llDumpList2String empty", llDumpList2String([], ","), "");
        checkL("llCSV2List keeps vectors", llCSV2List("a,<1,2,3>,b"), ["a", "<1,2,3>", "b"]);
        checkS("llList2CSV vector", llList2CSV([<1, 2, 3>]), "<1.000000, 2.000000, 3.000000>");
        checkL("llParseString2List two separators", llParseString2List("a b;c", [" ", ";"], []), ["a", "b", "c"]);
        checkI("llList2Integer hex string", llList2Integer(["0x10"], 0), 16);
        checkF("llList2Float text", llList2Float(["abc"], 0), 0.0);
        checkF("LIST_STAT_MEDIAN", llListStatistics(LIST_STAT_MEDIAN, [1, 3, 2]), 2.0);
        checkF("LIST_STAT_NUM_COUNT", llListStatistics(LIST_STAT_NUM_COUNT, [1, "a", 2.5]), 2.0);
        checkF("LIST_STAT_SUM_SQUARES", llListStatistics(LIST_STAT_SUM_SQUARES, [1, 2, 3]), 14.0);
        checkA("LIST_STAT_GEOMETRIC_MEAN", llListStatistics(LIST_STAT_GEOMETRIC_MEAN, [1, 4]), 2.0);
        checkF("llPow negative exponent", llPow(2.0, -1.0), 0.5);
        checkS("llList2Json float", llList2Json(JSON_ARRAY, [1.5]), "[1.500000]");
        checkL("llJson2List object", llJson2List("{\"a\":1}"), ["a", 1]);
        checkS("llJsonValueType true", llJsonValueType("{\"a\":true}", ["a"]), JSON_TRUE);
        checkS("llJsonGetValue out of range", llJsonGetValue("[1,2]", [5]), JSON_INVALID);
        checkS("llJsonSetValue new key", llJsonSetValue("{}", ["a"], "x"), "{\"a\":\"x\"}");
        checkS("llJsonGetValue string", llJsonGetValue("{\"a\":\"b c\"}", ["a"]), "b c");
        done();
    }
}
