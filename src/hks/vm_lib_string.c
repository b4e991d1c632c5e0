/* The string library of Lua 5.1: sub, upper, rep, byte, char, format, and
 * the pattern functions find, match, gmatch and gsub with Lua's pattern
 * language (character classes, sets, captures, %b, %f, anchors and the
 * four repetition forms).  Matching is backtracking like Lua's; every step
 * is charged to the VM's instruction budget and recursion is bounded, so a
 * pathological pattern ends at a limit instead of hanging the host. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hks/vm.h"

static inline int64_t posrelat(int64_t pos, size_t len)
{
    return pos >= 0 ? pos : (int64_t)len + pos + 1;
}

static int s_len(hv_thread *L, int n)
{
    hv_pushnum(L, hv_checkstr(L, n, 0, "len")->len);
    return 1;
}

static int s_sub(hv_thread *L, int n)
{
    hv_str *s = hv_checkstr(L, n, 0, "sub");
    int64_t i = posrelat(hv_optint(L, n, 1, "sub", 1), s->len);
    int64_t j = posrelat(hv_optint(L, n, 2, "sub", -1), s->len);
    if (i < 1)
        i = 1;
    if (j > (int64_t)s->len)
        j = s->len;
    if (i <= j)
        hv_pushlstr(L, s->data + i - 1, (size_t)(j - i + 1));
    else
        hv_pushlstr(L, "", 0);
    return 1;
}

static int s_case(hv_thread *L, int n, int upper, const char *fn)
{
    hv_str *s = hv_checkstr(L, n, 0, fn);
    hv_buf b;
    hv_buf_init(L, &b);
    hv_buf_add(L, &b, s->data, s->len);
    for (size_t i = 0; i < b.n; i++)
        b.p[i] = (char)(upper ? toupper((unsigned char)b.p[i]) : tolower((unsigned char)b.p[i]));
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    return 1;
}
static int s_upper(hv_thread *L, int n) { return s_case(L, n, 1, "upper"); }
static int s_lower(hv_thread *L, int n) { return s_case(L, n, 0, "lower"); }

static int s_rep(hv_thread *L, int n)
{
    hv_str *s = hv_checkstr(L, n, 0, "rep");
    int64_t k = hv_checkint(L, n, 1, "rep");
    if (k <= 0 || s->len == 0) {
        hv_pushlstr(L, "", 0);
        return 1;
    }
    if ((uint64_t)k * s->len > L->vm->lim.max_string)
        hv_error(L, "string length exceeds the limit of %u bytes", L->vm->lim.max_string);
    hv_buf b;
    hv_buf_init(L, &b);
    for (int64_t i = 0; i < k; i++)
        hv_buf_add(L, &b, s->data, s->len);
    hv_pushlstr(L, b.p, b.n);
    hv_buf_free(L, &b);
    return 1;
}

static int s_reverse(hv_thread *L, int n)
{
    hv_str *s = hv_checkstr(L, n, 0, "reverse");
    hv_buf b;
    hv_buf_init(L, &b);
    hv_buf_add(L, &b, s->data, s->len);
    for (size_t i = 0; i < b.n / 2; i++) {
        char c = b.p[i];
        b.p[i] = b.p[b.n - 1 - i];
        b.p[b.n - 1 - i] = c;
    }
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    return 1;
}

static int s_byte(hv_thread *L, int n)
{
    hv_str *s = hv_checkstr(L, n, 0, "byte");
    int64_t i = posrelat(hv_optint(L, n, 1, "byte", 1), s->len);
    int64_t j = posrelat(hv_optint(L, n, 2, "byte", i), s->len);
    if (i < 1)
        i = 1;
    if (j > (int64_t)s->len)
        j = s->len;
    if (i > j)
        return 0;
    int cnt = (int)(j - i + 1);
    hv_stack_check(L, cnt);
    for (int k = 0; k < cnt; k++)
        hv_pushnum(L, (unsigned char)s->data[i - 1 + k]);
    return cnt;
}

static int s_char(hv_thread *L, int n)
{
    hv_buf b;
    hv_buf_init(L, &b);
    for (int i = 0; i < n; i++) {
        int64_t c = hv_checkint(L, n, i, "char");
        if (c < 0 || c > 255)
            hv_argerror(L, i, "char", "invalid value");
        char ch = (char)c;
        hv_buf_add(L, &b, &ch, 1);
    }
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    return 1;
}

/* ---- patterns ---- */

enum { MAXCAPTURES = 32, CAP_UNFINISHED = -1, CAP_POSITION = -2, MAXMATCHDEPTH = 200 };
#define L_ESC '%'
#define SPECIALS "^$*+?.([%-"

typedef struct match_state {
    const char *src_init, *src_end;
    hv_thread *L;
    int level, depth;
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[MAXCAPTURES];
} match_state;

static void charge(match_state *ms)
{
    hv_vm *vm = ms->L->vm;
    if (--vm->steps_left < 0)
        hv_budget_slow_c(ms->L);
}

static int check_capture(match_state *ms, int l)
{
    l -= '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == CAP_UNFINISHED)
        hv_error(ms->L, "invalid capture index");
    return l;
}

static int capture_to_close(match_state *ms)
{
    int level = ms->level;
    for (level--; level >= 0; level--)
        if (ms->capture[level].len == CAP_UNFINISHED)
            return level;
    hv_error(ms->L, "invalid pattern capture");
}

static const char *classend(match_state *ms, const char *p, const char *pend)
{
    switch (*p++) {
    case L_ESC:
        if (p >= pend)
            hv_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^')
            p++;
        do {
            if (p >= pend)
                hv_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == L_ESC && p < pend)
                p++;
        } while (*p != ']');
        return p + 1;
    default: return p;
    }
}

static int match_class(int c, int cl)
{
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = (c == 0); break;
    default: return (cl == c);
    }
    if (isupper(cl))
        res = !res;
    return res != 0;
}

static int matchbracketclass(int c, const char *p, const char *ec)
{
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == L_ESC) {
            p++;
            if (match_class(c, (unsigned char)*p))
                return sig;
        } else if (*(p + 1) == '-' && (p + 2 < ec)) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p)
                return sig;
        } else if ((unsigned char)*p == c) {
            return sig;
        }
    }
    return !sig;
}

static int singlematch(int c, const char *p, const char *ep)
{
    switch (*p) {
    case '.': return 1;
    case L_ESC: return match_class(c, (unsigned char)*(p + 1));
    case '[': return matchbracketclass(c, p, ep - 1);
    default: return ((unsigned char)*p == c);
    }
}

static const char *do_match(match_state *ms, const char *s, const char *p, const char *pend);

static const char *matchbalance(match_state *ms, const char *s, const char *p, const char *pend)
{
    if (p + 1 >= pend)
        hv_error(ms->L, "unbalanced pattern");
    if (*s != *p)
        return NULL;
    int b = *p, e = *(p + 1), cont = 1;
    while (++s < ms->src_end) {
        charge(ms);
        if (*s == e) {
            if (--cont == 0)
                return s + 1;
        } else if (*s == b) {
            cont++;
        }
    }
    return NULL;
}

static const char *max_expand(match_state *ms, const char *s, const char *p, const char *ep,
                              const char *pend)
{
    ptrdiff_t i = 0;
    while ((s + i) < ms->src_end && singlematch((unsigned char)*(s + i), p, ep))
        i++;
    while (i >= 0) {
        charge(ms);
        const char *res = do_match(ms, (s + i), ep + 1, pend);
        if (res)
            return res;
        i--;
    }
    return NULL;
}

static const char *min_expand(match_state *ms, const char *s, const char *p, const char *ep,
                              const char *pend)
{
    for (;;) {
        charge(ms);
        const char *res = do_match(ms, s, ep + 1, pend);
        if (res)
            return res;
        if (s < ms->src_end && singlematch((unsigned char)*s, p, ep))
            s++;
        else
            return NULL;
    }
}

static const char *start_capture(match_state *ms, const char *s, const char *p, const char *pend,
                                 int what)
{
    int level = ms->level;
    if (level >= MAXCAPTURES)
        hv_error(ms->L, "too many captures");
    ms->capture[level].init = s;
    ms->capture[level].len = what;
    ms->level = level + 1;
    const char *res = do_match(ms, s, p, pend);
    if (!res)
        ms->level--;
    return res;
}

static const char *end_capture(match_state *ms, const char *s, const char *p, const char *pend)
{
    int l = capture_to_close(ms);
    ms->capture[l].len = s - ms->capture[l].init;
    const char *res = do_match(ms, s, p, pend);
    if (!res)
        ms->capture[l].len = CAP_UNFINISHED;
    return res;
}

static const char *match_capture(match_state *ms, const char *s, int l)
{
    l = check_capture(ms, l);
    size_t len = (size_t)ms->capture[l].len;
    if ((size_t)(ms->src_end - s) >= len && memcmp(ms->capture[l].init, s, len) == 0)
        return s + len;
    return NULL;
}

static const char *do_match(match_state *ms, const char *s, const char *p, const char *pend)
{
    if (++ms->depth > MAXMATCHDEPTH)
        hv_error(ms->L, "pattern too complex");
    const char *r = NULL;
init:
    charge(ms);
    if (p >= pend) {
        r = s;
        goto done;
    }
    switch (*p) {
    case '(':
        r = *(p + 1) == ')' ? start_capture(ms, s, p + 2, pend, CAP_POSITION)
                            : start_capture(ms, s, p + 1, pend, CAP_UNFINISHED);
        goto done;
    case ')': r = end_capture(ms, s, p + 1, pend); goto done;
    case L_ESC:
        if (p + 1 < pend && p[1] == 'b') {
            s = matchbalance(ms, s, p + 2, pend);
            if (s) {
                p += 4;
                goto init;
            }
            r = NULL;
            goto done;
        }
        if (p + 1 < pend && p[1] == 'f') {
            p += 2;
            if (*p != '[')
                hv_error(ms->L, "missing '[' after '%%f' in pattern");
            const char *ep = classend(ms, p, pend);
            int prev = (s == ms->src_init) ? 0 : (unsigned char)*(s - 1);
            int cur = s < ms->src_end ? (unsigned char)*s : 0;
            if (!matchbracketclass(prev, p, ep - 1) && matchbracketclass(cur, p, ep - 1)) {
                p = ep;
                goto init;
            }
            r = NULL;
            goto done;
        }
        if (p + 1 < pend && isdigit((unsigned char)p[1])) {
            s = match_capture(ms, s, (unsigned char)p[1]);
            if (s) {
                p += 2;
                goto init;
            }
            r = NULL;
            goto done;
        }
        goto dflt;
    case '$':
        if (p + 1 == pend) {
            r = (s == ms->src_end) ? s : NULL;
            goto done;
        }
        goto dflt;
    default:
    dflt: {
        const char *ep = classend(ms, p, pend);
        int m = s < ms->src_end && singlematch((unsigned char)*s, p, ep);
        switch (ep < pend ? *ep : 0) {
        case '?': {
            const char *res;
            if (m && ((res = do_match(ms, s + 1, ep + 1, pend)) != NULL)) {
                r = res;
                goto done;
            }
            p = ep + 1;
            goto init;
        }
        case '*': r = max_expand(ms, s, p, ep, pend); goto done;
        case '+': r = m ? max_expand(ms, s + 1, p, ep, pend) : NULL; goto done;
        case '-': r = min_expand(ms, s, p, ep, pend); goto done;
        default:
            if (!m) {
                r = NULL;
                goto done;
            }
            s++;
            p = ep;
            goto init;
        }
    }
    }
done:
    ms->depth--;
    return r;
}

static void push_onecapture(match_state *ms, int i, const char *s, const char *e)
{
    if (i >= ms->level) {
        if (i == 0)
            hv_pushlstr(ms->L, s, (size_t)(e - s));
        else
            hv_error(ms->L, "invalid capture index");
    } else {
        ptrdiff_t l = ms->capture[i].len;
        if (l == CAP_UNFINISHED)
            hv_error(ms->L, "unfinished capture");
        if (l == CAP_POSITION)
            hv_pushnum(ms->L, (double)(ms->capture[i].init - ms->src_init + 1));
        else
            hv_pushlstr(ms->L, ms->capture[i].init, (size_t)l);
    }
}

static int push_captures(match_state *ms, const char *s, const char *e)
{
    int nlevels = (ms->level == 0 && s) ? 1 : ms->level;
    hv_stack_check(ms->L, nlevels);
    for (int i = 0; i < nlevels; i++)
        push_onecapture(ms, i, s, e);
    return nlevels;
}

static const char *lmemfind(const char *s1, size_t l1, const char *s2, size_t l2)
{
    if (l2 == 0)
        return s1;
    if (l2 > l1)
        return NULL;
    const char *init;
    l2--;
    l1 = l1 - l2;
    while (l1 > 0 && (init = memchr(s1, *s2, l1)) != NULL) {
        init++;
        if (memcmp(init, s2 + 1, l2) == 0)
            return init - 1;
        l1 -= (size_t)(init - s1);
        s1 = init;
    }
    return NULL;
}

static void ms_init(match_state *ms, hv_thread *L, const char *s, size_t ls)
{
    ms->L = L;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->level = 0;
    ms->depth = 0;
}

static int str_find_aux(hv_thread *L, int n, int find, const char *fn)
{
    hv_str *ss = hv_checkstr(L, n, 0, fn);
    hv_str *ps = hv_checkstr(L, n, 1, fn);
    const char *s = ss->data, *p = ps->data;
    size_t ls = ss->len, lp = ps->len;
    int64_t init = posrelat(hv_optint(L, n, 2, fn, 1), ls) - 1;
    if (init < 0)
        init = 0;
    else if ((size_t)init > ls)
        init = (int64_t)ls;
    bool plain = n > 3 && !hv_isfalse(HV_ARG(L, 3));
    if (find && (plain || strpbrk(p, SPECIALS) == NULL || strlen(p) != lp)) {
        const char *s2 = lmemfind(s + init, ls - (size_t)init, p, lp);
        if (s2) {
            hv_pushnum(L, (double)(s2 - s + 1));
            hv_pushnum(L, (double)(s2 - s + (ptrdiff_t)lp));
            return 2;
        }
    } else {
        match_state ms;
        int anchor = (*p == '^');
        const char *pp = p + anchor;
        const char *s1 = s + init;
        ms_init(&ms, L, s, ls);
        do {
            const char *e;
            ms.level = 0;
            if ((e = do_match(&ms, s1, pp, p + lp)) != NULL) {
                if (find) {
                    hv_pushnum(L, (double)(s1 - s + 1));
                    hv_pushnum(L, (double)(e - s));
                    return push_captures(&ms, NULL, NULL) + 2;
                }
                return push_captures(&ms, s1, e);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    hv_pushnil(L);
    return 1;
}

static int s_find(hv_thread *L, int n) { return str_find_aux(L, n, 1, "find"); }
static int s_match(hv_thread *L, int n) { return str_find_aux(L, n, 0, "match"); }

static int gmatch_aux(hv_thread *L, int n)
{
    (void)n;
    hv_cfn *self = (hv_cfn *)L->stack[L->base - 1].v.gc;
    hv_str *s = hv_strv(&self->up[0]), *p = hv_strv(&self->up[1]);
    match_state ms;
    ms_init(&ms, L, s->data, s->len);
    for (const char *src = s->data + (size_t)self->up[2].v.n; src <= ms.src_end; src++) {
        ms.level = 0;
        const char *e = do_match(&ms, src, p->data, p->data + p->len);
        if (e) {
            double newstart = (double)(e - s->data);
            if (e == src)
                newstart++; /* empty match: go at least one position */
            self->up[2].v.n = newstart;
            return push_captures(&ms, src, e);
        }
    }
    return 0;
}

static int s_gmatch(hv_thread *L, int n)
{
    hv_str *s = hv_checkstr(L, n, 0, "gmatch");
    hv_str *p = hv_checkstr(L, n, 1, "gmatch");
    hv_cfn *f = hv_cfn_new(L, gmatch_aux, "gmatch iterator", 3);
    hv_setgc(&f->up[0], HV_TSTR, s);
    hv_setgc(&f->up[1], HV_TSTR, p);
    hv_setnum(&f->up[2], 0);
    hv_value v;
    hv_setgc(&v, HV_TCFN, f);
    hv_push(L, &v);
    return 1;
}

static void add_s(match_state *ms, hv_buf *b, const char *s, const char *e, hv_str *news)
{
    const char *p = news->data;
    size_t l = news->len;
    for (size_t i = 0; i < l; i++) {
        if (p[i] != L_ESC) {
            hv_buf_add(ms->L, b, p + i, 1);
        } else {
            i++;
            if (i >= l || !isdigit((unsigned char)p[i])) {
                if (i < l)
                    hv_buf_add(ms->L, b, p + i, 1);
            } else if (p[i] == '0') {
                hv_buf_add(ms->L, b, s, (size_t)(e - s));
            } else {
                int top = ms->L->top;
                push_onecapture(ms, p[i] - '1', s, e);
                hv_value *v = &ms->L->stack[ms->L->top - 1];
                hv_tostring_inplace(ms->L, v);
                hv_buf_add(ms->L, b, hv_strv(v)->data, hv_strv(v)->len);
                ms->L->top = top;
            }
        }
    }
}

static void add_value(match_state *ms, hv_buf *b, const char *s, const char *e,
                      const hv_value *repl)
{
    hv_thread *L = ms->L;
    int top = L->top;
    hv_value r;
    if (repl->tt == HV_TSTR || repl->tt == HV_TNUM) {
        hv_value rv = *repl;
        hv_tostring_inplace(L, &rv);
        add_s(ms, b, s, e, hv_strv(&rv));
        return;
    }
    if (repl->tt == HV_TLFN || repl->tt == HV_TCFN) {
        hv_stack_check(L, MAXCAPTURES + 2);
        int f = L->top;
        L->stack[L->top++] = *repl;
        push_captures(ms, s, e);
        hv_call(L, f, 1);
        r = L->stack[f];
    } else {
        push_onecapture(ms, 0, s, e);
        hv_value key = L->stack[L->top - 1];
        hv_gettable(L, repl, &key, &r);
    }
    L->top = top;
    if (hv_isfalse(&r)) {
        hv_buf_add(L, b, s, (size_t)(e - s)); /* keep the original text */
    } else {
        if (r.tt != HV_TSTR && r.tt != HV_TNUM)
            hv_error(L, "invalid replacement value (a %s)", hv_typename(&r));
        hv_tostring_inplace(L, &r);
        hv_buf_add(L, b, hv_strv(&r)->data, hv_strv(&r)->len);
    }
}

static int s_gsub(hv_thread *L, int n)
{
    hv_str *ss = hv_checkstr(L, n, 0, "gsub");
    hv_str *ps = hv_checkstr(L, n, 1, "gsub");
    if (n < 3)
        hv_argerror(L, 2, "gsub", "string/function/table expected");
    hv_value *repl = HV_ARG(L, 2);
    if (repl->tt != HV_TSTR && repl->tt != HV_TNUM && repl->tt != HV_TTAB &&
        repl->tt != HV_TLFN && repl->tt != HV_TCFN)
        hv_argerror(L, 2, "gsub", "string/function/table expected");
    int64_t max_s = hv_optint(L, n, 3, "gsub", (int64_t)ss->len + 1);
    const char *src = ss->data, *p = ps->data, *pend = ps->data + ps->len;
    int anchor = (*p == '^');
    if (anchor)
        p++;
    match_state ms;
    ms_init(&ms, L, ss->data, ss->len);
    hv_buf b;
    hv_buf_init(L, &b);
    int64_t cnt = 0;
    while (cnt < max_s) {
        ms.level = 0;
        const char *e = do_match(&ms, src, p, pend);
        if (e) {
            cnt++;
            add_value(&ms, &b, src, e, HV_ARG(L, 2));
        }
        if (e && e > src)
            src = e;
        else if (src < ms.src_end)
            hv_buf_add(L, &b, src++, 1);
        else
            break;
        if (anchor)
            break;
    }
    hv_buf_add(L, &b, src, (size_t)(ms.src_end - src));
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    hv_pushnum(L, (double)cnt);
    return 2;
}

/* ---- format ---- */

static void addquoted(hv_thread *L, hv_buf *b, hv_str *s)
{
    hv_buf_add(L, b, "\"", 1);
    for (size_t i = 0; i < s->len; i++) {
        char c = s->data[i];
        switch (c) {
        case '"':
        case '\\':
        case '\n': {
            char e[2] = {'\\', c};
            hv_buf_add(L, b, e, 2);
            break;
        }
        case '\r': hv_buf_add(L, b, "\\r", 2); break;
        case '\0': hv_buf_add(L, b, "\\000", 4); break;
        default: hv_buf_add(L, b, &c, 1); break;
        }
    }
    hv_buf_add(L, b, "\"", 1);
}

static int s_format(hv_thread *L, int n)
{
    hv_str *fs = hv_checkstr(L, n, 0, "format");
    const char *strfrmt = fs->data, *end = fs->data + fs->len;
    int arg = 0;
    hv_buf b;
    hv_buf_init(L, &b);
    while (strfrmt < end) {
        if (*strfrmt != '%') {
            hv_buf_add(L, &b, strfrmt++, 1);
            continue;
        }
        if (*++strfrmt == '%') {
            hv_buf_add(L, &b, strfrmt++, 1);
            continue;
        }
        arg++;
        char form[32], buff[512];
        const char *p = strfrmt;
        while (*p && strchr("-+ #0", *p))
            p++;
        if ((size_t)(p - strfrmt) > 5)
            hv_error(L, "invalid format (repeated flags)");
        if (isdigit((unsigned char)*p))
            p++;
        if (isdigit((unsigned char)*p))
            p++;
        if (*p == '.') {
            p++;
            if (isdigit((unsigned char)*p))
                p++;
            if (isdigit((unsigned char)*p))
                p++;
        }
        if (isdigit((unsigned char)*p))
            hv_error(L, "invalid format (width or precision too long)");
        form[0] = '%';
        size_t fl = (size_t)(p - strfrmt) + 1;
        memcpy(form + 1, strfrmt, fl);
        form[fl + 1] = 0;
        strfrmt = p + 1;
        int a = arg;
        switch (*p) {
        case 'c': {
            snprintf(buff, sizeof buff, form, (int)hv_checkint(L, n, a, "format"));
            hv_buf_add(L, &b, buff, strlen(buff));
            break;
        }
        case 'd':
        case 'i': {
            form[fl] = 0;
            strcat(form, "lld");
            snprintf(buff, sizeof buff, form, (long long)hv_checkint(L, n, a, "format"));
            hv_buf_add(L, &b, buff, strlen(buff));
            break;
        }
        case 'o':
        case 'u':
        case 'x':
        case 'X': {
            char conv[2] = {*p, 0};
            form[fl] = 0;
            strcat(form, "ll");
            strcat(form, conv);
            snprintf(buff, sizeof buff, form,
                     (unsigned long long)hv_checkint(L, n, a, "format"));
            hv_buf_add(L, &b, buff, strlen(buff));
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'g':
        case 'G': {
            snprintf(buff, sizeof buff, form, hv_checknum(L, n, a, "format"));
            hv_buf_add(L, &b, buff, strlen(buff));
            break;
        }
        case 'q': addquoted(L, &b, hv_checkstr(L, n, a, "format")); break;
        case 's': {
            hv_str *s = hv_checkstr(L, n, a, "format");
            if (!strchr(form, '.') && s->len >= 100) {
                hv_buf_add(L, &b, s->data, s->len);
            } else {
                snprintf(buff, sizeof buff, form, s->data);
                hv_buf_add(L, &b, buff, strlen(buff));
            }
            break;
        }
        default:
            hv_error(L, "invalid option '%%%c' to 'format'", *p ? *p : '?');
        }
    }
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    return 1;
}

void hv_open_string(hv_thread *L)
{
    static const hv_libfn fns[] = {
        {"len", s_len},         {"sub", s_sub},       {"upper", s_upper}, {"lower", s_lower},
        {"rep", s_rep},         {"reverse", s_reverse}, {"byte", s_byte}, {"char", s_char},
        {"find", s_find},       {"match", s_match},   {"gmatch", s_gmatch}, {"gsub", s_gsub},
        {"format", s_format},
    };
    hv_table *s = hv_open_lib(L, "string", 16, fns, HV_NFNS(fns));
    hv_value sv;
    hv_setgc(&sv, HV_TTAB, s);
    hv_table *mt = hv_table_new(L, 0, 1);
    *hv_table_setstr(L, mt, L->vm->tmname[TM_INDEX]) = sv;
    L->vm->strmeta = mt;
}
