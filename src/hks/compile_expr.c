/* The compiler's parser, part two: expressions (operators by priority,
 * calls, indexing, structure slots), table constructors and hmake. */
#include <string.h>

#include "hks/compile_parse.h"

/* ---- expressions ---- */
int hc_explist1(hc_compiler *C, hc_exp *v)
{
    int n = 1;
    hc_expr(C, v);
    while (hc_testnext(C, ',')) {
        hc_exp2nextreg(C->fs, v);
        hc_expr(C, v);
        n++;
    }
    return n;
}

static void constructor(hc_compiler *C, hc_exp *t);

static void funcargs(hc_compiler *C, hc_exp *f)
{
    hc_func *fs = C->fs;
    hc_exp args;
    int line = C->t.line;
    switch (TOK) {
    case '(':
        if (line != C->lastline)
            hc_syntax_error(C, "ambiguous syntax (function call x new statement)");
        hc_next(C);
        if (TOK == ')')
            hc_init_exp(&args, E_VOID, 0);
        else {
            hc_explist1(C, &args);
            hc_setreturns(fs, &args, -1);
        }
        hc_check_match(C, ')', '(', line);
        break;
    case '{': constructor(C, &args); break;
    case TK_STRING:
        hc_codestring(C, &args, C->t.str);
        hc_next(C);
        break;
    default: hc_syntax_error(C, "function arguments expected");
    }
    int base = f->info, nparams;
    if (hc_hasmultret(args.k))
        nparams = -1;
    else {
        if (args.k != E_VOID)
            hc_exp2nextreg(fs, &args);
        nparams = fs->freereg - (base + 1);
    }
    hc_init_exp(f, E_CALL, hc_code(fs, HKS_I_CALL_I, (uint32_t)base, (uint32_t)(nparams + 1), 2));
    hc_fixline(fs, line);
    fs->freereg = base + 1;
}

static void primaryexp(hc_compiler *C, hc_exp *v)
{
    switch (TOK) {
    case '(': {
        int line = C->t.line;
        hc_next(C);
        hc_expr(C, v);
        hc_check_match(C, ')', '(', line);
        hc_dischargevars(C->fs, v);
        return;
    }
    case TK_NAME: hc_singlevar(C, v); return;
    default:
        if (!C->bitops && (TOK == '&' || TOK == '|' ||
                           ((TOK == '<' || TOK == '>') && C->p - 2 >= C->src && C->p[-2] == TOK)))
            hc_error_at(C, C->t.line, C->t.col,
                        "unexpected symbol near '%c' (the bit operators << >> & | exist only "
                        "in the Black Ops 3 target)",
                        TOK);
        hc_syntax_error(C, "unexpected symbol");
    }
}

static void yindex(hc_compiler *C, hc_exp *v)
{
    hc_next(C);
    hc_expr(C, v);
    hc_exp2val(C->fs, v);
    hc_checknext(C, ']');
}

/* The structure a value is known to be, -1 none. */
static int struct_of(const hc_exp *v) { return v->etype >= HC_T_STRUCT0 ? v->etype - HC_T_STRUCT0 : -1; }

static int slot_etype(const hc_slotdef *d)
{
    return d->type == HC_TSTRUCT ? HC_T_STRUCT0 + d->sid : d->type == 0 ? -1 : d->type;
}

/* `t.name` on a value of structure `sid`, t in a register: its own slot, or
 * a slot of the structures its meta's __index leads to (aux -1), or one
 * only its meta's __newindex leads to (aux -2: a store).  False when the
 * name is left to the table behind the structure (proxytable, or a meta
 * that is not a structure); an error when there is nowhere else to look. */
static bool slot_access(hc_compiler *C, hc_exp *v, int sid, const hc_str *name, int line, int col)
{
    const hc_struct *s = &C->sdefs[sid];
    const hc_slotdef *d = hc_find_slot(s, name);
    uint32_t words[2 * HC_MAX_CHAIN];
    if (d) {
        v->aux = d->pos;
    } else if (hc_slot_chain(C, sid, name, words, HC_MAX_CHAIN) > 0) {
        v->aux = -1;
        d = hc_chain_end(C, sid, name);
    } else if (hc_store_chain(C, sid, name, words, HC_MAX_CHAIN, &d) > 0) {
        v->aux = -2; /* only a store reaches it (through __newindex) */
    } else if (s->proxy || s->meta_type >= 0) {
        return false;
    } else {
        hc_error_at(C, line, col,
                    "structure '%s' has no slot '%s' (and no proxytable or meta to look in)",
                    s->name->data, name->data);
    }
    v->k = E_SLOT;
    v->slot = sid;
    v->key = name;
    v->kline = line;
    v->kcol = col;
    v->etype = slot_etype(d);
    v->stype = HC_T_NONE;
    return true;
}

void hc_field_index(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    hc_exp key;
    int sid = struct_of(v);
    hc_exp2anyreg(fs, v);
    hc_next(C);
    int line = C->t.line, col = C->t.col;
    const hc_str *name = hc_str_checkname(C);
    hc_codestring(C, &key, name);
    if (sid >= 0 && slot_access(C, v, sid, name, line, col))
        return;
    hc_indexed(fs, v, &key);
    v->etype = -1;
}

void hc_suffixedexp(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    primaryexp(C, v);
    for (;;) {
        switch (TOK) {
        case '.': hc_field_index(C, v); break;
        case '[': {
            hc_exp key;
            hc_exp2anyreg(fs, v);
            yindex(C, &key);
            hc_indexed(fs, v, &key);
            v->etype = -1;
            break;
        }
        case ':': {
            hc_exp key;
            hc_next(C);
            int line = C->t.line, col = C->t.col;
            const hc_str *name = hc_str_checkname(C);
            hc_codestring(C, &key, name);
            int sid = struct_of(v);
            hc_exp slot = *v;
            if (sid >= 0 && slot_access(C, &slot, sid, name, line, col))
                hc_selfslot(fs, v, &slot);
            else
                hc_self(fs, v, &key);
            v->etype = -1;
            funcargs(C, v);
            break;
        }
        case '(':
        case TK_STRING:
        case '{':
            hc_exp2nextreg(fs, v);
            v->etype = -1;
            funcargs(C, v);
            break;
        default: return;
        }
    }
}

typedef struct cons {
    hc_exp v;
    hc_exp *t;
    int nh, na, tostore;
} cons;

static void recfield(hc_compiler *C, cons *cc)
{
    hc_func *fs = C->fs;
    int reg = fs->freereg;
    hc_exp key, val;
    if (TOK == TK_NAME) {
        if (cc->nh > 0x7ffffff0)
            hc_error_at(C, C->t.line, C->t.col, "table constructor has too many items");
        hc_checkname(C, &key);
    } else
        yindex(C, &key);
    cc->nh++;
    hc_checknext(C, '=');
    hc_exp tk;
    hc_init_exp(&tk, E_INDEXED, cc->t->info);
    tk.aux = hc_exp2RK(fs, &key);
    hc_expr(C, &val);
    int e = hc_exp2RK(fs, &val);
    int k = tk.aux;
    if (k >= 256 && fs->f->k[k - 256].type == GSVM_HKS_K_STRING)
        hc_code(fs, HKS_I_SETFIELD, (uint32_t)tk.info, (uint32_t)(k - 256), (uint32_t)e);
    else if (k >= 256)
        hc_code(fs, HKS_I_SETTABLE_S_BK, (uint32_t)tk.info, (uint32_t)(k - 256), (uint32_t)e);
    else
        hc_code(fs, HKS_I_SETTABLE_S, (uint32_t)tk.info, (uint32_t)k, (uint32_t)e);
    fs->freereg = reg;
}

static void closelistfield(hc_func *fs, cons *cc)
{
    if (cc->v.k == E_VOID)
        return;
    hc_exp2nextreg(fs, &cc->v);
    cc->v.k = E_VOID;
    if (cc->tostore == HC_FPF) {
        hc_setlist(fs, cc->t->info, cc->na, cc->tostore);
        cc->tostore = 0;
    }
}

static void lastlistfield(hc_func *fs, cons *cc)
{
    if (cc->tostore == 0)
        return;
    if (hc_hasmultret(cc->v.k)) {
        hc_setreturns(fs, &cc->v, -1);
        hc_setlist(fs, cc->t->info, cc->na, -1);
        cc->na--;
    } else {
        if (cc->v.k != E_VOID)
            hc_exp2nextreg(fs, &cc->v);
        hc_setlist(fs, cc->t->info, cc->na, cc->tostore);
    }
}

static void listfield(hc_compiler *C, cons *cc)
{
    hc_expr(C, &cc->v);
    if (cc->na > 0x7ffffff0)
        hc_error_at(C, C->t.line, C->t.col, "table constructor has too many items");
    cc->na++;
    cc->tostore++;
}

static int int2fb(unsigned x)
{
    int e = 0;
    while (x >= 16) {
        x = (x + 1) >> 1;
        e++;
    }
    if (x < 8)
        return (int)x;
    return ((e + 1) << 3) | (int)(x - 8);
}

static void slotfield(hc_compiler *C, cons *cc, const hc_slotdef *d);

/* One size of `{...}:NA,NH`: a constant number expression (folded by
 * expr), as an int (at least 0, at most what a size can say). */
static int size_hint(hc_compiler *C)
{
    int line = C->t.line, col = C->t.col;
    hc_exp e;
    hc_expr(C, &e);
    if (e.k != E_KNUM || e.t != e.f)
        hc_error_at(C, line, col, "a table size after '}:' must be a constant number "
                                  "expression");
    double n = e.nval;
    return n >= 1 ? (n < 1e9 ? (int)n : 1000000000) : 0;
}

/* The FromSoftware builds' table sizes, `{...}:NA`, `{...}:NA,NH` or
 * `{...}:,NH` (hksc's table-size extension): NEWTABLE presizes the array and
 * hash parts to the larger of the given and the counted sizes.  hksc ignores
 * them on an hmake of a structure without proxytable (there is no table).
 * `:` then a name stays a method call (`f{...}:m()`), which hksc's sekiro
 * build refuses but Lua 5.1 and the other targets take. */
static void sizes(hc_compiler *C, cons *cc, int sid)
{
    if (TOK != ':' || hc_lookahead(C) == TK_NAME)
        return;
    if (C->o.profile != GSVM_HKS_PROFILE_BASE || C->o.hash != GSVM_HKS_HASH_NONE)
        hc_error_at(C, C->t.line, C->t.col,
                    "unexpected symbol near ':' (table sizes '{...}:NA,NH' exist only in the "
                    "FromSoftware targets: sekiro, sow, doubles)");
    hc_next(C);
    int na = cc->na, nh = cc->nh;
    if (!hc_testnext(C, ',')) {
        na = size_hint(C);
        if (hc_testnext(C, ','))
            nh = size_hint(C);
    } else {
        nh = size_hint(C);
    }
    if (sid >= 0 && !C->sdefs[sid].proxy)
        return;
    if (na > cc->na)
        cc->na = na;
    if (nh > cc->nh)
        cc->nh = nh;
}

/* The fields of a table constructor (sid < 0) or of an hmake of structure
 * sid, whose NEWTABLE / NEWSTRUCT is at pc.  In an hmake, named fields that
 * are slots go to the slots, everything else to the backing table
 * (proxytable only). */
static void fields(hc_compiler *C, hc_exp *t, int pc, int sid)
{
    hc_func *fs = C->fs;
    int line = C->t.line;
    cons cc;
    cc.na = cc.nh = cc.tostore = 0;
    cc.t = t;
    hc_init_exp(t, E_RELOC, pc);
    hc_init_exp(&cc.v, E_VOID, 0);
    hc_exp2nextreg(fs, t);
    hc_checknext(C, '{');
    do {
        if (TOK == '}')
            break;
        closelistfield(fs, &cc);
        bool named = TOK == TK_NAME && hc_lookahead(C) == '=';
        const hc_slotdef *d = NULL;
        if (sid >= 0) {
            const hc_struct *s = &C->sdefs[sid];
            if (named)
                d = hc_find_slot(s, C->t.str);
            if (!d && !s->proxy)
                hc_error_at(C, C->t.line, C->t.col,
                            named ? "structure '%s' has no slot '%s' (only a proxytable "
                                    "structure takes other fields)"
                                  : "structure '%s' is not a proxytable: its hmake takes only "
                                    "slots%s",
                            s->name->data, named ? C->t.s : "");
        }
        if (d)
            slotfield(C, &cc, d);
        else if (named || TOK == '[')
            recfield(C, &cc);
        else
            listfield(C, &cc);
    } while (hc_testnext(C, ',') || hc_testnext(C, ';'));
    hc_check_match(C, '}', '{', line);
    lastlistfield(fs, &cc);
    sizes(C, &cc, sid);
    uint32_t *w = &fs->f->code[pc];
    *w = (*w & ~(0xFFu << 17) & ~(0x1FFu << 8)) | (uint32_t)int2fb((unsigned)cc.na) << 17 |
         (uint32_t)int2fb((unsigned)cc.nh) << 8;
}

static void constructor(hc_compiler *C, hc_exp *t)
{
    fields(C, t, hc_code(C->fs, HKS_I_NEWTABLE, 0, 0, 0), -1);
}

_Noreturn void hc_no_structs(hc_compiler *C)
{
    hc_error_at(C, C->t.line, C->t.col,
                "the reserved words \"hmake\" and \"hstructure\" can only be used when "
                "the virtual machine is built with structure support (this target has "
                "no structures)");
}

int hc_find_struct(hc_compiler *C, const hc_str *name)
{
    for (int i = 0; i < C->nsdefs; i++)
        if (C->sdefs[i].name == name)
            return i;
    return -1;
}

/* NAME = exp in an hmake: the slot's store, coded as it comes. */
static void slotfield(hc_compiler *C, cons *cc, const hc_slotdef *d)
{
    hc_func *fs = C->fs;
    int reg = fs->freereg;
    hc_exp key, val;
    int line = C->t.line, col = C->t.col;
    hc_checkname(C, &key); /* hksc adds the name to the constants all the same */
    hc_checknext(C, '=');
    hc_expr(C, &val);
    bool isnil = val.k == E_NIL && val.t == val.f;
    int e = hc_exp2RK(fs, &val);
    hc_store_slot(fs, cc->t->info, d, &val, e, isnil, line, col);
    fs->freereg = reg;
}

/* hmake NAME { ... }: a new structure. */
void hc_hmake(hc_compiler *C, hc_exp *t)
{
    hc_func *fs = C->fs;
    if (!C->structs)
        hc_no_structs(C);
    hc_next(C);
    int nline = C->t.line, ncol = C->t.col;
    const hc_str *name = hc_str_checkname(C);
    int sid = hc_find_struct(C, name);
    if (sid < 0)
        hc_error_at(C, nline, ncol, "hmake of '%s', which is not a declared hstructure",
                    name->data);
    int pc = hc_code(fs, HKS_I_NEWSTRUCT, 0, 0, 0);
    hc_code_data(fs, 0, (uint32_t)sid + 1);
    fields(C, t, pc, sid);
    t->etype = HC_T_STRUCT0 + sid;
}

static void simpleexp(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    switch (TOK) {
    case TK_NUMBER:
        hc_init_exp(v, E_KNUM, 0);
        v->nval = C->t.num;
        v->etype = GSVM_HKS_K_NUMBER;
        break;
    case TK_LUD:
        hc_init_exp(v, E_K, hc_k_lud(fs, C->t.bits, GSVM_HKS_K_LUD));
        v->etype = GSVM_HKS_K_LUD;
        break;
    case TK_UI64:
        hc_init_exp(v, E_K, hc_k_lud(fs, C->t.bits, GSVM_HKS_K_UI64));
        v->etype = GSVM_HKS_K_UI64;
        break;
    case TK_STRING:
        hc_codestring(C, v, C->t.str);
        v->etype = GSVM_HKS_K_STRING;
        break;
    case TK_NIL: hc_init_exp(v, E_NIL, 0); v->etype = GSVM_HKS_K_NIL; break;
    case TK_TRUE: hc_init_exp(v, E_TRUE, 0); v->etype = GSVM_HKS_K_BOOL; break;
    case TK_FALSE: hc_init_exp(v, E_FALSE, 0); v->etype = GSVM_HKS_K_BOOL; break;
    case TK_DOTS:
        if (!fs->is_vararg)
            hc_syntax_error(C, "cannot use '...' outside a vararg function");
        fs->f->flags &= (uint8_t)~4; /* the function uses ... : no `arg` table needed */
        hc_init_exp(v, E_VARARG, hc_code(fs, HKS_I_VARARG, 0, 1, 0));
        break;
    case '{':
        constructor(C, v);
        v->etype = 5; /* TTABLE */
        return;
    case TK_FUNCTION:
        hc_next(C);
        hc_body(C, v, false, C->line, NULL);
        v->etype = 9; /* TIFUNCTION */
        return;
    case TK_HMAKE: hc_hmake(C, v); return;
    default: hc_suffixedexp(C, v); return;
    }
    hc_next(C);
}

static int getunopr(int tok)
{
    switch (tok) {
    case TK_NOT: return OPR_NOT;
    case '-': return OPR_MINUS;
    case '#': return OPR_LEN;
    default: return OPR_NOUNOPR;
    }
}

static int getbinopr(hc_compiler *C, int tok)
{
    switch (tok) {
    case '+': return OPR_ADD;
    case '-': return OPR_SUB;
    case '*': return OPR_MUL;
    case '/': return OPR_DIV;
    case '%': return OPR_MOD;
    case '^': return OPR_POW;
    case TK_CONCAT: return OPR_CONCAT;
    case TK_SHL: return OPR_SHL;
    case TK_SHR: return OPR_SHR;
    case '&': return C->bitops ? OPR_BAND : OPR_NOBINOPR;
    case '|': return C->bitops ? OPR_BOR : OPR_NOBINOPR;
    case TK_NE: return OPR_NE;
    case TK_EQ: return OPR_EQ;
    case '<': return OPR_LT;
    case TK_LE: return OPR_LE;
    case '>': return OPR_GT;
    case TK_GE: return OPR_GE;
    case TK_AND: return OPR_AND;
    case TK_OR: return OPR_OR;
    default: return OPR_NOBINOPR;
    }
}

/* left and right priorities, indexed by OPR_* */
static const struct {
    uint8_t left, right;
} priority[] = {
    {9, 9}, {9, 9}, {10, 10}, {10, 10}, {10, 10}, {13, 12}, /* + - * / % ^ */
    {8, 7},                                                 /* .. (right associative) */
    {6, 6}, {6, 6}, {5, 5}, {4, 4},                         /* << >> & | */
    {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3},         /* comparisons */
    {2, 2}, {1, 1}                                          /* and or */
};
enum { UNARY_PRIORITY = 11 };

static int subexpr(hc_compiler *C, hc_exp *v, int limit)
{
    hc_enterlevel(C);
    int uop = getunopr(TOK);
    if (uop != OPR_NOUNOPR) {
        hc_next(C);
        subexpr(C, v, UNARY_PRIORITY);
        int et = uop == OPR_MINUS && v->etype == GSVM_HKS_K_NUMBER ? GSVM_HKS_K_NUMBER
                 : uop == OPR_NOT ? GSVM_HKS_K_BOOL : -1;
        hc_prefix(C->fs, uop, v);
        v->etype = et;
    } else
        simpleexp(C, v);
    int op = getbinopr(C, TOK);
    while (op != OPR_NOBINOPR && priority[op].left > limit) {
        hc_exp v2;
        hc_next(C);
        hc_infix(C->fs, op, v);
        int nextop = subexpr(C, &v2, priority[op].right);
        int et = -1;
        if (op <= OPR_POW && v->etype == GSVM_HKS_K_NUMBER && v2.etype == GSVM_HKS_K_NUMBER)
            et = GSVM_HKS_K_NUMBER; /* arithmetic on two numbers needs no metamethod */
        else if (op >= OPR_NE && op <= OPR_GE)
            et = GSVM_HKS_K_BOOL;
        hc_posfix(C->fs, op, v, &v2);
        v->etype = et;
        op = nextop;
    }
    hc_leavelevel(C);
    return op;
}

void hc_expr(hc_compiler *C, hc_exp *v) { subexpr(C, v, 0); }
