// Conformance: strings and keys — concatenation and assignment, escapes,
// comparisons, truthiness (keys are true only when a valid, non-null UUID),
// casts, and the string library (substrings with negative and inverted
// ranges, search, case, trim, URL escaping, base64, hashing).  Expected
// values are Second Life's (LSL wiki; digests are the standard algorithms of
// "text:nonce" for llMD5String); the script says "PASS <n>" when every check
// holds.
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

string gS = "global";
key gK = "a2e76fcd-9360-4f6d-a924-938f923df11d";

integer truth(string s)
{
    if (s)
        return 1;
    return 0;
}

integer ktruth(key k)
{
    if (k)
        return 1;
    return 0;
}

default
{
    state_entry()
    {
        string s = "ab";
        s += "cd";
        checkS("+=", s, "abcd");
        s = s + "e" + "f";
        checkS("concat chain", s, "abcdef");
        checkS("global init", gS, "global");
        string empty;
        checkS("default empty", empty, "");
        checkI("length", llStringLength(s), 6);
        checkI("length counts characters", llStringLength("héllo"), 5);
        checkI("escape newline", llStringLength("a\nb"), 3);
        checkI("escape quote", llStringLength("\""), 1);
        checkI("escape backslash", llStringLength("\\"), 1);
        checkI("escape tab is four spaces", llStringLength("\t"), 4);
        checkS("escape tab text", "a\tb", "a    b");
        checkS("escape newline text", llGetSubString("a\nb", 1, 1), "\n");
        checkI("eq", "abc" == "abc", 1);
        checkI("eq case", "abc" == "ABC", 0);
        checkI("ne true", ("a" != "b") != 0, 1);
        checkI("ne false", "a" != "a", 0);

        // truthiness
        checkI("string true", truth("x"), 1);
        checkI("string 0 true", truth("0"), 1);
        checkI("string empty false", truth(""), 0);
        checkI("key valid true", ktruth(gK), 1);
        checkI("key upper valid true", ktruth("A2E76FCD-9360-4F6D-A924-938F923DF11D"), 1);
        checkI("key null false", ktruth(NULL_KEY), 0);
        checkI("key empty false", ktruth(""), 0);
        checkI("key junk false", ktruth("hello"), 0);
        checkI("key short false", ktruth("a2e76fcd-9360-4f6d-a924-938f923df11"), 0);
        checkI("NULL_KEY constant is a string", truth(NULL_KEY), 1);
        key k;
        checkI("key default false", ktruth(k), 0);
        checkS("key default empty", (string)k, "");

        // keys and strings convert both ways
        k = "abc";
        checkS("string to key", (string)k, "abc");
        checkI("key == string", k == "abc", 1);
        checkS("key concat", (string)gK + "!", "a2e76fcd-9360-4f6d-a924-938f923df11d!");
        checkS("(key) cast", (string)((key)"xyz"), "xyz");

        // casts to string
        checkS("(string)int", (string)12, "12");
        checkS("(string)float", (string)2.5, "2.500000");
        checkS("(string)vector", (string)<1, 2, 3>, "<1.00000, 2.00000, 3.00000>");
        checkS("(string)list", (string)[1, "a", 2.5], "1a2.500000");

        // substrings
        checkS("llGetSubString", llGetSubString("abcdef", 1, 3), "bcd");
        checkS("llGetSubString negative", llGetSubString("abcdef", -3, -1), "def");
        checkS("llGetSubString inverted", llGetSubString("abcdef", 4, 1), "abef");
        checkS("llGetSubString clamp", llGetSubString("abc", 0, 10), "abc");
        checkS("llGetSubString one", llGetSubString("abc", 1, 1), "b");
        checkS("llGetSubString utf8", llGetSubString("héllo", 1, 2), "él");
        checkS("llDeleteSubString", llDeleteSubString("abcdef", 1, 2), "adef");
        checkS("llDeleteSubString negative", llDeleteSubString("abcdef", -2, -1), "abcd");
        checkS("llInsertString", llInsertString("abc", 1, "X"), "aXbc");
        checkS("llInsertString end", llInsertString("abc", 3, "X"), "abcX");
        checkI("llSubStringIndex", llSubStringIndex("hello", "l"), 2);
        checkI("llSubStringIndex multi", llSubStringIndex("abcabc", "ca"), 2);
        checkI("llSubStringIndex none", llSubStringIndex("hello", "z"), -1);
        checkI("llSubStringIndex empty", llSubStringIndex("hello", ""), 0);
        checkS("llToUpper", llToUpper("abC1"), "ABC1");
        checkS("llToLower", llToLower("AbC1"), "abc1");
        checkS("llStringTrim", llStringTrim("  a b  ", STRING_TRIM), "a b");
        checkS("llStringTrim head", llStringTrim("  x  ", STRING_TRIM_HEAD), "x  ");
        checkS("llStringTrim tail", llStringTrim("  x  ", STRING_TRIM_TAIL), "  x");
        checkS("llEscapeURL", llEscapeURL("a b&c"), "a%20b%26c");
        checkS("llUnescapeURL", llUnescapeURL("a%20b%26c"), "a b&c");
        checkS("llStringToBase64", llStringToBase64("Hello"), "SGVsbG8=");
        checkS("llStringToBase64 utf8", llStringToBase64("héllo"), "aMOpbGxv");
        checkS("llBase64ToString", llBase64ToString("SGVsbG8="), "Hello");
        checkS("llIntegerToBase64", llIntegerToBase64(1), "AAAAAQ==");
        checkI("llBase64ToInteger", llBase64ToInteger("AAAAAQ=="), 1);
        checkS("llMD5String", llMD5String("Hello", 0), "3a5d82f8869d9c44439eea6b217c6035");
        checkS("llMD5String nonce", llMD5String("abc", 42), "c53f7de0f306835e7893e2ecd38ceac4");
        checkS("llSHA1String", llSHA1String("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        checkS("llSHA1String utf8", llSHA1String("héllo"), "35b5ea45c5e41f78b46a937cc74d41dfea920890");
        checkS("llSHA256String", llSHA256String("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        checkI("llOrd", llOrd("A", 0), 65);
        checkS("llChar", llChar(97), "a");
        checkS("llReplaceSubString", llReplaceSubString("aXbXc", "X", "-", 0), "a-b-c");
        checkS("EOF", EOF, "\n\n\n");
        done();
    }
}
