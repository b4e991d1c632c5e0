// Conformance: Second Life's grammar — scripts SL compiles that gsvm once
// refused: print(expr) (a keyword of LSL's grammar: a host line), an
// assignment as an operand (lowest precedence, binding right), stray
// characters between tokens (SL's lexer ignores them), `>` inside a vector
// literal (a comparison until the closing `>`), and nesting far deeper than
// 200 levels (an else-if chain of 250 branches, 400 parentheses, 200 blocks).
// Expected values are Second Life's; the script says "PASS <n>" when every
// check holds.
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

integer gDeep;

string grade(integer n)
{
    string r;
    if (n == 0) r = "b0";
    else if (n == 1) r = "b1";
    else if (n == 2) r = "b2";
    else if (n == 3) r = "b3";
    else if (n == 4) r = "b4";
    else if (n == 5) r = "b5";
    else if (n == 6) r = "b6";
    else if (n == 7) r = "b7";
    else if (n == 8) r = "b8";
    else if (n == 9) r = "b9";
    else if (n == 10) r = "b10";
    else if (n == 11) r = "b11";
    else if (n == 12) r = "b12";
    else if (n == 13) r = "b13";
    else if (n == 14) r = "b14";
    else if (n == 15) r = "b15";
    else if (n == 16) r = "b16";
    else if (n == 17) r = "b17";
    else if (n == 18) r = "b18";
    else if (n == 19) r = "b19";
    else if (n == 20) r = "b20";
    else if (n == 21) r = "b21";
    else if (n == 22) r = "b22";
    else if (n == 23) r = "b23";
    else if (n == 24) r = "b24";
    else if (n == 25) r = "b25";
    else if (n == 26) r = "b26";
    else if (n == 27) r = "b27";
    else if (n == 28) r = "b28";
    else if (n == 29) r = "b29";
    else if (n == 30) r = "b30";
    else if (n == 31) r = "b31";
    else if (n == 32) r = "b32";
    else if (n == 33) r = "b33";
    else if (n == 34) r = "b34";
    else if (n == 35) r = "b35";
    else if (n == 36) r = "b36";
    else if (n == 37) r = "b37";
    else if (n == 38) r = "b38";
    else if (n == 39) r = "b39";
    else if (n == 40) r = "b40";
    else if (n == 41) r = "b41";
    else if (n == 42) r = "b42";
    else if (n == 43) r = "b43";
    else if (n == 44) r = "b44";
    else if (n == 45) r = "b45";
    else if (n == 46) r = "b46";
    else if (n == 47) r = "b47";
    else if (n == 48) r = "b48";
    else if (n == 49) r = "b49";
    else if (n == 50) r = "b50";
    else if (n == 51) r = "b51";
    else if (n == 52) r = "b52";
    else if (n == 53) r = "b53";
    else if (n == 54) r = "b54";
    else if (n == 55) r = "b55";
    else if (n == 56) r = "b56";
    else if (n == 57) r = "b57";
    else if (n == 58) r = "b58";
    else if (n == 59) r = "b59";
    else if (n == 60) r = "b60";
    else if (n == 61) r = "b61";
    else if (n == 62) r = "b62";
    else if (n == 63) r = "b63";
    else if (n == 64) r = "b64";
    else if (n == 65) r = "b65";
    else if (n == 66) r = "b66";
    else if (n == 67) r = "b67";
    else if (n == 68) r = "b68";
    else if (n == 69) r = "b69";
    else if (n == 70) r = "b70";
    else if (n == 71) r = "b71";
    else if (n == 72) r = "b72";
    else if (n == 73) r = "b73";
    else if (n == 74) r = "b74";
    else if (n == 75) r = "b75";
    else if (n == 76) r = "b76";
    else if (n == 77) r = "b77";
    else if (n == 78) r = "b78";
    else if (n == 79) r = "b79";
    else if (n == 80) r = "b80";
    else if (n == 81) r = "b81";
    else if (n == 82) r = "b82";
    else if (n == 83) r = "b83";
    else if (n == 84) r = "b84";
    else if (n == 85) r = "b85";
    else if (n == 86) r = "b86";
    else if (n == 87) r = "b87";
    else if (n == 88) r = "b88";
    else if (n == 89) r = "b89";
    else if (n == 90) r = "b90";
    else if (n == 91) r = "b91";
    else if (n == 92) r = "b92";
    else if (n == 93) r = "b93";
    else if (n == 94) r = "b94";
    else if (n == 95) r = "b95";
    else if (n == 96) r = "b96";
    else if (n == 97) r = "b97";
    else if (n == 98) r = "b98";
    else if (n == 99) r = "b99";
    else if (n == 100) r = "b100";
    else if (n == 101) r = "b101";
    else if (n == 102) r = "b102";
    else if (n == 103) r = "b103";
    else if (n == 104) r = "b104";
    else if (n == 105) r = "b105";
    else if (n == 106) r = "b106";
    else if (n == 107) r = "b107";
    else if (n == 108) r = "b108";
    else if (n == 109) r = "b109";
    else if (n == 110) r = "b110";
    else if (n == 111) r = "b111";
    else if (n == 112) r = "b112";
    else if (n == 113) r = "b113";
    else if (n == 114) r = "b114";
    else if (n == 115) r = "b115";
    else if (n == 116) r = "b116";
    else if (n == 117) r = "b117";
    else if (n == 118) r = "b118";
    else if (n == 119) r = "b119";
    else if (n == 120) r = "b120";
    else if (n == 121) r = "b121";
    else if (n == 122) r = "b122";
    else if (n == 123) r = "b123";
    else if (n == 124) r = "b124";
    else if (n == 125) r = "b125";
    else if (n == 126) r = "b126";
    else if (n == 127) r = "b127";
    else if (n == 128) r = "b128";
    else if (n == 129) r = "b129";
    else if (n == 130) r = "b130";
    else if (n == 131) r = "b131";
    else if (n == 132) r = "b132";
    else if (n == 133) r = "b133";
    else if (n == 134) r = "b134";
    else if (n == 135) r = "b135";
    else if (n == 136) r = "b136";
    else if (n == 137) r = "b137";
    else if (n == 138) r = "b138";
    else if (n == 139) r = "b139";
    else if (n == 140) r = "b140";
    else if (n == 141) r = "b141";
    else if (n == 142) r = "b142";
    else if (n == 143) r = "b143";
    else if (n == 144) r = "b144";
    else if (n == 145) r = "b145";
    else if (n == 146) r = "b146";
    else if (n == 147) r = "b147";
    else if (n == 148) r = "b148";
    else if (n == 149) r = "b149";
    else if (n == 150) r = "b150";
    else if (n == 151) r = "b151";
    else if (n == 152) r = "b152";
    else if (n == 153) r = "b153";
    else if (n == 154) r = "b154";
    else if (n == 155) r = "b155";
    else if (n == 156) r = "b156";
    else if (n == 157) r = "b157";
    else if (n == 158) r = "b158";
    else if (n == 159) r = "b159";
    else if (n == 160) r = "b160";
    else if (n == 161) r = "b161";
    else if (n == 162) r = "b162";
    else if (n == 163) r = "b163";
    else if (n == 164) r = "b164";
    else if (n == 165) r = "b165";
    else if (n == 166) r = "b166";
    else if (n == 167) r = "b167";
    else if (n == 168) r = "b168";
    else if (n == 169) r = "b169";
    else if (n == 170) r = "b170";
    else if (n == 171) r = "b171";
    else if (n == 172) r = "b172";
    else if (n == 173) r = "b173";
    else if (n == 174) r = "b174";
    else if (n == 175) r = "b175";
    else if (n == 176) r = "b176";
    else if (n == 177) r = "b177";
    else if (n == 178) r = "b178";
    else if (n == 179) r = "b179";
    else if (n == 180) r = "b180";
    else if (n == 181) r = "b181";
    else if (n == 182) r = "b182";
    else if (n == 183) r = "b183";
    else if (n == 184) r = "b184";
    else if (n == 185) r = "b185";
    else if (n == 186) r = "b186";
    else if (n == 187) r = "b187";
    else if (n == 188) r = "b188";
    else if (n == 189) r = "b189";
    else if (n == 190) r = "b190";
    else if (n == 191) r = "b191";
    else if (n == 192) r = "b192";
    else if (n == 193) r = "b193";
    else if (n == 194) r = "b194";
    else if (n == 195) r = "b195";
    else if (n == 196) r = "b196";
    else if (n == 197) r = "b197";
    else if (n == 198) r = "b198";
    else if (n == 199) r = "b199";
    else if (n == 200) r = "b200";
    else if (n == 201) r = "b201";
    else if (n == 202) r = "b202";
    else if (n == 203) r = "b203";
    else if (n == 204) r = "b204";
    else if (n == 205) r = "b205";
    else if (n == 206) r = "b206";
    else if (n == 207) r = "b207";
    else if (n == 208) r = "b208";
    else if (n == 209) r = "b209";
    else if (n == 210) r = "b210";
    else if (n == 211) r = "b211";
    else if (n == 212) r = "b212";
    else if (n == 213) r = "b213";
    else if (n == 214) r = "b214";
    else if (n == 215) r = "b215";
    else if (n == 216) r = "b216";
    else if (n == 217) r = "b217";
    else if (n == 218) r = "b218";
    else if (n == 219) r = "b219";
    else if (n == 220) r = "b220";
    else if (n == 221) r = "b221";
    else if (n == 222) r = "b222";
    else if (n == 223) r = "b223";
    else if (n == 224) r = "b224";
    else if (n == 225) r = "b225";
    else if (n == 226) r = "b226";
    else if (n == 227) r = "b227";
    else if (n == 228) r = "b228";
    else if (n == 229) r = "b229";
    else if (n == 230) r = "b230";
    else if (n == 231) r = "b231";
    else if (n == 232) r = "b232";
    else if (n == 233) r = "b233";
    else if (n == 234) r = "b234";
    else if (n == 235) r = "b235";
    else if (n == 236) r = "b236";
    else if (n == 237) r = "b237";
    else if (n == 238) r = "b238";
    else if (n == 239) r = "b239";
    else if (n == 240) r = "b240";
    else if (n == 241) r = "b241";
    else if (n == 242) r = "b242";
    else if (n == 243) r = "b243";
    else if (n == 244) r = "b244";
    else if (n == 245) r = "b245";
    else if (n == 246) r = "b246";
    else if (n == 247) r = "b247";
    else if (n == 248) r = "b248";
    else if (n == 249) r = "b249";
    else r = "none";
    return r;
}

integer sideEffects()
{
    integer c = 1;
    integer e = 2;
    c = c + e *= 4;              // c + (e *= 4)
    return c * 100 + e;
}

default
{
    state_entry()
    {
        print("print is a statement");
        print(42);
        checkI("assignment as an operand", sideEffects(), 908);
        integer e;
        integer hit;
        if (0 < e = 5) hit = 1;
        checkI("assignment in a comparison", hit * 10 + e, 15);
        integer on = 1;
        checkI("not of an assignment", !on = 0, 1);
        checkI("the assigned variable", on, 0);
        integer a = 1;
        integer b;
        b = a += 2 * 3;             // a += (2 * 3)
        checkI("compound assignment as an operand", b * 10 + a, 77);
        checkI("assignment binds right", 1 + (a = 3) * 2, 7);
        vector v = <1, 1>0, 1>;
        checkV("> inside a vector literal", v, <1, 1, 1>);
        rotation r = <1, 2, 3 > 2, 4>;
        checkR("> in a rotation's third component", r, <1, 2, 1, 4>);
        checkV("nested vector comparison", <2 > 1, 0 > 1, 3>, <1, 0, 3>);
        integer s = 3; \ $ '
        checkI("stray characters are ignored", s, 3); ` $
        checkS("else-if chain, first", grade(0), "b0");
        checkS("else-if chain, 199th", grade(198), "b198");
        checkS("else-if chain, last", grade(249), "b249");
        checkS("else-if chain, none", grade(250), "none");
        checkI("400 parentheses", ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((7)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))), 7);
        {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{ gDeep = 5; }}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}
        checkI("200 nested blocks", gDeep, 5);
        done();
    }
}
