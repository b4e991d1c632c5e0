// The register forms of ABI 3 (FOpLK, FOpLKS, IOpLLS, JcmpFLK, JcmpFLKT)
// against the stack forms: the same expressions on globals, which the
// compiler never fuses, must give the same results, NaN and rounding
// included (tests/lsl/abi3/golden/list_fused.txt shows which forms each
// line takes).  Every line says PASS; the script ends with the Math Error of
// a division by the constant 0.
float G;
float H;
integer GI;
integer GJ;

integer pair(integer p, integer q)
{
    return p * 1000 + q;
}

check(string what, integer ok)
{
    if (ok)
        llOwnerSay("PASS " + what);
    else
        llOwnerSay("FAIL " + what);
}

default
{
    state_entry()
    {
        float x = 16777215.0;
        G = x;
        float r;
        r = x + 1.5; H = G + 1.5; check("FOpLKS add", r == H);
        check("FOpLKS rounds once", r == 16777216.0);
        r = x - 0.25; H = G - 0.25; check("FOpLKS sub", r == H);
        r = x * 0.1; H = G * 0.1; check("FOpLKS mul", r == H);
        r = x / 3.0; H = G / 3.0; check("FOpLKS div", r == H);
        r = 1.5 + x; H = 1.5 + G; check("FOpLKS k+x", r == H);
        r = 0.1 * x; H = 0.1 * G; check("FOpLKS k*x", r == H);
        // pushed, not stored: Mono's double temporaries (2^24 - 1 + 1.5 is
        // not a float32, the difference is)
        check("FOpLK add temp", (x + 1.5) - x == (G + 1.5) - G);
        check("FOpLK add temp value", (x + 1.5) - x == 1.5);
        check("FOpLK mul temp", (string)(x * 0.1) == (string)(G * 0.1));
        check("FOpLK div temp", x / 7.0 * 7.0 == G / 7.0 * 7.0);

        integer i = 17;
        integer j = -5;
        GI = i;
        GJ = j;
        integer v;
        v = i + j;  check("IOpLLS +", v == GI + GJ);
        v = i - j;  check("IOpLLS -", v == GI - GJ);
        v = i * j;  check("IOpLLS *", v == GI * GJ);
        v = i / j;  check("IOpLLS /", v == GI / GJ && v == -3);
        v = i % j;  check("IOpLLS %", v == GI % GJ && v == 2);
        v = i & j;  check("IOpLLS &", v == (GI & GJ));
        v = i | j;  check("IOpLLS |", v == (GI | GJ));
        v = i ^ j;  check("IOpLLS ^", v == (GI ^ GJ));
        v = i << j; check("IOpLLS <<", v == GI << GJ);
        v = j >> i; check("IOpLLS >>", v == GJ >> GI);
        v = i == j; check("IOpLLS ==", v == (GI == GJ));
        v = i != j; check("IOpLLS !=", v == (GI != GJ));
        v = i < j;  check("IOpLLS <", v == (GI < GJ));
        v = i <= j; check("IOpLLS <=", v == (GI <= GJ));
        v = i > j;  check("IOpLLS >", v == (GI > GJ));
        v = i >= j; check("IOpLLS >=", v == (GI >= GJ));
        integer m = -2147483648;
        integer n1 = -1;
        v = m / n1; check("IOpLLS MIN/-1", v == m);
        v = m % n1; check("IOpLLS MIN%-1", v == 0);
        v = i % 8;  check("IOpLKS %8", v == 1);

        // compare-and-branch on a float local, false- and true-jump forms
        float h = 1000.0;
        H = h;
        integer k = 0;
        integer gk = 0;
        while (h > 0.5) { h = h * 0.5; ++k; }
        while (H > 0.5) { H = H * 0.5; ++gk; }
        check("JcmpFLK while", k == gk && k == 11);
        h = 3.0; k = 0;
        do { h = h - 1.0; ++k; } while (h >= 0.0);
        check("JcmpFLKT do-while", k == 4);
        h = -2.0; k = 0;
        if (h < 0.0) k = k + 1;
        if (h <= -2.0) k = k + 2;
        if (h == -2.0) k = k + 4;
        if (h != -2.0) k = k + 8;
        if (h > -3.0) k = k + 16;
        if (h >= -1.0) k = k + 32;
        check("JcmpFLK each comparison", k == 23);
        float nan = (float)"nan";
        k = 0;
        if (nan < 1.0) k = k + 1;
        if (nan >= 1.0) k = k + 2;
        if (nan != 1.0) k = k + 4;
        check("JcmpFLK NaN", k == 4);
        k = 0;
        do { ++k; } while (nan < 1.0);
        check("JcmpFLKT NaN", k == 1);

        // accumulation into a local (AddToI, AddToF: rounded once)
        integer acc = 5;
        acc += i * 2;
        GI = 5;
        GI += 17 * 2;
        check("AddToI", acc == GI && acc == 39);
        GI = i;
        float fa = 16777215.0;
        fa = fa + (x + 1.0);
        H = G + (G + 1.0);
        check("AddToF", fa == H && fa == 33554432.0);
        // string equality on the stack
        string s1 = "w7";
        list wl = ["w7", "w8"];
        check("string ==", llList2String(wl, 0) == s1 && !(llList2String(wl, 1) == s1) && llList2String(wl, 1) != s1);
        // an integer local tested against 0
        integer zz = 0;
        k = 0;
        if (zz == 0) k += 1;
        if (zz != 0) k += 2;
        zz = 3;
        if (zz == 0) k += 4;
        if (zz != 0) k += 8;
        check("JnzL/JzL x == 0", k == 9);
        // loads regrouped for the operator: pair(j, i % j)
        check("LoadLL regrouped", pair(j, i % j) == pair(GJ, GI % GJ) && pair(j, i % j) == -4998);

        // a computed integer OP a constant, stored at once (IOpKS): by a
        // reciprocal, a power of two, -1 and a plain operator, negatives included
        integer w;
        w = (i - 20) % 7;   check("IOpKS %7", w == (GI - 20) % 7 && w == -3);
        w = (i - 20) / 7;   check("IOpKS /7", w == (GI - 20) / 7 && w == 0);
        w = (j * 9) / -4;   check("IOpKS /-4", w == (GJ * 9) / -4 && w == 11);
        w = (j * 9) % 8;    check("IOpKS %8", w == (GJ * 9) % 8 && w == -5);
        w = (j * 9) / 8;    check("IOpKS /8", w == (GJ * 9) / 8 && w == -5);
        w = (m + 0) / -1;   check("IOpKS MIN/-1", w == m);
        w = (m + 0) % -1;   check("IOpKS MIN%-1", w == 0);
        w = (i * 31 + j) * 3; check("IOpKS *3", w == (GI * 31 + GJ) * 3 && w == 1566);
        w = (i + j) << 3;   check("IOpKS <<", w == (GI + GJ) << 3);
        w = (j - i) >> 2;   check("IOpKS >>", w == (GJ - GI) >> 2 && w == -6);
        // a local modulo a power of two, tested (JzIOpLK, JnzIOpLK): the sign
        // of the remainder does not change its truth
        k = 0;
        integer q = -12;
        if (q % 8) k += 1;
        if (q % 4) k += 2;
        if (!(q % 4)) k += 4;
        q = -13;
        if (q % 2) k += 8;
        if (q % 2 == 0) k += 16;
        check("JzIOpLK %2^k", k == 13);

        // a float local read before the left operand's one or two pure
        // instructions is taken in the addition's or product's slot (MulFL,
        // AddFL), then stored with it; in the threaded code a float
        // operation and the store of its result are one pair; the same
        // values through globals, which take neither form
        float zr = 0.75;
        float zi = -0.3;
        float cr = 0.1;
        float ci = 0.2;
        float zr2 = zr * zr;
        float zi2 = zi * zi;
        G = zr;
        H = zi;
        float e = 2.0 * G * H + 0.2;
        zi = 2.0 * zr * zi + ci;
        check("FOpLK MulFL FOpLS", zi == e);
        G = zr2;
        H = zi2;
        e = G - H + 0.1;
        zr = zr2 - zi2 + cr;
        check("SubFLL FOpLS", zr == e);
        G = zr;
        e = G * 5.0 + ci;
        zr = zr * 5.0 + ci;
        check("FmaLK StoreLocal", zr == e);
        G = zr2;
        e = zr;
        e = G + (e - H);
        zr2 += zr - zi2;
        check("SubFLL AddToF", zr2 == e);

        // a constant times an integer: the integer converted first (I2F, MulFK)
        H = 0.5 * (integer)x;
        check("MulFK of an integer", H == 8388607.5 && 0.5 * GI == 8.5);

        // FOpLKS then a comparison of the local it wrote (one dispatch in
        // the threaded code): the rounded float32 is what is compared
        float fw = 0.0;
        G = 0.0;
        k = 0;
        gk = 0;
        while (fw < 2.0) { fw += 0.1; ++k; }
        while (G < 2.0) { G += 0.1; ++gk; }
        check("FOpLKS JcmpFLK", fw == G && k == gk && k == 20);
        fw = 65537.5 * 3.0;
        G = fw;
        while (fw >= 65536.0) fw -= 65536.0;
        while (G >= 65536.0) G -= 65536.0;
        check("FOpLKS JcmpFLKT", fw == G && fw == 4.5);
        fw = 16777215.0;
        k = 0;
        if ((fw += 1.5) == 16777216.0) k = 1;
        fw = 1.0;
        while ((fw *= 3.0) != 59049.0 && fw < 1e6) ++k;
        check("FOpLKS JcmpFLK == !=", k == 10);
        // LoadLL of two float locals then the jump comparing them
        float best = -1.0;
        float y2 = 0.0;
        H = -1.0;
        k = 0;
        for (i = 0; i < 40; ++i) {
            y2 = (float)((i * 37) % 23) - 0.5;
            G = y2;
            if (y2 > best) best = y2;
            if (G > H) H = G;
            if (y2 <= best) ++k;
            if (y2 < best) ++k;
            if (y2 >= best) ++k;
        }
        check("LoadLL jumps", best == H && best == 21.5 && k == 80);

        float z = x / 0.0; // FOpLKS: the divisor is 0, a Math Error
        llOwnerSay("FAIL not reached " + (string)z);
    }
}
