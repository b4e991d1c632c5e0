/* gsvm patho run: the VM's CLI host (argument parsing and printing only; the
 * host itself is src/patho/host.c). */
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/jsonl.h"
#include "cli/patho_cli.h"
#include "gsvm/patho.h"
#include "gsvm/patho_host.h"
#include "patho/host.h"

static void print_line(void *user, const char *line, size_t len)
{
    FILE *out = user;
    fwrite(line, 1, len, out);
    fputc('\n', out);
    fflush(out);
}

static void print_note(void *user, const char *line, size_t len)
{
    (void)user;
    fprintf(stderr, "gsvm patho run: %.*s\n", (int)len, line);
}

const gsvm_cli_opt patho_run_opts[] = {
    {"--layout", 0, OPT_STRING, "alpha|hd", "opcode numbering (default: detected from the bytes)"},
    {"--events", 0, OPT_STRING, "EVENTS.jsonl",
     "timeline: {\"advance_ms\":N} and {\"event\":ID,\"args\":[...]} lines"},
    {"--natives", 0, OPT_STRING, "NATIVES.json",
     "more native declarations (docs/natives.md), searched before the built-in ones"},
    {"--frame-instructions", 0, OPT_U64, "N",
     "instructions per frame or event before stopping (default 1000000, the game's)"},
    {"--max-instructions", 0, OPT_U64, "N",
     "instructions in total over the run before stopping (default: no total)"},
    {"--output", 'o', OPT_STRING, "FILE", "write the output lines to FILE"},
    {"--save-state", 0, OPT_STRING, "STATE",
     "at the end, save the whole run (VM snapshot and simulation clock) to STATE"},
    {"--resume", 0, OPT_STRING, "STATE",
     "continue a run saved with --save-state (same FILE.bin) instead of starting"},
    {NULL, 0, 0, NULL, NULL},
};

int patho_run_body(const gsvm_cli_call *c)
{
    const char *events = gsvm_cli_str(c, "--events", NULL), *output = gsvm_cli_str(c, "--output", "-");
    const char *resume = gsvm_cli_str(c, "--resume", NULL), *save = gsvm_cli_str(c, "--save-state", NULL);
    const char *natives_path = gsvm_cli_str(c, "--natives", NULL);
    uint64_t frame_insns = gsvm_cli_u64(c, "--frame-instructions", GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS);
    uint64_t max_insns = gsvm_cli_u64(c, "--max-instructions", 0);
    bool has_max = gsvm_cli_given(c, "--max-instructions");
    const char *const *pos = c->pos;
    gsvm_patho_layout layout;
    int rc = patho_layout_of(c, &layout);
    if (rc)
        return rc;
    if (frame_insns == 0 || (has_max && max_insns == 0))
        return gsvm_cli_bad_value(c, "--%s must be at least 1",
                                  frame_insns == 0 ? "frame-instructions" : "max-instructions");

    gsvm_error err;
    json_t *timeline = NULL;
    if (events && gsvm_jsonl_load(events, &timeline, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    if (patho_timeline_check(timeline, events, &err) != GSVM_OK) {
        json_decref(timeline);
        return gsvm_cli_fail(&err);
    }
    gsvm_patho_natives *natives = NULL;
    if (gsvm_patho_natives_new(true, &natives, &err) != GSVM_OK ||
        (natives_path && gsvm_patho_natives_add_file(natives, natives_path, &err) != GSVM_OK)) {
        gsvm_patho_natives_free(natives);
        json_decref(timeline);
        return gsvm_cli_fail(&err);
    }
    gsvm_patho_program *prog = NULL;
    if (gsvm_patho_load_file(pos[0], layout, &prog, &err) != GSVM_OK) {
        gsvm_patho_natives_free(natives);
        json_decref(timeline);
        return gsvm_cli_fail(&err);
    }
    FILE *out = stdout;
    if (strcmp(output, "-") != 0 && !(out = fopen(output, "w"))) {
        perror(output);
        gsvm_patho_natives_free(natives);
        gsvm_patho_free(prog);
        json_decref(timeline);
        return EXIT_INPUT;
    }
    gsvm_buf state;
    gsvm_buf_init(&state);
    if (resume && gsvm_file_read(resume, &state, &err) != GSVM_OK) {
        if (out != stdout)
            fclose(out);
        gsvm_patho_natives_free(natives);
        gsvm_patho_free(prog);
        json_decref(timeline);
        return gsvm_cli_fail(&err);
    }
    uint8_t *saved = NULL;
    size_t saved_len = 0;
    patho_sim_opts o = {{natives, frame_insns, max_insns, print_line, out},
                        pos[0],
                        print_note,
                        resume ? state.data : NULL,
                        state.len,
                        save ? &saved : NULL,
                        &saved_len};
    patho_sim_outcome outcome = PATHO_SIM_FINISHED;
    gsvm_status st = patho_sim_run(prog, timeline, &o, &outcome, &err);
    gsvm_buf_free(&state);
    if (st == GSVM_OK && save)
        st = gsvm_file_write(save, saved, saved_len, &err);
    free(saved);
    if (out != stdout)
        fclose(out);
    gsvm_patho_natives_free(natives);
    gsvm_patho_free(prog);
    json_decref(timeline);
    if (st != GSVM_OK) {
        if (!err.file[0] || strcmp(err.file, "state") == 0 || strcmp(err.file, "snapshot") == 0)
            snprintf(err.file, sizeof err.file, "%s", resume && st == GSVM_ERR_INPUT ? resume : pos[0]);
        return gsvm_cli_fail(&err);
    }
    switch (outcome) {
    case PATHO_SIM_FAULT: return EXIT_FAULT;
    case PATHO_SIM_LIMIT: return EXIT_LIMIT;
    default: return 0;
    }
}
