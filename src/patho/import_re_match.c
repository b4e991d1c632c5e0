/* The templates of the community disassembler's listing syntax and their
 * matcher (see import_re.c for the importer).
 *
 * Written from the syntax as it appears in the listings and the tool's
 * documented format; no code of that project is used. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "patho/import_re.h"
#include "patho/internal.h"
#include "patho/isa.h"

/* Template letters:
 *   %s  Stack[-N]                       (a stack variable)
 *   %t  Stack[N + Tasks[-1].StackPointer] or Stack[N + StackPtr]
 *   %v  either of the two
 *   %u  unsigned integer (decimal or 0x hex)     %i  signed integer
 *   %f  float (Python repr, inf and nan too)     %x  target (0xN or N)
 *   %q  "string" (up to the last quote on the line)
 *   %n  a name (up to '(')     %a  an argument list up to ')'
 *   %y  a type list up to ')'
 * A space in a template matches any run of spaces, including none.
 *
 * PERM has one character per operand letter of the op (isa.def order): the
 * index of the capture that fills it, or '-' for zero.  For 'f' it is the
 * pop-count capture (the mode bits come from the 'm' captures), for 'T'/'Q'
 * the variable capture whose addressing mode they hold, for 'G' the popped
 * count of PopGE. */

#define O(n) GSVM_PATHO_OP_##n
const tmpl re_templates[] = {
    {"%s = %s", O(Mov), "01"},
    {"%s = %t", O(MovT), "10"},
    {"%t = %s", O(TMov), "10"},
    {"%t = %t", O(TMovT), "10"},
    {"%s = (bool) %u", O(MovB), "01"},
    {"%t = (bool) %u", O(TMovB), "01"},
    {"%s = (int) %i", O(MovI), "01"},
    {"%t = (int) %i", O(TMovI), "01"},
    {"%s = (float) %f", O(MovF), "01"},
    {"%t = (float) %f", O(TMovF), "01"},
    {"%s = CVector(%f, %f, %f)", O(MovV), "0123"},
    {"%t = CVector(%f, %f, %f)", O(TMovV), "0123"},
    {"%s = %q", O(MovS), "01"},
    {"%t = %q", O(TMovS), "01"},
    {"%s = 0", O(SetNull), "0"},
    {"%t = 0", O(SetNullT), "0"},
    {"%s = NULL", O(SetNull), "0"},
    {"%t = NULL", O(SetNullT), "0"},
    {"GOTO %x", O(Jump), "0"},
    {"IF (%s == %u) GOTO %x; Pop(%u)", O(JumpB), "0213"},
    {"Push( %s )", O(Push), "0"},
    {"Push( %t )", O(PushT), "0"},
    {"Push((bool) %u)", O(PushB), "0"},
    {"Push((int) %i)", O(PushI), "0"},
    {"Push((float) %f)", O(PushF), "0"},
    {"Push(CVector(%f, %f, %f))", O(PushVec), "012"},
    {"Push([%f, %f, %f])", O(PushVec), "012"}, /* 2005 listings; the community asm refuses it */
    {"Push(CvectorIndex(%v, %i))", O(PushE), "001-"},
    {"Push(GlobalVars[%u])", O(PushGE), "0"},
    {"Push(%q)", O(PushS), "0"},
    {"PushEmpty(%y)", O(PushV), "0"},
    {"Pop(%u)", O(Pop), "0"},
    {"CvectorIndex(%v, %i) = Stack[-1];", O(PopE), "010"},
    {"GlobalVars[%u] = Stack[-1]; Pop(%u)", O(PopGE), "01"},
    {"Pop(%u); Push(%v + %v);", O(Add), "120"},
    {"Pop(%u); Push(%v - %v);", O(Sub), "120"},
    {"Pop(%u); Push(%v * %v);", O(Mult), "120"},
    {"Pop(%u); Push(%v / %v);", O(Div), "120"},
    {"Pop(%u); Push(%v %% %v);", O(Mod), "120"},
    {"Pop(%u); Push(%v & %v);", O(And), "120"},
    {"Pop(%u); Push(%v && %v);", O(And), "120"},
    {"Pop(%u); Push(%v | %v);", O(Or), "120"},
    {"Pop(%u); Push(%v || %v);", O(Or), "120"},
    {"Pop(%u); Push(%v ^ %v);", O(Xor), "120"},
    {"Pop(%u); Push((bool) %v == 0)", O(Not), "10"},
    {"Pop(%u); Push((bool) %v == %v)", O(Eq), "120"},
    {"Pop(%u); Push((bool) %v != 0)", O(NullNeq), "10"},
    {"Pop(%u); Push((bool) %v != %v)", O(Neq), "120"},
    {"Pop(%u); Push((bool) %v <= %v)", O(LE), "120"},
    {"Pop(%u); Push((bool) %v >= %v)", O(GE), "120"},
    {"Pop(%u); Push((bool) %v < %v)", O(LT), "120"},
    {"Pop(%u); Push((bool) %v > %v)", O(GT), "120"},
    {"Pop(%u); PushNull((bool) %v == 0)", O(NullEq), "10"},
    {"Pop(%u); Push(( %v != 0 )", O(NullNeq), "10"},
    {"Pop(%u); Push(( -%v)", O(Neg), "10"},
    {"Pop(%u); Push(Sqrt(%v))", O(Sqrt), "10"},
    {"Pop(%u); Push(Sin(%v))", O(Sin), "10"},
    {"Pop(%u); Push(Cos(%v))", O(Cos), "10"},
    {"Pop(%u); Push(ASin(%v))", O(ASin), "10"},
    {"Pop(%u); Push(Pow(%v, %v));", O(Pow), "120"},
    {"Pop(%u); Push(IsFuncExist(%v, %v, %v))", O(FuncExist), "1230"},
    {"%v = %v == 0; Pop(%u);", O(NullEq2), "102"},
    {"%v = %v != 0; Pop(%u);", O(NullNeq2), "102"},
    {"%v = -%v; Pop(%u);", O(Neg2), "102"},
    {"%v = !%v; Pop(%u);", O(Not2), "102"},
    {"%v = %v + %v; Pop(%u);", O(Add2), "1203"},
    {"%v = %v - %v; Pop(%u);", O(Sub2), "1203"},
    {"%v = %v * %v; Pop(%u);", O(Mult2), "1203"},
    {"%v = %v / %v; Pop(%u);", O(Div2), "1203"},
    {"%v = %v %% %v; Pop(%u);", O(Mod2), "1203"},
    {"%v = %v & %v; Pop(%u);", O(And2), "1203"},
    {"%v = %v | %v; Pop(%u);", O(Or2), "1203"},
    {"%v = %v ^ %v; Pop(%u);", O(Xor2), "1203"},
    {"%v = %v == %v; Pop(%u);", O(Eq2), "1203"},
    {"%v = %v != %v; Pop(%u);", O(Neq2), "1203"},
    {"%v = %v <= %v; Pop(%u);", O(LE2), "1203"},
    {"%v = %v >= %v; Pop(%u);", O(GE2), "1203"},
    {"%v = %v < %v; Pop(%u);", O(LT2), "1203"},
    {"%v = %v > %v; Pop(%u);", O(GT2), "1203"},
    {"%v = Sqrt(%v); Pop(%u);", O(Sqrt2), "102"},
    {"%v = Sin(%v); Pop(%u);", O(Sin2), "102"},
    {"%v = Cos(%v); Pop(%u);", O(Cos2), "102"},
    {"%v = ASin(%v); Pop(%u);", O(ASin2), "102"},
    {"%v = Pow(%v, %v); Pop(%u);", O(Pow2), "1203"},
    {"%v = FuncExist2(%v, %v, %v)", O(FuncExist2), "1230-"},
    {"CString(%v); Pop(%u)", O(CString), "01"},
    {"%v = CString2(%v); Pop(%u)", O(CString2), "102"},
    {"%v = NEW1(%v); Pop(%u)", O(CString2), "102"}, /* release 2's name for it */
    {"Call2 %x", O(Call), "0"},
    {"Call %x", O(Call), "0"},
    {"Return(); Pop(%u)", O(Return), "0"},
    {"Push(-%u, %u); TaskCall(%u)", O(TaskCall), "2"},
    {"Pop(-%u, %u); TaskReturn", O(TaskReturn), ""},
    {"@@@ %n(%a); Obj=%u", O(TObjFunc), "201"},
    {"@@ %n(%a); Obj=%u", O(ObjFunc), "201"},
    /* release 2: no object slot (the community asm writes 0), no @@@ */
    {"@@@ %n(%a)", O(TObjFunc), "-01"},
    {"@@ %n(%a)", O(ObjFunc), "-01"},
    {"@ %n(%a)", O(Func), "0"},
    {"EventEnable(%i)", O(EventEnable), "0"},
    {"EventDisable(%i)", O(EventDisable), "0"},
};
#undef O
const size_t re_ntemplates = sizeof re_templates / sizeof re_templates[0];


/* ---- template matching ---------------------------------------------------- */

const char *re_skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

bool re_match_uint(const char **ps, const char *end, int64_t *out, bool allow_sign)
{
    const char *s = *ps;
    bool neg = false;
    if (allow_sign && s < end && *s == '-') {
        neg = true;
        s++;
    }
    int base = 10;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    uint64_t v = 0;
    const char *start = s;
    for (; s < end; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0'
                : base == 16 && *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : base == 16 && *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
        if (d < 0)
            break;
        v = v * (unsigned)base + (unsigned)d;
        if (v > 0xFFFFFFFFull)
            return false;
    }
    if (s == start)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *ps = s;
    return true;
}

bool re_match_lit(const char **ps, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - *ps) < n || memcmp(*ps, lit, n) != 0)
        return false;
    *ps += n;
    return true;
}

/* Stack[-N] -> (N, 0); Stack[N + Tasks[-1].StackPointer] / Stack[N + StackPtr] -> (N, 1) */
bool re_match_ref(const char **ps, const char *end, capture *c, int want)
{
    const char *s = *ps;
    if (!re_match_lit(&s, end, "Stack["))
        return false;
    int64_t v;
    if (s < end && *s == '-') {
        s++;
        if (!re_match_uint(&s, end, &v, false) || !re_match_lit(&s, end, "]"))
            return false;
        c->task = 0;
    } else {
        if (!re_match_uint(&s, end, &v, false))
            return false;
        s = re_skip_spaces(s, end);
        if (!re_match_lit(&s, end, "+"))
            return false;
        s = re_skip_spaces(s, end);
        if (!re_match_lit(&s, end, "Tasks[-1].StackPointer") && !re_match_lit(&s, end, "StackPtr"))
            return false;
        s = re_skip_spaces(s, end);
        if (!re_match_lit(&s, end, "]"))
            return false;
        c->task = 1;
    }
    if (want >= 0 && c->task != want)
        return false;
    c->v = v;
    *ps = s;
    return true;
}

static bool match_float(const char **ps, const char *end, capture *c)
{
    char tmp[64];
    size_t n = 0;
    const char *s = *ps;
    while (s < end && n < sizeof tmp - 1 &&
           ((*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '+' || *s == 'e' ||
            *s == 'E' || *s == 'i' || *s == 'n' || *s == 'f' || *s == 'a'))
        tmp[n++] = *s++;
    tmp[n] = 0;
    if (!n)
        return false;
    char *e;
    errno = 0;
    float f = strtof(tmp, &e);
    if (*e)
        return false;
    c->v = gsvm_patho_f32_bits(f);
    *ps = s;
    return true;
}

/* Matches `pat` against [s, end) exactly. */
bool re_match(const char *pat, const char *s, const char *end, capture *caps, int *ncaps)
{
    *ncaps = 0;
    while (*pat) {
        if (*pat == ' ') {
            s = re_skip_spaces(s, end);
            pat++;
            continue;
        }
        if (*pat != '%' || pat[1] == '%') {
            if (s >= end || *s != *pat)
                return false;
            s++;
            pat += *pat == '%' ? 2 : 1;
            continue;
        }
        char k = pat[1];
        pat += 2;
        if (*ncaps >= MAX_CAPS)
            return false;
        capture *c = &caps[(*ncaps)++];
        memset(c, 0, sizeof *c);
        c->task = -1;
        switch (k) {
        case 's': if (!re_match_ref(&s, end, c, 0)) return false; break;
        case 't': if (!re_match_ref(&s, end, c, 1)) return false; break;
        case 'v': if (!re_match_ref(&s, end, c, -1)) return false; break;
        case 'u': case 'x': if (!re_match_uint(&s, end, &c->v, false)) return false; break;
        case 'i': if (!re_match_uint(&s, end, &c->v, true)) return false; break;
        case 'f': if (!match_float(&s, end, c)) return false; break;
        case 'q': {
            /* from this quote to the last quote followed by the rest of the pattern */
            if (s >= end || *s != '"')
                return false;
            const char *last = NULL;
            for (const char *q = end - 1; q > s; q--)
                if (*q == '"') {
                    last = q;
                    break;
                }
            if (!last)
                return false;
            c->s = s + 1;
            c->n = (size_t)(last - s - 1);
            s = last + 1;
            break;
        }
        case 'n': {
            const char *q = s;
            while (q < end && *q != '(' && *q != ' ')
                q++;
            if (q == s)
                return false;
            c->s = s;
            c->n = (size_t)(q - s);
            s = q;
            break;
        }
        case 'a': case 'y': {
            const char *q = s;
            int depth = 0;
            while (q < end && (*q != ')' || depth > 0)) {
                if (*q == '[')
                    depth++;
                else if (*q == ']')
                    depth--;
                q++;
            }
            c->s = s;
            c->n = (size_t)(q - s);
            s = q;
            break;
        }
        default: return false;
        }
    }
    return s == end;
}
