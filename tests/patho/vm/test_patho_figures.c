/* Figures over every corpus .bin (bin/ and more/bin/), run through the
 * public simulation host (gsvm/patho_host.h) with the shipped native
 * declarations and the game's cap of 1,000,000 instructions per frame:
 * how many runs finish or wait, spin to the cap, or fault.  Two timelines
 * per script: none (frame 0 only), and every event the script handles
 * (non-null objects as arguments), each followed by an animation end and
 * a second of time.  Every spin and fault is printed; the ones that remain
 * are listed below with the reason, and any other fails the test. */
#include <stdio.h>
#include <string.h>

#include "corpus_files.h"
#include "gsvm/patho.h"
#include "gsvm/patho_host.h"
#include "test.h"

/* The spins and faults that remain, each with the reason the game would
 * have it too (file part, the line's text, why).  None remain today: the
 * last ones were the host's (nulls for objects natives create, IsLoaded
 * false, a random count of 0, object globals the game binds), fixed by the
 * shipped declarations' answers and the sim's bound globals. */
static const struct {
    const char *file, *line, *why;
} expected[] = {
    {NULL, NULL, NULL}, /* end */
};

static int runs, done, spins, faults, unexpected;

static void report(const char *path, int timeline, gsvm_patho_sim_outcome o, const char *line)
{
    runs++;
    if (o == GSVM_PATHO_SIM_FINISHED || o == GSVM_PATHO_SIM_RUNNING) {
        done++;
        return;
    }
    const char *base = strstr(path, "corpus/pathologic/");
    base = base ? base + strlen("corpus/pathologic/") : path;
    bool known = false;
    for (size_t i = 0; expected[i].file; i++)
        known = known || (strstr(base, expected[i].file) && strstr(line, expected[i].line));
    if (o == GSVM_PATHO_SIM_LIMIT)
        spins++;
    else
        faults++;
    printf("  %-44s %-7s %s%s\n", base, timeline ? "events" : "none", line,
           known ? "" : "   <- not expected");
    if (!known)
        unexpected++;
}

static void run_file(const char *path, gsvm_patho_program *prog, void *user)
{
    (void)user;
    gsvm_error err;
    for (int timeline = 0; timeline <= 1; timeline++) {
        corpus_last_line l = {""};
        gsvm_patho_sim_opts o = {drive_natives(), 0, 0, corpus_keep_last, &l};
        gsvm_patho_sim *s;
        if (gsvm_patho_sim_new(prog, path, &o, &s, &err) != GSVM_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            test_failed++;
            break;
        }
        gsvm_patho_sim_outcome out = gsvm_patho_sim_start(s);
        const gsvm_patho_event *evs[64];
        uint32_t nev = timeline ? corpus_events(prog, evs, 64) : 0;
        for (uint32_t i = 0; i < nev && out == GSVM_PATHO_SIM_RUNNING; i++) {
            gsvm_patho_value args[8];
            uint32_t n = drive_event_args(evs[i], args);
            out = gsvm_patho_sim_event(s, evs[i]->id, args, n, NULL);
            for (uint32_t k = 0; k < n; k++)
                gsvm_patho_value_free(&args[k]);
            gsvm_patho_sim_anim_end(s);
            if (out == GSVM_PATHO_SIM_RUNNING)
                out = gsvm_patho_sim_advance(s, 1000);
        }
        report(path, timeline, out, l.text);
        gsvm_patho_sim_free(s);
    }
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    printf("runs that spin or fault:\n");
    int files = corpus_each_bin(shared, run_file, NULL);
    CHECK_INT(files, CORPUS_BIN_FILES);
    printf("patho figures: %d files, %d runs: %d finish or wait, %d spin to the cap, %d fault\n",
           files, runs, done, spins, faults);
    CHECK_INT(unexpected, 0);
    TEST_MAIN_END();
}
