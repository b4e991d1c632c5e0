/* The HavokScript decompiler, the webs of stripped code: the live ranges of
 * each register, so that a register reused for locals of different blocks
 * gives one variable per use (see fn.wstate).
 *
 * Both data flows run on work lists over instructions: each instruction's
 * successors and the registers it reads and writes are decoded once (bit
 * sets of uint64_t words), and an instruction is looked at again only when
 * what flows into it changed.  Each flow has a fixed point that does not
 * depend on the order of the work, so the result is the one of whole passes
 * repeated until nothing changes, at a fraction of the work. */
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* A web's root (wparent: -1 at a root, so that one memset sets them all). */
int32_t dc_web_find(fn *F, int32_t id)
{
    int32_t *par = F->wparent;
    for (int32_t p; (p = par[id]) >= 0; id = p)
        if (par[p] >= 0)
            par[id] = par[p];
    return id;
}

/* The successors of pc in the control flow (at most 2). */
static int successors(const fn *F, int64_t pc, int64_t out[2])
{
    unsigned op = F->op[pc];
    int64_t nx = next_pc(F, pc);
    int k = 0;
    if (op == HKS_I_RETURN || is_tailcall(op))
        return 0;
    if (op == HKS_I_JMP || op == HKS_I_FORPREP) {
        out[k++] = jmp_target(F, pc);
        return k;
    }
    if (op == HKS_I_FORLOOP) {
        out[k++] = jmp_target(F, pc);
        out[k++] = nx;
        return k;
    }
    if (is_test(op) || op == HKS_I_TFORLOOP) {
        out[k++] = nx;
        out[k++] = next_pc(F, nx);
        return k;
    }
    if (op == HKS_I_LOADBOOL && C_(W(F, pc))) {
        out[k++] = next_pc(F, nx);
        return k;
    }
    out[k++] = nx;
    return k;
}

/* What the flows need of each instruction, decoded once: its successors
 * inside the function (-1 none) and the registers below wn it reads and
 * writes, nw words a set. */
typedef struct webflow {
    int64_t n;
    int wn, nw;
    int32_t *succ;         /* 2 per pc */
    int32_t *pstart, *pred; /* predecessors: pred[pstart[pc] .. pstart[pc + 1]) */
    uint64_t *rd, *wr, *live; /* nw words per pc */
    int32_t *queue;        /* a ring of n + 1 pcs */
    uint8_t *inq;
} webflow;

static bool bit(const uint64_t *s, int r) { return s[r >> 6] >> (r & 63) & 1; }

static bool is_code(const fn *F, int64_t pc) { return !F->isdata[pc] && F->op[pc] != HKS_NO_OP; }

static bool flow_init(fn *F, webflow *w, const int32_t *top)
{
    int64_t n = w->n;
    size_t sets = (size_t)n * (size_t)w->nw;
    w->succ = malloc((size_t)n * 2 * sizeof *w->succ);
    w->pstart = calloc((size_t)n + 2, sizeof *w->pstart);
    w->pred = malloc((size_t)n * 2 * sizeof *w->pred + 1);
    w->rd = calloc(sets, sizeof *w->rd);
    w->wr = calloc(sets, sizeof *w->wr);
    w->live = calloc(sets, sizeof *w->live);
    w->queue = malloc(((size_t)n + 1) * sizeof *w->queue);
    w->inq = calloc((size_t)n, 1);
    rw *x = malloc(sizeof *x);
    bool ok = w->succ && w->pstart && w->pred && w->rd && w->wr && w->live && w->queue && w->inq && x;
    for (int64_t pc = 0; pc < n && ok; pc++) {
        w->succ[pc * 2] = w->succ[pc * 2 + 1] = -1;
        if (!is_code(F, pc))
            continue;
        int64_t sc[2];
        int ns = successors(F, pc, sc);
        for (int i = 0; i < ns; i++)
            if (sc[i] >= 0 && sc[i] < n) {
                w->succ[pc * 2 + i] = (int32_t)sc[i];
                w->pstart[sc[i] + 1]++;
            }
        dc_operands(F, pc, top[pc] < 0 ? MAX_REGS : top[pc], x);
        uint64_t *rd = w->rd + pc * w->nw, *wr = w->wr + pc * w->nw;
        for (int i = 0; i < x->nrd; i++)
            if (x->rd[i] < w->wn)
                rd[x->rd[i] >> 6] |= 1ull << (x->rd[i] & 63);
        for (int i = 0; i < x->nwr; i++)
            if (x->wr[i] < w->wn)
                wr[x->wr[i] >> 6] |= 1ull << (x->wr[i] & 63);
    }
    free(x);
    if (!ok)
        return false;
    for (int64_t pc = 0; pc < n; pc++)
        w->pstart[pc + 1] += w->pstart[pc];
    int32_t *fill = w->queue; /* borrowed: the next free place of each list */
    memcpy(fill, w->pstart, (size_t)n * sizeof *fill);
    for (int64_t pc = 0; pc < n; pc++)
        for (int i = 0; i < 2; i++)
            if (w->succ[pc * 2 + i] >= 0)
                w->pred[fill[w->succ[pc * 2 + i]]++] = (int32_t)pc;
    return true;
}

static void flow_free(webflow *w)
{
    free(w->succ);
    free(w->pstart);
    free(w->pred);
    free(w->rd);
    free(w->wr);
    free(w->live);
    free(w->queue);
    free(w->inq);
}

/* The work list: a ring holding each pc at most once. */
typedef struct worklist {
    webflow *w;
    int64_t head, count;
} worklist;

static void wl_push(worklist *l, int64_t pc)
{
    webflow *w = l->w;
    if (w->inq[pc])
        return;
    w->inq[pc] = 1;
    w->queue[(l->head + l->count++) % (w->n + 1)] = (int32_t)pc;
}

static int64_t wl_pop(worklist *l)
{
    webflow *w = l->w;
    int64_t pc = w->queue[l->head];
    l->head = (l->head + 1) % (w->n + 1);
    l->count--;
    w->inq[pc] = 0;
    return pc;
}

/* Liveness, backward: live in = reads + (live out - writes); a TESTSET
 * writes only on one path, so it kills nothing.  False when the work runs
 * past the budget the whole passes had (200 of them). */
static bool liveness(fn *F, webflow *w)
{
    int nw = w->nw;
    worklist l = {w, 0, 0};
    for (int64_t pc = w->n - 1; pc >= 0; pc--)
        if (is_code(F, pc))
            wl_push(&l, pc);
    int64_t budget = 200 * (w->n + 1);
    uint64_t in[4];
    while (l.count > 0) {
        if (--budget < 0)
            return false;
        int64_t pc = wl_pop(&l);
        bool kills = F->op[pc] != HKS_I_TESTSET;
        const uint64_t *rd = w->rd + pc * nw, *wr = w->wr + pc * nw;
        uint64_t *live = w->live + pc * nw;
        bool changed = false;
        for (int k = 0; k < nw; k++) {
            uint64_t out = 0;
            for (int i = 0; i < 2; i++)
                if (w->succ[pc * 2 + i] >= 0)
                    out |= w->live[w->succ[pc * 2 + i] * nw + k];
            in[k] = (kills ? out & ~wr[k] : out) | rd[k];
            changed |= in[k] != live[k];
        }
        if (!changed)
            continue;
        memcpy(live, in, (size_t)nw * sizeof *in);
        for (int32_t i = w->pstart[pc]; i < w->pstart[pc + 1]; i++)
            wl_push(&l, w->pred[i]);
    }
    return true;
}

static void web_union(fn *F, int32_t x, int32_t y, int64_t params)
{
    int32_t a = dc_web_find(F, x), b = dc_web_find(F, y);
    if (a == b)
        return;
    /* the parameter's web stays the root */
    if (b >= params)
        F->wparent[a] = b;
    else
        F->wparent[b] = a;
}

/* The values, forward: the web of each live register entering each pc
 * (st), the first web to arrive stays and any other is joined to it. */
static bool values(fn *F, webflow *w, int32_t *st, int32_t *cur)
{
    int64_t n = w->n;
    int wn = w->wn, nw = w->nw;
    worklist l = {w, 0, 0};
    for (int64_t pc = 0; pc < n; pc++)
        if (is_code(F, pc))
            wl_push(&l, pc);
    int64_t budget = 200 * (n + 1);
    while (l.count > 0) {
        if (--budget < 0)
            return false;
        int64_t pc = wl_pop(&l);
        const uint64_t *wr = w->wr + pc * nw;
        for (int i = 0; i < 2; i++) {
            int64_t q = w->succ[pc * 2 + i];
            if (q < 0)
                continue;
            memcpy(cur, st + pc * wn, (size_t)wn * sizeof *cur);
            /* a TESTSET writes A only on its jump (the JMP after it) */
            if (F->op[pc] != HKS_I_TESTSET || q == pc + 1)
                for (int k = 0; k < nw; k++)
                    for (uint64_t m = wr[k]; m; m &= m - 1) {
                        int r = k * 64 + __builtin_ctzll(m);
                        cur[r] = (int32_t)(pc * wn + r);
                    }
            bool changed = false;
            const uint64_t *live = w->live + q * nw;
            for (int k = 0; k < nw; k++)
                for (uint64_t m = live[k]; m; m &= m - 1) {
                    int r = k * 64 + __builtin_ctzll(m);
                    int32_t *d = &st[q * wn + r];
                    if (cur[r] < 0)
                        continue;
                    if (*d < 0) {
                        *d = cur[r];
                        changed = true;
                    } else if (*d != cur[r]) {
                        web_union(F, *d, cur[r], n * wn);
                    }
                }
            if (changed)
                wl_push(&l, q);
        }
    }
    return true;
}

/* A register a closure captures is one variable while the upvalue is open:
 * the writes reached from the capture before a CLOSE of it (or the
 * function's end) join the captured web.  False past the step budget (the
 * function keeps register variables). */
static bool captures(fn *F, webflow *w, const int32_t *st)
{
    int64_t n = w->n;
    int wn = w->wn, nw = w->nw;
    int32_t *stack = malloc(((size_t)n + 1) * 2 * sizeof *stack);
    uint32_t *seen = calloc((size_t)n + 1, sizeof *seen);
    uint32_t gen = 0;
    int64_t budget = 1 << 21;
    bool ok = stack && seen;
    for (int64_t pc = 0; pc < n && ok; pc++) {
        if (F->isdata[pc] || F->op[pc] != HKS_I_CLOSURE)
            continue;
        uint32_t bx = GSVM_HKS_BX(W(F, pc));
        if (bx >= F->f->np)
            continue;
        for (uint32_t i = 0; i < F->f->p[bx].nups && pc + 1 + i < n && ok; i++) {
            uint32_t dw = W(F, pc + 1 + i);
            int r = (int)GSVM_HKS_BX(dw);
            if (A_(dw) != 1 || r >= wn)
                continue;
            int32_t rep = r == (int)A_(W(F, pc)) ? (int32_t)(pc * wn + r) : st[pc * wn + r];
            gen++;
            int64_t sp = 0;
            for (int k = 0; k < 2; k++)
                if (w->succ[pc * 2 + k] >= 0)
                    stack[sp++] = w->succ[pc * 2 + k];
            while (sp > 0) {
                int64_t q = stack[--sp];
                if (seen[q] == gen || !is_code(F, q))
                    continue;
                seen[q] = gen;
                if (--budget < 0) {
                    ok = false;
                    break;
                }
                if (F->op[q] == HKS_I_CLOSE && (int)A_(W(F, q)) <= r)
                    continue;
                if (bit(w->wr + q * nw, r)) {
                    int32_t id = (int32_t)(q * wn + r);
                    if (rep < 0)
                        rep = id;
                    web_union(F, rep, id, n * wn);
                }
                for (int k = 0; k < 2; k++) {
                    int32_t s = w->succ[q * 2 + k];
                    if (s >= 0 && seen[s] != gen && sp < 2 * (n + 1))
                        stack[sp++] = s;
                }
            }
        }
    }
    free(stack);
    free(seen);
    return ok;
}

/* The webs of a stripped function (see fn.wstate): liveness backward, then
 * the values forward; where paths join with different webs of a live
 * register, the webs are one.  Skipped (wstate NULL) for big functions. */
void dc_find_webs(fn *F, int wn)
{
    int64_t n = F->n;
    if (F->debug || n == 0 || wn <= 0 || (n + 1) * (int64_t)wn > (1 << 22))
        return;
    size_t cells = (size_t)(n + 1) * (size_t)wn;
    int32_t *st = malloc(cells * sizeof *st), *par = malloc(cells * sizeof *par);
    int32_t *wv = malloc(cells * sizeof *wv);
    int32_t *cur = malloc((size_t)wn * sizeof *cur);
    int32_t *top = malloc((size_t)(n + 1) * sizeof *top);
    webflow w = {n, wn, (wn + 63) / 64, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    bool ok = st && par && wv && cur && top;
    if (ok) {
        /* the register of the last open multret value at each pc */
        int t = -1;
        for (int64_t pc = 0; pc < n; pc++) {
            top[pc] = t;
            if (F->isdata[pc])
                continue;
            if (dc_writes_multret(F, pc))
                t = (int)A_(W(F, pc));
            else if (dc_reads_multret(F, pc))
                t = -1;
        }
        ok = flow_init(F, &w, top) && liveness(F, &w);
    }
    if (ok) {
        /* no web yet anywhere, every web its own root, none named */
        memset(st, 0xff, cells * sizeof *st);
        memset(par, 0xff, cells * sizeof *par);
        memset(wv, 0xff, cells * sizeof *wv);
        /* the parameters: their values enter at pc 0 as webs n * wn + r */
        for (int r = 0; r < wn && r < (int)F->f->nparams; r++) {
            st[r] = (int32_t)(n * wn + r);
            wv[n * wn + r] = r;
        }
        F->wparent = par;
        ok = values(F, &w, st, cur) && captures(F, &w, st);
    }
    flow_free(&w);
    free(cur);
    free(top);
    if (!ok) {
        free(st);
        free(par);
        free(wv);
        F->wparent = NULL;
        return;
    }
    F->wstate = st;
    F->wvar = wv;
    F->wn = wn;
}
