/* `verify` and `run` agree on what an operand may address: every program
 * verify accepts runs without a stack-addressing fault ("Stack[-N] is
 * outside the stack", "task variable N is outside the stack", a pop below
 * the bottom).  Over every corpus .bin and
 * over many mutations of each (stack operands, pop counts and flag pop bits
 * set to small values, Stack[-0] included), each accepted program is run
 * through the sim with every handled event sent. */
#include <stdio.h>
#include <string.h>

#include "corpus_files.h"
#include "gsvm/patho.h"
#include "gsvm/patho_host.h"
#include "patho/isa.h"
#include "test.h"

#define MUTATIONS 60 /* per file */

static int accepted, rejected, ran_clean, addressing_faults;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static bool verifies(const gsvm_patho_program *p)
{
    gsvm_patho_issue *issues = NULL;
    size_t n = 0;
    gsvm_error err;
    bool ok = gsvm_patho_verify(p, &issues, &n, &err) == GSVM_OK && n == 0;
    free(issues);
    return ok;
}

/* Runs an accepted program; true when it shows no addressing fault. */
static bool runs_clean(const gsvm_patho_program *p, const char *what)
{
    corpus_last_line l = {""};
    gsvm_patho_sim_opts o = {drive_natives(), 20000, 0, corpus_keep_last, &l};
    gsvm_patho_sim *s;
    gsvm_error err;
    if (gsvm_patho_sim_new(p, what, &o, &s, &err) != GSVM_OK)
        return true; /* not runnable here (e.g. a global of no type): nothing to compare */
    gsvm_patho_sim_outcome out = gsvm_patho_sim_start(s);
    const gsvm_patho_event *evs[64];
    uint32_t nev = corpus_events(p, evs, 64);
    for (uint32_t i = 0; i < nev && out == GSVM_PATHO_SIM_RUNNING; i++) {
        gsvm_patho_value args[8];
        uint32_t n = drive_event_args(evs[i], args);
        out = gsvm_patho_sim_event(s, evs[i]->id, args, n, NULL);
        for (uint32_t k = 0; k < n; k++)
            gsvm_patho_value_free(&args[k]);
        if (out == GSVM_PATHO_SIM_RUNNING)
            out = gsvm_patho_sim_advance(s, 1000);
    }
    gsvm_patho_sim_free(s);
    /* "Stack[-N] is outside the stack", "task variable N is outside the stack" */
    bool bad = out == GSVM_PATHO_SIM_FAULT &&
               (strstr(l.text, "is outside the stack") || strstr(l.text, "Stack underflow"));
    if (bad)
        fprintf(stderr, "%s: verify accepted it, run faulted: %s\n", what, l.text);
    return !bad;
}

/* One stack-related operand of instruction `in`, picked at random: its
 * address, or NULL when it has none.  Variables in either addressing
 * (v, t, m and a by their mode, F/R arguments of mode 0 or 1) and pop
 * counts (p, h, the flag byte's count). */
static uint32_t *pick_operand(gsvm_patho_program *p, gsvm_patho_insn *in)
{
    const char *ops = gsvm_patho_ops[in->op].operands;
    uint32_t *cand[GSVM_PATHO_MAX_OPERANDS + 1];
    unsigned n = 0;
    for (unsigned k = 0; ops[k]; k++) {
        bool stack = false;
        switch (ops[k]) {
        case 'v': case 't': case 'm': case 'a': case 'p': case 'h': case 'f': stack = true; break;
        case 'F':
        case 'R':
            if (in->list_len && (uint64_t)in->list + in->list_len <= p->nargs) {
                gsvm_patho_arg *a = &p->args[in->list + next(in->list_len)];
                if (a->mode <= 1)
                    cand[n++] = &a->var;
            }
            break;
        }
        if (stack)
            cand[n++] = &in->a[k];
    }
    return n ? cand[next(n)] : NULL;
}

static void check_file(const char *path, gsvm_patho_program *p, void *user)
{
    (void)user;
    CHECK(verifies(p)); /* every corpus file is clean */
    CHECK(runs_clean(p, path));
    for (int m = 0; m < MUTATIONS && p->ninsns; m++) {
        gsvm_patho_insn *in = &p->insns[next(p->ninsns)];
        uint32_t *slot = pick_operand(p, in);
        if (!slot)
            continue;
        uint32_t was = *slot;
        /* small values, 0 included; flag bytes keep their mode bits */
        const char *ops = gsvm_patho_ops[in->op].operands;
        bool flag = (uint32_t *)slot >= in->a && slot < in->a + GSVM_PATHO_MAX_OPERANDS &&
                    ops[slot - in->a] == 'f';
        gsvm_patho_shape shape = gsvm_patho_op_shape(in->op);
        *slot = flag ? (was & ~(uint32_t)shape.popmask) | next(4) : next(5);
        if (verifies(p)) {
            accepted++;
            char what[4600];
            snprintf(what, sizeof what, "%s with op %u operand %u -> %u", path,
                     (unsigned)(in - p->insns), was, *slot);
            if (runs_clean(p, what))
                ran_clean++;
            else
                addressing_faults++;
        } else {
            rejected++;
        }
        *slot = was;
    }
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    CHECK_INT(corpus_each_bin(shared, check_file, NULL), CORPUS_BIN_FILES);
    printf("verify vs run: %d mutated programs accepted (%d ran with no addressing fault), "
           "%d rejected\n",
           accepted, ran_clean, rejected);
    CHECK(accepted > 100 && rejected > 100); /* the mutations reach both sides */
    CHECK_INT(addressing_faults, 0);
    TEST_MAIN_END();
}
