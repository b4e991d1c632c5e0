// Conformance: the shapes the ABI-3 compiler fuses into one instruction
// (return of a local, integer operators and loop tests against a global,
// float comparisons with a constant, a constant times a local, list
// elements read from a list local) must give the same results as the
// unfused forms.  Expected values are Second Life's (LSL wiki); the script
// says "PASS <n>" when every check holds.
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

integer G = 5;
integer Z = 0;

integer same(integer n)
{
    if (n < 2)
        return n;
    integer m = n - 1;
    return m;
}

integer sum2(integer a, integer b)
{
    return a + b;
}

integer fibr(integer n)
{
    if (n < 2)
        return n;
    return fibr(n - 1) + fibr(n - 2);
}

float twice(float x)
{
    return x;
}

default
{
    state_entry()
    {
        // return of a local
        checkI("return local", same(1), 1);
        checkI("return local 2", same(9), 8);
        checkF("return float local", twice(2.5), 2.5);
        checkI("return a + b", sum2(40, 2), 42);
        checkI("return a + b wraps", sum2(2147483647, 1), -2147483648);
        checkI("return fib + fib", fibr(15), 610);

        // integer operators with a global on the right
        integer i = 7;
        checkI("local + global", i + G, 12);
        checkI("local - global", i - G, 2);
        checkI("local * global", i * G, 35);
        checkI("local / global", i / G, 1);
        checkI("local % global", i % G, 2);
        checkI("local << global", i << G, 224);
        checkI("local >> global", -i >> G, -1);
        checkI("local & global", i & G, 5);
        checkI("local | global", i | G, 7);
        checkI("local ^ global", i ^ G, 2);
        checkI("local < global", i < G, 0);
        checkI("local <= global", i <= G, 0);
        checkI("local > global", i > G, 1);
        checkI("local >= global", i >= G, 1);
        checkI("local == global", i == G, 0);
        checkI("local != global", i != G, 1);

        // integer operators with a constant on the right
        checkI("local + constant", i + 5, 12);
        checkI("local - constant", i - 5, 2);
        checkI("local * constant", i * 5, 35);
        checkI("local / constant", i / 5, 1);
        checkI("local % constant", i % 5, 2);
        checkI("local << constant", i << 5, 224);
        checkI("local >> constant", (-i) >> 5, -1);
        checkI("local & constant", i & 5, 5);
        checkI("local | constant", i | 5, 7);
        checkI("local ^ constant", i ^ 5, 2);
        checkI("local < constant", i < 5, 0);
        checkI("local <= constant", i <= 7, 1);
        checkI("local > constant", i > 5, 1);
        checkI("local >= constant", i >= 8, 0);
        checkI("local == constant", i == 7, 1);
        checkI("local != constant", i != 7, 0);

        // `x = y OP constant` stored straight into a local
        integer y;
        y = i / 2;
        checkI("y = i / 2", y, 3);
        y = i % 4;
        checkI("y = i % 4", y, 3);
        y = i << 3;
        checkI("y = i << 3", y, 56);
        y = i * -3;
        checkI("y = i * -3", y, -21);
        y = i - 10;
        checkI("y = i - 10", y, -3);
        y = i > 6;
        checkI("y = i > 6", y, 1);
        y = y / -1;
        checkI("y = y / -1", y, -1);

        // integer operators with a constant on the left
        checkI("1 << local", 1 << i, 128);
        checkI("1 << (local % 32)", 1 << (i % 32), 128);
        checkI("100 / local", 100 / i, 14);
        checkI("-100 / local", -100 / i, -14);
        checkI("100 % local", 100 % i, 2);
        checkI("3 - local", 3 - i, -4);
        checkI("3 * (local + 1)", 3 * (i + 1), 24);
        checkI("-8 >> (local - 6)", -8 >> (i - 6), -4);
        checkI("6 & local", 6 & i, 6);
        checkI("8 | local", 8 | i, 15);
        checkI("5 ^ local", 5 ^ i, 2);
        checkI("3 < local", 3 < i, 1);
        checkI("7 <= local", 7 <= i, 1);
        checkI("7 > local", 7 > i, 0);
        checkI("8 >= local", 8 >= i, 1);
        checkI("7 == local", 7 == i, 1);
        checkI("7 != local", 7 != i, 0);
        checkI("2147483647 + local wraps", 2147483647 + (i - 6), -2147483648);

        // loops bounded by a global, tested at the top and the bottom
        integer n = 0;
        integer k;
        for (k = 0; k < G; ++k)
            n += k;
        checkI("for k < G", n, 10);
        n = 0;
        for (k = 0; k <= G; ++k)
            n += k;
        checkI("for k <= G", n, 15);
        n = 0;
        for (k = 0; k < Z; ++k)
            n += 1;
        checkI("for k < 0 never runs", n, 0);
        n = 0;
        k = 0;
        while (k < G && n < 100)
        {
            n += 2;
            ++k;
        }
        checkI("while k < G && ...", n, 10);

        // tests against zero
        integer hits = 0;
        for (k = 0; k < 8; ++k)
        {
            if ((k & 3) == 0)
                hits += 1;
            if ((k & 1) != 0)
                hits += 10;
            if (!((k * 2) == 0))
                hits += 100;
        }
        checkI("(k & 3) == 0 / != 0", hits, 742);
        n = 0;
        k = 6;
        while ((k & 7) != 0)
        {
            ++k;
            ++n;
        }
        checkI("while (k & 7) != 0", n, 2);
        n = 0;
        k = 8;
        do
        {
            ++n;
            k = k + 1;
        }
        while ((k % 4) == 0);
        checkI("do while (k % 4) == 0", n, 1);

        // float comparisons with a constant
        float a = 0.5;
        float b = 1.5;
        checkI("a + b <= 2.0", a + b <= 2.0, 1);
        checkI("a + b < 2.0", a + b < 2.0, 0);
        checkI("a + b == 2.0", a + b == 2.0, 1);
        checkI("a + b != 2.0", a + b != 2.0, 0);
        checkI("a + b > 1.0", a + b > 1.0, 1);
        checkI("a + b >= 2.5", a + b >= 2.5, 0);
        checkI("a < 1.0", a < 1.0, 1);
        integer it = 0;
        while (a * b <= 4.0)
        {
            a = a * 2.0;
            ++it;
        }
        checkI("while a * b <= 4.0", it, 3);

        // a constant times a local
        float c = 3.0;
        checkF("2.0 * c", 2.0 * c, 6.0);
        checkF("2.0 * c * b", 2.0 * c * b, 9.0);
        checkF("0.5 * c + 1.0", 0.5 * c + 1.0, 2.5);

        // elements of a list local, with conversions and negative and
        // out-of-range indexes
        list l = [1, 2.5, "7", <1, 2, 3>, "x"];
        checkI("llList2Integer integer", llList2Integer(l, 0), 1);
        checkI("llList2Integer float", llList2Integer(l, 1), 2);
        checkI("llList2Integer string", llList2Integer(l, 2), 7);
        checkI("llList2Integer vector", llList2Integer(l, 3), 0);
        checkI("llList2Integer bad string", llList2Integer(l, 4), 0);
        checkI("llList2Integer -5", llList2Integer(l, -5), 1);
        checkI("llList2Integer -6", llList2Integer(l, -6), 0);
        checkI("llList2Integer 5", llList2Integer(l, 5), 0);
        checkF("llList2Float integer", llList2Float(l, Z - 5), 1.0);
        checkF("llList2Float float", llList2Float(l, -4), 2.5);
        checkF("llList2Float string", llList2Float(l, 2), 7.0);
        list e = [];
        checkI("llList2Integer empty", llList2Integer(e, 0), 0);
        integer j = 0;
        checkI("index assigned in the call", llList2Integer(l, j = 2), 7);
        // the index in a local
        checkI("llList2Integer l, j string", llList2Integer(l, j), 7);
        j = 1;
        checkI("llList2Integer l, j float", llList2Integer(l, j), 2);
        checkF("llList2Float l, j float", llList2Float(l, j), 2.5);
        j = -1;
        checkI("llList2Integer l, j = -1", llList2Integer(l, j), 0);
        j = 9;
        checkI("llList2Integer l, j = 9", llList2Integer(l, j), 0);
        // replacing an element at a local index, in place and out of range
        list m = [1, 2, 3];
        list keep = m;
        j = 1;
        m = llListReplaceList(m, [20], j, j);
        checkL("replace at j = 1", m, [1, 20, 3]);
        checkL("the shared copy unchanged", keep, [1, 2, 3]);
        j = -1;
        m = llListReplaceList(m, ["z"], j, j);
        checkL("replace at j = -1", m, [1, 20, "z"]);
        j = 5;
        m = llListReplaceList(m, [7], j, j);
        checkL("replace at j = 5", m, [1, 20, "z", 7]);
        // a computed integer OP an integer literal: one instruction with the constant
        integer h = -7;
        checkI("(h * 31 + 5) % 1000003, negative", (h * 31 + 5) % 1000003, -212);
        checkI("(h - 1) / 3 truncates", (h - 1) / 3, -2);
        checkI("(h - 1) % 4", (h - 1) % 4, 0);
        checkI("(h * 2) / -1", (h * 2) / -1, 14);
        checkI("(h + 0x80000007) / -1 (MIN / -1)", (h + 0x80000007) / -1, -2147483648);
        checkI("(h + 0x80000007) % -1", (h + 0x80000007) % -1, 0);
        checkI("(h * 3) << 2", (h * 3) << 2, -84);
        checkI("(h * 3) >> 1", (h * 3) >> 1, -11);
        checkI("(h + 10) & 6 | 1 ^ 8", ((h + 10) & 6 | 1) ^ 8, 11);
        checkI("(h * 65536) * 65536 wraps", (h * 65536) * 65536, 0);
        done();
    }
}
