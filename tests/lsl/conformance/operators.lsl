// Conformance: operators and literals across types — literal forms (no
// octal, exponents, vector and list literals with expressions), mixed
// key/string/list operands, list element types, comparisons of special
// floats, dangling else, block comments, and the (list) cast.  Expected
// values are Second Life's (LSL wiki); the script says "PASS <n>" when
// every check holds.
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

list gMixed = [1, 2.5, "s", <1, 2, 3>, <0, 0, 0, 1>];

default
{
    state_entry()
    {
        /* a block
           comment */
        checkI("no octal", 010, 10);
        checkF("exponent literal", 1e3, 1000.0);
        checkF("negative exponent literal", 1.5e-2, 0.015);
        checkF("leading dot literal", .5, 0.5);
        checkF("trailing dot and exponent literal", 26000.E-1, 2600.0);
        checkF("F suffix literal", 1.25F, 1.25);
        checkF("(float) C99 hex string", (float)"0x1.5p5", 42.0);
        checkI("hex literal", 0x7FFFFFFF, 2147483647);
        integer two = 2;
        checkV("vector literal with expressions", <two + 1, two * 2, -two>, <3, 4, -2>);
        checkL("list literal with expressions", [two + 1, "a" + "b", two * 1.5], [3, "ab", 3.0]);

        // bits of negative numbers
        checkI("and negative", -1 & 0xFF, 255);
        checkI("shr -1", -1 >> 31, -1);
        checkI("shr min", 0x80000000 >> 1, -1073741824);
        checkI("xor all ones", 0x0F0F0F0F ^ -1, 0xF0F0F0F0);

        // keys and strings mix
        key k = "AbC";
        checkS("string + key", "x" + (string)k, "xAbC");
        checkI("key compare is case sensitive", k == (key)"abc", 0);
        checkI("key == key", k == (key)"AbC", 1);

        // lists take any non-list value
        list l = [];
        l += <1, 2, 3>;
        l += ZERO_ROTATION;
        l += (key)"k";
        l += 2.0;
        checkI("list of four", llGetListLength(l), 4);
        checkI("vector element", llGetListEntryType(l, 0), TYPE_VECTOR);
        checkI("rotation element", llGetListEntryType(l, 1), TYPE_ROTATION);
        checkI("key element", llGetListEntryType(l, 2), TYPE_KEY);
        checkI("float element", llGetListEntryType(l, 3), TYPE_FLOAT);
        checkL("list + list", [1] + [2, 3], [1, 2, 3]);
        checkL("list + element", ["a"] + 1, ["a", 1]);
        checkL("element + list", 1 + ["a"], [1, "a"]);
        checkL("(list) cast", (list)5, [5]);
        checkL("(list) cast string", (list)"x", ["x"]);
        checkI("global list types", llGetListEntryType(gMixed, 4), TYPE_ROTATION);
        checkS("list rotation text", llList2String(gMixed, 4), "<0.000000, 0.000000, 0.000000, 1.000000>");

        // special floats
        checkI("minus zero equals zero", -0.0 == 0.0, 1);
        float tiny = 1.0e-30;
        checkI("tiny is not zero", tiny != 0.0, 1);
        checkF("tiny squared underflows", tiny * tiny, 0.0);

        // a dangling else belongs to the nearest if
        string r = "none";
        if (TRUE)
            if (FALSE)
                r = "inner";
            else
                r = "inner else";
        checkS("dangling else", r, "inner else");
        done();
    }
}
