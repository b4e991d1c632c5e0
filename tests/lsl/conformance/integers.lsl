// Conformance: integers — 32-bit wrapping arithmetic, division and modulo,
// bit operations and shifts, comparisons, increments and every assignment
// form, literals, and integer <-> string / float casts.  Expected values are
// Second Life's (LSL wiki); the script says "PASS <n>" when every check holds.
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

integer gGlobal = 7;
integer gNeg = -12;
integer gHex = 0x1F;

default
{
    state_entry()
    {
        integer max = 2147483647;
        integer min = 0x80000000;
        checkI("hex min literal", min, -2147483647 - 1);
        checkI("wrap add", max + 1, min);
        checkI("wrap sub", min - 1, max);
        checkI("wrap mul 65536^2", 65536 * 65536, 0);
        checkI("wrap mul 46341^2", 46341 * 46341, -2147479015);
        checkI("negate min", -min, min);
        checkI("0xFFFFFFFF", 0xFFFFFFFF, -1);
        checkI("hex lower", 0xff, 255);
        checkI("global init", gGlobal, 7);
        checkI("global neg init", gNeg, -12);
        checkI("global hex init", gHex, 31);

        // division truncates toward zero; modulo takes the dividend's sign
        checkI("div", 7 / 2, 3);
        checkI("div neg", -7 / 2, -3);
        checkI("div neg divisor", 7 / -2, -3);
        checkI("mod", 7 % 3, 1);
        checkI("mod neg", -7 % 3, -1);
        checkI("mod neg divisor", 7 % -3, 1);
        // the same at run time, by powers of two too (the VM shifts for those)
        integer n7 = -7;
        integer n33 = -33;
        integer four = 4;
        integer m1 = -1;
        checkI("run div pow2 neg", n7 / 4, -1);
        checkI("run div pow2 neg var", n7 / four, -1);
        checkI("run mod pow2 neg", n7 % 4, -3);
        checkI("run mod pow2 neg var", n7 % four, -3);
        checkI("run div 32 neg", n33 / 32, -1);
        checkI("run mod 32 neg", n33 % 32, -1);
        checkI("run div 32 exact neg", (n33 + 1) / 32, -1);
        checkI("run mod 32 exact neg", (n33 + 1) % 32, 0);
        checkI("run div 32 small neg", (n33 + 2) / 32, 0);
        checkI("run mod 32 small neg", (n33 + 2) % 32, -31);
        checkI("run div min 2", min / 2, -1073741824);
        checkI("run mod min 2", min % 2, 0);
        checkI("run div min 1", min / 1, min);
        checkI("run mod min 1", min % 1, 0);
        checkI("run div min -1", min / m1, min);
        checkI("run mod min -1", min % m1, 0);
        checkI("run div max pow2", max / 1073741824, 1);
        checkI("run mod max pow2", max % 1073741824, 1073741823);
        checkI("run div 3", n7 / 3, -2);
        // integer to text at run time
        checkS("text min", (string)min, "-2147483648");
        checkS("text max", (string)max, "2147483647");
        checkS("text neg", (string)n7, "-7");
        checkS("text zero", (string)(n7 + 7), "0");
        checkS("text in list", (string)[min, n7 + 7, 10, max], "-21474836480102147483647");
        checkI("run mod 3", n7 % 3, -1);
        checkI("precedence", 2 + 3 * 4, 14);
        checkI("parens", (2 + 3) * 4, 20);
        checkI("unary minus", -(3 - 5), 2);

        // bit operations
        checkI("and", 0xF0 & 0x3C, 0x30);
        checkI("or", 0xF0 | 0x3C, 0xFC);
        checkI("xor", 0xF0 ^ 0x3C, 0xCC);
        checkI("not", ~0, -1);
        checkI("not 5", ~5, -6);
        checkI("shl", 1 << 4, 16);
        checkI("shl to sign", 1 << 31, min);
        checkI("shr arithmetic", -8 >> 1, -4);
        checkI("shr positive", 256 >> 4, 16);
        checkI("shr min", min >> 31, -1);
        checkI("shl count mod 32", 1 << 32, 1);
        checkI("shl count 33", 1 << 33, 2);

        // logic and comparisons give 0 or 1
        checkI("lnot 0", !0, 1);
        checkI("lnot 5", !5, 0);
        checkI("lnot neg", !-1, 0);
        checkI("and true", 2 && 3, 1);
        checkI("and false", 2 && 0, 0);
        checkI("or true", 0 || -4, 1);
        checkI("or false", 0 || 0, 0);
        checkI("lt", 1 < 2, 1);
        checkI("gt", 1 > 2, 0);
        checkI("le eq", 2 <= 2, 1);
        checkI("ge", 1 >= 2, 0);
        checkI("eq", 3 == 3, 1);
        checkI("ne", 3 != 3, 0);
        checkI("lt wrap", min < max, 1);

        // increments
        integer i = 5;
        integer j = i++;
        checkI("post inc value", j, 5);
        checkI("post inc var", i, 6);
        j = ++i;
        checkI("pre inc value", j, 7);
        j = i--;
        checkI("post dec value", j, 7);
        checkI("post dec var", i, 6);
        j = --i;
        checkI("pre dec value", j, 5);
        integer w = max;
        ++w;
        checkI("inc wraps", w, min);
        --w;
        checkI("dec wraps", w, max);
        ++gGlobal;
        checkI("global inc", gGlobal, 8);

        // assignment forms (an assignment is an expression with a value)
        integer a = 10;
        a += 5;
        checkI("+=", a, 15);
        a -= 3;
        checkI("-=", a, 12);
        a *= 4;
        checkI("*=", a, 48);
        a /= 5;
        checkI("/=", a, 9);
        a %= 4;
        checkI("%=", a, 1);
        integer b;
        integer c = (b = 42);
        checkI("assignment value", c, 42);
        checkI("assigned", b, 42);
        c = b += 8;
        checkI("compound value", c, 50);
        integer d;
        checkI("default zero", d, 0);

        // casts
        checkS("(string)int", (string)42, "42");
        checkS("(string)neg", (string)(-42), "-42");
        checkS("(string)min", (string)min, "-2147483648");
        checkI("(integer)dec string", (integer)"123", 123);
        checkI("(integer)neg string", (integer)"-17", -17);
        checkI("(integer)hex string", (integer)"0x1A", 26);
        checkI("(integer)trailing text", (integer)"42abc", 42);
        checkI("(integer)decimal string", (integer)"3.99", 3);
        checkI("(integer)exponent string", (integer)"1e3", 1);
        checkI("(integer)leading space", (integer)"  12", 12);
        checkI("(integer)text", (integer)"abc", 0);
        checkI("(integer)empty", (integer)"", 0);
        checkI("(integer)float trunc", (integer)3.99, 3);
        checkI("(integer)neg float trunc", (integer)-3.99, -3);
        checkI("(integer)big float", (integer)3.9e9, min);
        checkI("(integer)big neg float", (integer)-3.9e9, min);
        float f = max;
        checkF("int to float rounds", f, 2147483648.0);
        checkI("back out of range", (integer)f, min);
        checkI("TRUE", TRUE, 1);
        checkI("FALSE", FALSE, 0);
        done();
    }
}
