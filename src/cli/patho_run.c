/* gsvm patho run: the VM's CLI host (argument parsing and printing only; the
 * host itself is src/patho/host.c). */
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/jsonl.h"
#include "cli/args.h"
#include "gsvm/patho.h"
#include "gsvm/patho_host.h"
#include "patho/host.h"

int gsvm_cli_patho_run(int argc, char **argv);

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

int gsvm_cli_patho_run(int argc, char **argv)
{
    const char *layout_name = "auto", *events = NULL, *output = "-", *resume = NULL, *save = NULL,
               *natives_path = NULL;
    uint64_t frame_insns = GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS, max_insns = 0;
    bool has_max = false;
    const gsvm_opt opts[] = {
        {"--layout", 0, OPT_STRING, &layout_name, "alpha|hd",
         "opcode numbering (default: detected from the bytes)", NULL},
        {"--events", 0, OPT_STRING, &events, "EVENTS.jsonl",
         "timeline: {\"advance_ms\":N} and {\"event\":ID,\"args\":[...]} lines", NULL},
        {"--natives", 0, OPT_STRING, &natives_path, "NATIVES.json",
         "more native declarations (docs/natives.md), searched before the built-in ones", NULL},
        {"--frame-instructions", 0, OPT_U64, &frame_insns, "N",
         "instructions per frame or event before stopping (default 1000000, the game's)", NULL},
        {"--max-instructions", 0, OPT_U64, &max_insns, "N",
         "instructions in total over the run before stopping (default: no total)", &has_max},
        {"--output", 'o', OPT_STRING, &output, "FILE", "write the output lines to FILE", NULL},
        {"--save-state", 0, OPT_STRING, &save, "STATE",
         "at the end, save the whole run (VM snapshot and simulation clock) to STATE", NULL},
        {"--resume", 0, OPT_STRING, &resume, "STATE",
         "continue a run saved with --save-state (same FILE.bin) instead of starting", NULL},
        {NULL, 0, OPT_FLAG, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm patho run",
        "FILE.bin [--layout alpha|hd] [--events EVENTS.jsonl] [--natives NATIVES.json]\n"
        "       [--frame-instructions N] [--max-instructions N] [-o FILE]\n"
        "       [--save-state STATE] [--resume STATE]",
        "Runs a script from RunTask at RunOp, frame by frame, against a JSON Lines timeline.\n"
        "Every native it imports must be declared (built in, or --natives); every call prints\n"
        "{\"host\":NAME,\"args\":[...]}.  Latent natives wait as declared: Sleep(t) on\n"
        "simulation time ({\"advance_ms\":N} advances it and runs a frame), Hold() until the\n"
        "script calls StopGroup0(), sync() for the next frame, WaitForAnimEnd until\n"
        "{\"anim_end\":true}; {\"event\":ID,\"args\":[...]} sends an event and runs its\n"
        "handler at once.  A script error prints {\"fault\":MESSAGE,\"op\":N} (exit 3); an\n"
        "instruction cap prints {\"stopped\":\"instruction limit\"} (exit 4).",
        opts, 1, 1};
    const char *pos[1];
    int npos = 0;
    int rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_layout layout;
    if (!gsvm_patho_layout_parse(layout_name, &layout)) {
        fprintf(stderr, "gsvm patho run: unknown layout '%s' (alpha or hd)\n", layout_name);
        return EXIT_USAGE;
    }
    if (frame_insns == 0 || (has_max && max_insns == 0)) {
        fprintf(stderr, "gsvm patho run: --%s must be at least 1\n",
                frame_insns == 0 ? "frame-instructions" : "max-instructions");
        return EXIT_USAGE;
    }

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
