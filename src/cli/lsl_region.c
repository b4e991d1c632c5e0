/* gsvm lsl region: a world file and a timeline through the region runtime
 * (src/lsl/region*.c); argument parsing and printing only. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/jsonl.h"
#include "cli/verb.h"
#include "cli/lsl_cli.h"
#include "gsvm/lsl_region.h"

typedef struct out_ctx {
    FILE *out;
    gsvm_lsl_region *r;
    bool timestamps;
} out_ctx;

static void print_line(void *user, json_t *line)
{
    out_ctx *o = user;
    if (o->timestamps && o->r) {
        gsvm_lsl_region_stats st;
        gsvm_lsl_region_get_stats(o->r, &st);
        json_object_set_new(line, "ms", json_integer((json_int_t)st.now_ms));
    }
    gsvm_jsonl_emit(o->out, line);
}

int gsvm_cli_lsl_region(int argc, char **argv)
{
    gsvm_lsl_region_opts ro;
    gsvm_lsl_region_opts_default(&ro);
    const char *events_path = NULL, *out_path = NULL, *cache = NULL;
    uint64_t fps = ro.frames_per_second, drain_ms = 10000, throttle_period = ro.throttle_period, cross_fault = 0;
    bool no_cache = false, has_cache = false, timestamps = false;
    const gsvm_opt opts[] = {
        {"--events", 0, OPT_STRING, &events_path, "TIMELINE.jsonl",
         "timeline: touch, chat, move, dataserver, http_response, event and advance_ms lines", NULL},
        {"--fps", 0, OPT_U64, &fps, "N", "simulated frames per second (default 45)", NULL},
        {"--frame-budget", 0, OPT_U64, &ro.frame_budget, "N", "instructions per frame, region-wide (default 200000)", NULL},
        {"--slice", 0, OPT_U64, &ro.slice, "N", "instructions per round-robin slice (default 1000)", NULL},
        {"--script-budget", 0, OPT_U64, &ro.script_budget, "N", "instructions per script per frame (default 10000)", NULL},
        {"--object-budget", 0, OPT_U64, &ro.object_budget, "N", "instructions per object (link set) per frame (default: none)", NULL},
        {"--owner-budget", 0, OPT_U64, &ro.owner_budget, "N", "instructions per owner per frame (default: none)", NULL},
        {"--throttle-above", 0, OPT_U64, &ro.throttle_above, "N",
         "throttle a script whose moving average exceeds N instructions per frame (default 5000, 0: never)", NULL},
        {"--throttle-period", 0, OPT_U64, &throttle_period, "K", "a throttled script runs one frame in K (default 4)", NULL},
        {"--slice-guard-us", 0, OPT_U64, &ro.slice_guard_us, "US", "wall-clock guard per slice (default 20000, 0: none)", NULL},
        {"--frame-guard-us", 0, OPT_U64, &ro.frame_guard_us, "US", "wall-clock guard per frame (default 250000, 0: none)", NULL},
        {"--print-chat", 0, OPT_FLAG, &ro.print_chat, NULL, "print chat between scripts too", NULL},
        {"--drain-ms", 0, OPT_U64, &drain_ms, "MS",
         "after the timeline, run until idle for at most MS simulated ms (default 10000)", NULL},
        {"--max-scripts", 0, OPT_U64, &ro.max_scripts, "N", "refuse crossings that would bring more scripts (default: none)", NULL},
        {"--cross-fault", 0, OPT_U64, &cross_fault, "STEP",
         "testing: drop a crossing's connection at STEP (1-7) on this side", NULL},
        {"--timestamps", 0, OPT_FLAG, &timestamps, NULL, "add the simulated time \"ms\" to every line", NULL},
        {"--cache", 0, OPT_STRING, &cache, "DIR", "compiled-program cache (default $XDG_CACHE_HOME/gsvm)", &has_cache},
        {"--no-cache", 0, OPT_FLAG, &no_cache, NULL, "compile without the cache", NULL},
        {"--output", 'o', OPT_STRING, &out_path, "FILE", "write the JSON Lines here (default stdout)", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm lsl region",
        "WORLD.json [--events TIMELINE.jsonl] [--print-chat] [budgets...]",
        "Runs every script of a world's objects on simulated frames, applies the timeline\n"
        "and prints one JSON line per host effect, each naming its \"object\" and \"script\"\n"
        "beside \"host\" and \"args\".  Exits 3 when a script faulted, 4 when scripts still\n"
        "had work after --drain-ms.",
        opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    const char *problem = NULL;
    if (fps == 0 || fps > 1000)
        problem = "--fps must be 1 to 1000";
    else if (ro.slice == 0 || ro.frame_budget == 0 || ro.script_budget == 0)
        problem = "--slice, --frame-budget and --script-budget must be at least 1";
    else if (throttle_period == 0 || throttle_period > 1000)
        problem = "--throttle-period must be 1 to 1000";
    else if (cross_fault > 7)
        problem = "--cross-fault must be 1 to 7";
    else if (has_cache && no_cache)
        problem = "--cache and --no-cache exclude each other";
    if (problem) {
        fprintf(stderr, "gsvm lsl region: %s\n", problem);
        gsvm_args_usage(&spec, true);
        return EXIT_USAGE;
    }
    ro.frames_per_second = (uint32_t)fps;
    ro.cross_fault = (int)cross_fault;
    ro.throttle_period = (uint32_t)throttle_period;
    char cache_buf[4096];
    ro.cache_dir = no_cache ? NULL : cache ? cache : gsvm_lsl_default_cache_dir(cache_buf, sizeof cache_buf);

    gsvm_error err;
    gsvm_error_clear(&err);
    json_t *lines = NULL;
    long *linenos = NULL;
    if (events_path && gsvm_jsonl_load_lines(events_path, &lines, &linenos, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    const char *events_name = events_path && strcmp(events_path, "-") ? events_path : "<stdin>";
    FILE *out = stdout;
    if (out_path && strcmp(out_path, "-") != 0 && !(out = fopen(out_path, "w"))) {
        gsvm_error_set(&err, GSVM_ERR_IO, out_path, "cannot open for writing");
        json_decref(lines);
        free(linenos);
        return gsvm_cli_fail(&err);
    }
    gsvm_lsl_region *r = NULL;
    out_ctx oc = {out, NULL, timestamps};
    gsvm_status st = gsvm_lsl_region_new(&ro, &r, &err);
    if (st == GSVM_OK) {
        oc.r = r;
        gsvm_lsl_region_set_output(r, print_line, &oc);
        st = gsvm_lsl_region_load_world(r, pos[0], &err);
    }
    if (st == GSVM_OK)
        st = gsvm_lsl_region_advance(r, 0, &err); /* frame 0: every script's state_entry */
    for (size_t i = 0; st == GSVM_OK && i < json_array_size(lines); i++)
        st = gsvm_lsl_region_apply(r, json_array_get(lines, i), events_name, linenos[i], &err);
    bool idle = true;
    if (st == GSVM_OK)
        st = gsvm_lsl_region_settle(r, drain_ms, &idle, &err);
    if (st != GSVM_OK) {
        rc = gsvm_cli_fail(&err);
    } else {
        gsvm_lsl_region_stats s;
        gsvm_lsl_region_get_stats(r, &s);
        rc = 0;
        if (!idle) {
            json_t *line = json_object();
            json_object_set_new(line, "stopped", json_string("drain limit"));
            json_object_set_new(line, "ms", json_integer((json_int_t)s.now_ms));
            gsvm_jsonl_emit(out, line);
            rc = EXIT_LIMIT;
        }
        if (s.faulted)
            rc = EXIT_FAULT;
    }
    gsvm_lsl_region_free(r);
    json_decref(lines);
    free(linenos);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        gsvm_error_set(&err, GSVM_ERR_IO, out_path, "write failed");
        rc = gsvm_cli_fail(&err);
    }
    return rc;
}
