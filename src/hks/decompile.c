/* The HavokScript decompiler: chunks back to Lua 5.1 / HKS source.
 *
 * Per function: the code is decoded with the chunk's profile, then analysed
 * once: which register values are temporaries (defined once, read once, in
 * the same basic block, with only other temporaries built in between) and
 * may be folded into the expression that reads them, and which stores go
 * into a table constructor still being built.  Everything else is a
 * variable: named from debug info where the chunk has it, else by register
 * (arg1.., loc5; i for numeric for loops, k, v for generic ones), declared
 * `local` in the innermost block that holds every access.
 *
 * The structure comes back from the jumps, in the order the compiler laid
 * them out: FORPREP/FORLOOP and TFORLOOP are for loops, a backward JMP is a
 * while loop (with its condition when one starts it), a backward
 * conditional jump a repeat-until, forward test chains are if / else and
 * `and` / `or`.  When a function's jumps do not fit, it is printed as one
 * loop over its basic blocks (`local pc = ...; while true do if pc == ...`),
 * which still compiles and runs; a comment says so, and --strict makes it an
 * error.  Recursion is bounded (block nesting and function depth), so no
 * input hangs or overflows the stack. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* ---------------------------------------------------------------- one function */

static void fn_free(fn *F)
{
    free(F->slot);
    free(F->ssid);
    free(F->opregs);
    free(F->opcount);
    free(F->op);
    free(F->isdata);
    free(F->leader);
    free(F->absorbed);
    free(F->vjoin);
    free(F->jtarget);
    free(F->vend);
    free(F->bend);
    free(F->cmpend);
    free(F->wstate);
    free(F->bylo);
    free(F->wparent);
    free(F->wvar);
    free(F->vtail);
    free(F->vreg);
    free(F->backt);
    free(F->use);
    free(F->vars);
    free(F->loc_reg);
    free(F->init_pc);
    free(F->kmax);
    for (size_t i = 0; i < F->captaken; i++)
        free(F->taken[i]);
    free(F->taken);
    for (int r = 0; r < F->ptop; r++)
        dc_pend_clear(&F->P[r]);
    while (F->nr > 0) {
        gsvm_buf_free(&F->R[F->nr - 1].body);
        gsvm_buf_free(&F->R[F->nr - 1].decl);
        gsvm_buf_free(&F->R[F->nr - 1].owned);
        F->nr--;
    }
}

static bool fn_init(fn *F, dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                    int base, const char **upnames, uint32_t nups, bool blocks)
{
    memset(F, 0, offsetof(fn, P));
    F->blocks = blocks;
    F->D = D;
    F->f = f;
    F->depth = depth;
    F->base = base;
    snprintf(F->path, sizeof F->path, "%s", path);
    F->n = f->ncode > (1u << 24) ? 0 : (uint32_t)f->ncode;
    F->upnames = upnames;
    F->nups = nups;
    F->multret_top = -1;
    F->last_local_reg = -1;
    F->force_pc = -1;
    for (int r = 0; r < MAX_REGS; r++)
        F->override[r] = -1;
    size_t n = F->n ? F->n : 1;
    F->op = malloc(n);
    F->isdata = calloc(n, 1);
    F->leader = calloc(n + 1, 1);
    F->absorbed = calloc(n, 1);
    F->vjoin = calloc(n + 1, 1);
    F->jtarget = calloc(n + 1, 1);
    F->vend = calloc(n + 1, sizeof *F->vend);
    F->bend = calloc(n + 1, sizeof *F->bend);
    F->cmpend = calloc(n + 1, sizeof *F->cmpend);
    F->vtail = calloc(n + 1, sizeof *F->vtail);
    F->vreg = calloc(n + 1, 1);
    F->backt = calloc(n + 1, 1);
    F->use = malloc(n * sizeof *F->use);
    F->slot = calloc(n, sizeof *F->slot);
    F->ssid = malloc(n * sizeof *F->ssid);
    F->loc_reg = malloc(sizeof *F->loc_reg * (f->debug.nlocals ? f->debug.nlocals : 1));
    F->init_pc = malloc(sizeof *F->init_pc * (f->debug.nlocals ? f->debug.nlocals : 1));
    if (!F->op || !F->isdata || !F->leader || !F->absorbed || !F->vjoin || !F->jtarget || !F->vend || !F->bend || !F->cmpend || !F->vtail || !F->vreg || !F->use || !F->backt || !F->slot || !F->ssid ||
        !F->loc_reg || !F->init_pc)
        return false;
    for (uint32_t pc = 0; pc < F->n; pc++) {
        F->use[pc] = -1;
        if (F->isdata[pc]) {
            F->op[pc] = HKS_I_DATA;
            continue;
        }
        unsigned iop = hks_decode_op(D->c->profile, GSVM_HKS_OP(f->code[pc]));
        F->op[pc] = (uint8_t)iop;
        unsigned nd = iop == HKS_NO_OP ? 0 : hks_data_words(f, iop, f->code[pc]);
        for (unsigned i = 1; i <= nd && pc + i < F->n; i++)
            F->isdata[pc + i] = 1;
    }
    if (!dc_decode_operands(F))
        return false;
    dc_find_slots(F);
    /* debug locals: each one's register is the count of locals active at
     * its start (the compiler allocates locals as a stack) */
    const gsvm_hks_debug *d = &f->debug;
    F->debug = hks_debug_kind(D->c->format, D->c->debug_hash, d->flag) == HKS_DBG_FULL &&
               d->nlocals > 0 && d->nlocals < 4096;
    if (F->debug) {
        for (uint32_t i = 0; i < d->nlocals; i++) {
            int active = 0;
            for (uint32_t j = 0; j < i; j++)
                if (d->locals[j].startpc <= d->locals[i].startpc &&
                    d->locals[i].startpc < d->locals[j].endpc)
                    active++;
            const char *nm = d->locals[i].name.data;
            bool named = nm && d->locals[i].name.size > 1 &&
                         dx_is_name(nm, (size_t)d->locals[i].name.size - 1) &&
                         strcmp(nm, "pc") != 0;
            F->loc_reg[i] = active < MAX_REGS ? active : -1;
            if (!named && !(nm && nm[0] == '('))
                F->debug = false; /* a name that is not one: use generated names */
            if (nm && nm[0] == '(')
                F->loc_reg[i] = -1 - active; /* hidden for-loop state: no name */
        }
        /* hidden locals keep their register for the count but map to none */
        for (uint32_t i = 0; i < d->nlocals; i++)
            if (F->loc_reg[i] < -1)
                F->loc_reg[i] = -1;
    }
    if (F->debug) {
        rw *x = malloc(sizeof *x);
        if (!x)
            return false;
        /* one budget for the whole function, not a limit per local: a
         * constructor's stores (26,000 in a SETLIST table) lie between a
         * local's NEWTABLE and its start, yet the scans stay linear */
        int64_t budget = 8 * (int64_t)F->n + 4096;
        for (uint32_t i = 0; i < d->nlocals; i++) {
            F->init_pc[i] = -1;
            if (F->loc_reg[i] < 0)
                continue;
            int64_t q = (int64_t)d->locals[i].startpc - 1;
            for (; q >= 0 && q < F->n && budget > 0; q--, budget--) {
                if (F->isdata[q] || F->op[q] == HKS_NO_OP)
                    continue;
                /* a loop's own variables: set by the loop, not before it */
                unsigned qop = F->op[q];
                if (qop == HKS_I_FORPREP || qop == HKS_I_FORLOOP || qop == HKS_I_TFORLOOP ||
                    (qop == HKS_I_JMP && !(q > 0 && is_test(OPAT(F, q - 1)))))
                    break;
                dc_operands(F, q, MAX_REGS, x);
                bool w = false;
                for (int k = 0; k < x->nwr; k++)
                    w |= x->wr[k] == F->loc_reg[i];
                if (w) {
                    F->init_pc[i] = q;
                    break;
                }
            }
        }
        free(x);
    }
    if (!dc_analyse(F))
        return false;
    return true;
}

/* The text of one function: "function(params) ... end" (or "function NAME"
 * for the main chunk's own text when name is "" ). */
bool dc_decompile_function(dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                           int indent, const char **upnames, uint32_t nups, gsvm_buf *out)
{
    D->functions++;
    bool main = depth == 0 && upnames == NULL;
    int ind = indent;
    if (depth > MAX_FN_DEPTH) {
        gsvm_buf_puts(out, "function(...) error(\"gsvm: nested too deep\") end\n");
        D->fallbacks++;
        return true;
    }
    if (!D->fns[depth])
        D->fns[depth] = calloc(1, sizeof *D->fns[depth]);
    fn *F = D->fns[depth];
    if (!F)
        return false;
    const char *why0 = NULL;
    long long why0_pc = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!fn_init(F, D, f, path, depth, main ? 0 : indent + 1, upnames, nups, attempt == 1)) {
            fn_free(F);
            return false;
        }
        dc_setup_vars(F);
        dc_find_types(F);
        /* the outermost region: the function body */
        F->nr = 1;
        gsvm_buf_init(&F->R[0].body);
        gsvm_buf_init(&F->R[0].decl);
        gsvm_buf_init(&F->R[0].owned);
        F->R[0].from = 0;
        F->R[0].to = F->n;
        /* a region below it holds the body, so that its locals come first */
        if (!dc_open_region(F, 0, (int64_t)F->n + 1)) {
            fn_free(F);
            return false;
        }
        if (attempt == 0) {
            loopctx L = {-1, F->n, -2, -1, -1, F->n};
            dc_emit_range(F, 0, F->n, &L);
            dc_flush_final(F);
        } else {
            /* fallback: every register declared at the top */
            uint32_t nregs = f->maxstack < MAX_REGS ? f->maxstack : MAX_REGS;
            if (nregs > MAX_DISPATCH_VARS) {
                F->fail = true;
                F->why = "too many registers for the block loop";
            } else {
                F->debug = false;
                for (uint32_t r = f->nparams; r < nregs; r++)
                    dc_predeclare(F, (int)r);
                dc_emit_dispatch(F);
                dc_flush_final(F);
            }
        }
        if (!F->fail || attempt == 1)
            break;
        why0 = F->why;
        why0_pc = (long long)F->why_pc;
        fn_free(F);
    }
    if (!F->fail)
        dc_close_region(F);
    /* the header: parameters */
    gsvm_buf params;
    gsvm_buf_init(&params);
    for (uint32_t i = 0; i < f->nparams && i < MAX_REGS; i++) {
        if (i)
            gsvm_buf_puts(&params, ", ");
        int v = F->debug && i < f->debug.nlocals && F->loc_reg[i] == (int)i ? F->locbase + (int)i
                                                                          : (int)i;
        gsvm_buf_puts(&params, v < F->nvars ? dc_dname(F, v) : "_");
    }
    if (f->flags & 2)
        gsvm_buf_puts(&params, f->nparams ? ", ..." : "...");
    gsvm_buf_cstr(&params);
    if (!main) {
        gsvm_buf_printf(out, "function(%s)\n", params.data ? (char *)params.data : "");
    }
    if (F->fail) {
        D->fallbacks++;
        for (int i = 0; i < ind + (main ? 0 : 1); i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_printf(out, "-- gsvm: function %s not decompiled (%s at pc %lld; %s)\n", path,
                        why0 ? why0 : "?", why0_pc, F->why ? F->why : "?");
        for (int i = 0; i < ind + (main ? 0 : 1); i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_printf(out, "error(\"gsvm: function %s not decompiled\")\n", path);
    } else {
        if (F->dispatch) {
            D->fallbacks++;
            for (int i = 0; i < ind + (main ? 0 : 1); i++)
                gsvm_buf_puts(out, "  ");
            gsvm_buf_printf(out, "-- gsvm: the control flow of function %s is not recovered "
                                 "(%s at pc %lld): its blocks run in a loop on pc\n",
                            path, why0 ? why0 : "?", why0_pc);
        }
        gsvm_buf_append(out, F->R[0].body.data, F->R[0].body.len);
    }
    if (!main) {
        for (int i = 0; i < ind; i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_puts(out, "end\n");
    }
    gsvm_buf_free(&params);
    fn_free(F);
    return true;
}

/* ---------------------------------------------------------------- API */

/* How many of f's upvalues its code names: one past the highest index an
 * instruction reads, writes, deletes or passes to a closure. */
static uint32_t upvalues_used(const gsvm_hks_chunk *c, const gsvm_hks_proto *f)
{
    uint32_t n = 0;
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        uint32_t w = f->code[pc], b = B_(w), need = 0;
        switch (hks_decode_op(c->profile, GSVM_HKS_OP(w))) {
        case HKS_I_GETUPVAL: case HKS_I_SETUPVAL: case HKS_I_SETUPVAL_R1: need = b + 1; break;
        case HKS_I_DELETE: need = C_(w) == HKS_DEL_UPVALUE ? b + 1 : 0; break;
        case HKS_I_CLOSURE: {
            uint32_t bx = GSVM_HKS_BX(w);
            for (uint32_t i = 0; bx < f->np && i < f->p[bx].nups && pc + 1 < f->ncode; i++) {
                pc++;
                if (A_(f->code[pc]) == 2 && GSVM_HKS_BX(f->code[pc]) + 1 > need)
                    need = GSVM_HKS_BX(f->code[pc]) + 1;
            }
            break;
        }
        default: break;
        }
        if (need > n)
            n = need;
    }
    return n < f->nups ? n : f->nups;
}

gsvm_status gsvm_hks_decompile(const gsvm_hks_chunk *c, const gsvm_hks_decompile_options *opts,
                               char **out, size_t *len, gsvm_hks_decompile_result *res,
                               gsvm_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    dc D;
    memset(&D, 0, sizeof D);
    D.c = c;
    D.err = err;
    D.strict = opts && opts->strict;
    gsvm_buf b;
    gsvm_buf_init(&b);
    const char *path = opts && opts->function ? opts->function : NULL;
    bool ok;
    if (path && strcmp(path, "0") != 0) {
        const gsvm_hks_proto *f = gsvm_hks_find_function(c, path);
        if (!f) {
            gsvm_buf_free(&b);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "no function '%s' in the chunk",
                                  path);
        }
        /* its upvalues are free names in the text (as many as its code
         * names: a bad chunk may claim millions) */
        uint32_t nups = upvalues_used(c, f);
        const char **names = calloc(nups ? nups : 1, sizeof *names);
        char (*store)[32] = calloc(nups ? nups : 1, sizeof *store);
        if (!names || !store) {
            free(names);
            free(store);
            gsvm_buf_free(&b);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        }
        for (uint32_t i = 0; i < nups; i++) {
            if (f->debug.flag && i < f->debug.nupnames && f->debug.upnames[i].size > 1 &&
                dx_is_name(f->debug.upnames[i].data, (size_t)f->debug.upnames[i].size - 1) &&
                strlen(f->debug.upnames[i].data) < 32)
                snprintf(store[i], 32, "%s", f->debug.upnames[i].data);
            else
                snprintf(store[i], 32, "upvalue%u", i + 1);
            names[i] = store[i];
        }
        gsvm_buf_printf(&b, "-- function %s\nreturn ", path);
        ok = dc_decompile_function(&D, f, path, 1, 0, names, nups, &b);
        free(names);
        free(store);
    } else {
        ok = dst_declare(c, &b) && dc_decompile_function(&D, &c->main, "0", 0, 0, NULL, 0, &b);
    }
    for (int i = 0; i <= MAX_FN_DEPTH; i++)
        free(D.fns[i]);
    if (res) {
        res->functions = D.functions;
        res->fallbacks = D.fallbacks;
    }
    if (!ok || b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    if (D.strict && D.fallbacks) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                              "%llu of %llu functions not decompiled to structured source "
                              "(--strict)",
                              (unsigned long long)D.fallbacks, (unsigned long long)D.functions);
    }
    gsvm_buf_cstr(&b);
    *out = (char *)gsvm_buf_take(&b, len);
    return GSVM_OK;
}
