// Conformance: control flow and functions — right-to-left evaluation of
// operands, && and || evaluating both sides, if/else, while, do-while, for
// with several expressions, jump and labels, user functions with every
// return type, recursion (direct and mutual), parameters passed by value,
// scoping and globals.  Expected values are Second Life's (LSL wiki); the
// script says "PASS <n>" when every check holds.
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

string gOrder;
integer gCounter = 100;
integer gShadow = 1;

integer mark(integer v)
{
    gOrder += (string)v;
    return v;
}

integer fact(integer n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

integer fib(integer n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

integer ack(integer m, integer n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

integer isEven(integer n)
{
    if (n == 0)
        return TRUE;
    return isOdd(n - 1);
}

integer isOdd(integer n)
{
    if (n == 0)
        return FALSE;
    return isEven(n - 1);
}

integer sumTo(integer n)
{
    if (n == 0)
        return 0;
    return n + sumTo(n - 1);
}

integer firstOver(list l, integer limit)
{
    integer i;
    for (i = 0; i < llGetListLength(l); ++i)
    {
        integer v = llList2Integer(l, i);
        while (TRUE)
        {
            if (v > limit)
                return i;
            jump next;
        }
        @next;
    }
    return -1;
}

bump()
{
    ++gCounter;
}

integer tryChange(integer p)
{
    p = p * 10;
    return p;
}

integer shadow()
{
    integer gShadow = 5;
    return gShadow;
}

float half(float x)
{
    return x / 2;
}

string twice(string s)
{
    return s + s;
}

vector up(vector v)
{
    return v + <0, 0, 1>;
}

rotation ident()
{
    return ZERO_ROTATION;
}

list pair(integer a, string b)
{
    return [a, b];
}

key nk()
{
    return NULL_KEY;
}

earlyReturn()
{
    gOrder = "start";
    if (TRUE)
        return;
    gOrder = "unreachable";
}

default
{
    state_entry()
    {
        // operands are evaluated right to left
        gOrder = "";
        integer s = mark(1) + mark(2);
        checkS("right to left", gOrder, "21");
        checkI("right to left value", s, 3);
        gOrder = "";
        s = mark(1) - mark(2) * mark(3);
        checkS("right to left nested", gOrder, "321");
        checkI("right to left nested value", s, -5);
        integer a;
        integer b = (a = 5) + a;
        checkI("assignment seen after right operand", b, 5);

        // && and || do not short-circuit
        gOrder = "";
        if (mark(0) && mark(7))
            gOrder += "x";
        checkS("and evaluates both", gOrder, "70");
        gOrder = "";
        if (mark(1) || mark(8))
            gOrder += "y";
        checkS("or evaluates both", gOrder, "81y");

        // if / else chains
        integer n = 7;
        string r;
        if (n < 5)
            r = "small";
        else if (n < 10)
            r = "medium";
        else
            r = "large";
        checkS("else if", r, "medium");
        if (n == 7)
        {
            r = "seven";
        }
        checkS("if block", r, "seven");
        if (n)
            ;
        else
            r = "empty statement";
        checkS("empty statement", r, "seven");

        // loops
        integer i;
        integer total = 0;
        for (i = 0; i < 10; ++i)
            total += i;
        checkI("for", total, 45);
        checkI("for exit value", i, 10);
        integer j;
        total = 0;
        for (i = 0, j = 10; i < j; ++i, --j)
            total += j - i;
        checkI("for comma lists", total, 30);
        i = 0;
        while (i < 5)
            ++i;
        checkI("while", i, 5);
        i = 0;
        while (FALSE)
            ++i;
        checkI("while never", i, 0);
        i = 10;
        do
            ++i;
        while (i < 5);
        checkI("do while runs once", i, 11);
        i = 0;
        do
        {
            i += 2;
        }
        while (i < 7);
        checkI("do while", i, 8);

        // jump and labels
        integer count = 0;
        @again;
        ++count;
        if (count < 5)
            jump again;
        checkI("jump backward", count, 5);
        jump skip;
        count = 100;
        @skip;
        checkI("jump forward", count, 5);
        total = 0;
        for (i = 0; i < 10; ++i)
        {
            for (j = 0; j < 10; ++j)
            {
                if (j == 3)
                    jump inner_done;
                ++total;
            }
            @inner_done;
        }
        checkI("jump out of inner loop", total, 30);

        // functions
        checkI("factorial", fact(10), 3628800);
        checkI("factorial 12", fact(12), 479001600);
        checkI("fibonacci", fib(20), 6765);
        checkI("ackermann", ack(2, 3), 9);
        checkI("mutual recursion even", isEven(10), TRUE);
        checkI("mutual recursion odd", isOdd(7), TRUE);
        checkI("recursion depth 100", sumTo(100), 5050);
        checkI("return from nested loops", firstOver([1, 5, 9, 12], 8), 2);
        checkI("return none found", firstOver([1, 2], 8), -1);
        bump();
        bump();
        checkI("void function changes global", gCounter, 102);
        integer p = 3;
        checkI("parameter copy result", tryChange(p), 30);
        checkI("parameter by value", p, 3);
        checkI("local shadows global", shadow(), 5);
        checkI("global untouched", gShadow, 1);
        checkF("float function with int param", half(5), 2.5);
        checkS("string function", twice("ab"), "abab");
        checkV("vector function", up(<1, 1, 1>), <1, 1, 2>);
        checkR("rotation function", ident(), <0, 0, 0, 1>);
        checkL("list function", pair(1, "b"), [1, "b"]);
        checkS("key function", (string)nk(), NULL_KEY);
        earlyReturn();
        checkS("early return", gOrder, "start");

        // scopes: a block's variables end with it
        integer outer = 1;
        {
            integer inner = 2;
            outer += inner;
        }
        checkI("block scope", outer, 3);
        done();
    }
}
