// Conformance: lists — building with + and +=, == and != comparing lengths,
// truthiness, element access with conversions, and the list library (sort,
// find, slices with negative indexes, insert/delete/replace, strides,
// statistics, CSV, parsing, JSON).  Expected values are Second Life's (LSL
// wiki); the script says "PASS <n>" when every check holds.
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

list gL = [1, "two", 3.0, <1, 2, 3>];

integer ltruth(list l)
{
    if (l)
        return 1;
    return 0;
}

default
{
    state_entry()
    {
        list l = [1, 2];
        l += [3];
        checkL("+= list", l, [1, 2, 3]);
        l += 4;
        checkL("+= element", l, [1, 2, 3, 4]);
        l = 0 + l;
        checkL("prepend", l, [0, 1, 2, 3, 4]);
        l = l + [5, 6];
        checkI("length", llGetListLength(l), 7);
        checkL("global init", gL, [1, "two", 3.0, <1, 2, 3>]);
        list empty;
        checkI("default empty", llGetListLength(empty), 0);

        // == compares lengths only; != gives the length difference
        checkI("eq same length", [1, 2] == [3, 4], 1);
        checkI("eq other length", [1] == [1, 2], 0);
        checkI("ne length diff", [1, 2, 3] != [1], 2);
        checkI("ne negative diff", [1] != [1, 2, 3], -2);
        checkI("ne same length", ["a"] != ["b"], 0);
        checkI("list true", ltruth([0]), 1);
        checkI("list empty false", ltruth([]), 0);

        // access and conversion
        checkI("llList2Integer", llList2Integer(l, 2), 2);
        checkI("llList2Integer negative index", llList2Integer(l, -1), 6);
        checkI("llList2Integer out of range", llList2Integer(l, 99), 0);
        checkI("llList2Integer from string", llList2Integer(["12"], 0), 12);
        checkI("llList2Integer from float", llList2Integer([2.9], 0), 2);
        checkF("llList2Float from integer", llList2Float([3], 0), 3.0);
        checkF("llList2Float from string", llList2Float(["1.5"], 0), 1.5);
        checkS("llList2String integer", llList2String(gL, 0), "1");
        checkS("llList2String float", llList2String(gL, 2), "3.000000");
        checkS("llList2String out of range", llList2String(gL, 9), "");
        checkV("llList2Vector", llList2Vector(gL, 3), <1, 2, 3>);
        checkS("llList2Key", (string)llList2Key(["abc"], 0), "abc");
        checkI("llGetListEntryType int", llGetListEntryType(gL, 0), TYPE_INTEGER);
        checkI("llGetListEntryType string", llGetListEntryType(gL, 1), TYPE_STRING);
        checkI("llGetListEntryType float", llGetListEntryType(gL, 2), TYPE_FLOAT);
        checkI("llGetListEntryType vector", llGetListEntryType(gL, 3), TYPE_VECTOR);
        checkI("llGetListEntryType key", llGetListEntryType([(key)"x"], 0), TYPE_KEY);
        checkI("llGetListEntryType out of range", llGetListEntryType(gL, 4), TYPE_INVALID);
        checkS("(string)list", (string)gL, "1two3.000000<1.000000, 2.000000, 3.000000>");

        // slices
        list n = [0, 1, 2, 3, 4];
        checkL("llList2List", llList2List(n, 1, 3), [1, 2, 3]);
        checkL("llList2List negative", llList2List(n, -2, -1), [3, 4]);
        checkL("llList2List inverted", llList2List(n, 3, 1), [0, 1, 3, 4]);
        checkL("llDeleteSubList", llDeleteSubList(n, 1, 2), [0, 3, 4]);
        checkL("llDeleteSubList inverted", llDeleteSubList(n, 3, 1), [2]);
        checkL("llListInsertList", llListInsertList([1, 3], [2], 1), [1, 2, 3]);
        checkL("llListInsertList negative", llListInsertList([1, 3], [2], -1), [1, 2, 3]);
        checkL("llListReplaceList", llListReplaceList([1, 2, 3], ["x"], 1, 1), [1, "x", 3]);
        checkL("llListReplaceList grow", llListReplaceList([1, 2, 3], ["x", "y"], 2, 2), [1, 2, "x", "y"]);
        checkL("llList2ListStrided", llList2ListStrided([1, 2, 3, 4, 5, 6], 0, -1, 2), [1, 3, 5]);

        // sort and search
        checkL("llListSort", llListSort([3, 1, 2], 1, TRUE), [1, 2, 3]);
        checkL("llListSort descending", llListSort([3, 1, 2], 1, FALSE), [3, 2, 1]);
        checkL("llListSort strings", llListSort(["b", "a", "c"], 1, TRUE), ["a", "b", "c"]);
        checkL("llListSort stride", llListSort(["b", 1, "a", 2], 2, TRUE), ["a", 2, "b", 1]);
        checkI("llListFindList", llListFindList([1, 2, 3, 2], [2]), 1);
        checkI("llListFindList sequence", llListFindList([1, 2, 3, 2], [2, 3]), 1);
        checkI("llListFindList none", llListFindList([1, 2, 3], [4]), -1);
        checkI("llListFindList typed", llListFindList([1, 2, 3], ["2"]), -1);

        // text
        checkS("llDumpList2String", llDumpList2String([1, 2.5, "a"], "|"), "1|2.500000|a");
        checkS("llList2CSV", llList2CSV([1, "a", 2.5]), "1, a, 2.500000");
        checkL("llCSV2List", llCSV2List("a,b,c"), ["a", "b", "c"]);
        checkL("llParseString2List", llParseString2List("a,b,,c", [","], []), ["a", "b", "c"]);
        checkL("llParseString2List spacers", llParseString2List("1+2", [], ["+"]), ["1", "+", "2"]);
        checkL("llParseStringKeepNulls", llParseStringKeepNulls("a,b,,c", [","], []), ["a", "b", "", "c"]);

        // statistics
        checkF("LIST_STAT_SUM", llListStatistics(LIST_STAT_SUM, [1, 2, 3.5]), 6.5);
        checkF("LIST_STAT_MEAN", llListStatistics(LIST_STAT_MEAN, [1, 2, 3]), 2.0);
        checkF("LIST_STAT_MAX", llListStatistics(LIST_STAT_MAX, [1, 7, 3]), 7.0);
        checkF("LIST_STAT_MIN", llListStatistics(LIST_STAT_MIN, [4, 7, 3]), 3.0);
        checkF("LIST_STAT_RANGE", llListStatistics(LIST_STAT_RANGE, [4, 7, 3]), 4.0);

        // JSON
        checkS("llList2Json array", llList2Json(JSON_ARRAY, [1, "a"]), "[1,\"a\"]");
        checkS("llList2Json object", llList2Json(JSON_OBJECT, ["k", 5]), "{\"k\":5}");
        checkS("llJsonGetValue", llJsonGetValue("{\"a\":[1,2,{\"b\":\"c\"}]}", ["a", 2, "b"]), "c");
        checkS("llJsonGetValue missing", llJsonGetValue("{\"a\":1}", ["z"]), JSON_INVALID);
        checkS("llJsonValueType", llJsonValueType("[1]", [0]), JSON_NUMBER);
        checkS("llJsonSetValue", llJsonSetValue("[1,2]", [1], "5"), "[1,5]");
        checkL("llJson2List", llJson2List("[1,\"x\"]"), [1, "x"]);
        done();
    }
}
