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

const gsvm_cli_opt gsvm_cli_lsl_region_opts[] = {
    {"--events", 0, OPT_STRING, "TIMELINE.jsonl",
     "timeline: touch, chat, move, dataserver, http_response, event and advance_ms lines"},
    {"--fps", 0, OPT_U64, "N", "simulated frames per second (default 45)"},
    {"--frame-budget", 0, OPT_U64, "N", "instructions per frame, region-wide (default 200000)"},
    {"--slice", 0, OPT_U64, "N", "instructions per round-robin slice (default 1000)"},
    {"--script-budget", 0, OPT_U64, "N", "instructions per script per frame (default 10000)"},
    {"--object-budget", 0, OPT_U64, "N", "instructions per object (link set) per frame (default: none)"},
    {"--owner-budget", 0, OPT_U64, "N", "instructions per owner per frame (default: none)"},
    {"--throttle-above", 0, OPT_U64, "N",
     "throttle a script whose moving average exceeds N instructions per frame (default 5000, 0: never)"},
    {"--throttle-period", 0, OPT_U64, "K", "a throttled script runs one frame in K (default 4)"},
    {"--slice-guard-us", 0, OPT_U64, "US", "wall-clock guard per slice (default 20000, 0: none)"},
    {"--frame-guard-us", 0, OPT_U64, "US", "wall-clock guard per frame (default 250000, 0: none)"},
    {"--print-chat", 0, OPT_FLAG, NULL, "print chat between scripts too"},
    {"--drain-ms", 0, OPT_U64, "MS", "after the timeline, run until idle for at most MS simulated ms (default 10000)"},
    {"--max-scripts", 0, OPT_U64, "N", "refuse crossings that would bring more scripts (default: none)"},
    {"--cross-fault", 0, OPT_U64, "STEP", "testing: drop a crossing's connection at STEP (1-7) on this side"},
    {"--timestamps", 0, OPT_FLAG, NULL, "add the simulated time \"ms\" to every line"},
    {"--cache", 0, OPT_STRING, "DIR", "compiled-program cache (default $XDG_CACHE_HOME/gsvm)"},
    {"--no-cache", 0, OPT_FLAG, NULL, "compile without the cache"},
    {"--output", 'o', OPT_STRING, "FILE", "write the JSON Lines here (default stdout)"},
    {NULL, 0, 0, NULL, NULL},
};

int gsvm_cli_lsl_region(const gsvm_cli_call *c)
{
    gsvm_lsl_region_opts ro;
    gsvm_lsl_region_opts_default(&ro);
    const char *events_path = gsvm_cli_str(c, "--events", NULL), *out_path = gsvm_cli_str(c, "--output", NULL);
    const char *cache = gsvm_cli_str(c, "--cache", NULL);
    uint64_t fps = gsvm_cli_u64(c, "--fps", ro.frames_per_second);
    uint64_t drain_ms = gsvm_cli_u64(c, "--drain-ms", 10000);
    uint64_t throttle_period = gsvm_cli_u64(c, "--throttle-period", ro.throttle_period);
    uint64_t cross_fault = gsvm_cli_u64(c, "--cross-fault", 0);
    ro.frame_budget = gsvm_cli_u64(c, "--frame-budget", ro.frame_budget);
    ro.slice = gsvm_cli_u64(c, "--slice", ro.slice);
    ro.script_budget = gsvm_cli_u64(c, "--script-budget", ro.script_budget);
    ro.object_budget = gsvm_cli_u64(c, "--object-budget", ro.object_budget);
    ro.owner_budget = gsvm_cli_u64(c, "--owner-budget", ro.owner_budget);
    ro.throttle_above = gsvm_cli_u64(c, "--throttle-above", ro.throttle_above);
    ro.slice_guard_us = gsvm_cli_u64(c, "--slice-guard-us", ro.slice_guard_us);
    ro.frame_guard_us = gsvm_cli_u64(c, "--frame-guard-us", ro.frame_guard_us);
    ro.max_scripts = gsvm_cli_u64(c, "--max-scripts", ro.max_scripts);
    ro.print_chat = gsvm_cli_flag(c, "--print-chat");
    bool no_cache = gsvm_cli_flag(c, "--no-cache"), timestamps = gsvm_cli_flag(c, "--timestamps");
    if (fps == 0 || fps > 1000)
        return gsvm_cli_usage_error(c, "--fps must be 1 to 1000");
    if (ro.slice == 0 || ro.frame_budget == 0 || ro.script_budget == 0)
        return gsvm_cli_usage_error(c, "--slice, --frame-budget and --script-budget must be at least 1");
    if (throttle_period == 0 || throttle_period > 1000)
        return gsvm_cli_usage_error(c, "--throttle-period must be 1 to 1000");
    if (cross_fault > 7)
        return gsvm_cli_usage_error(c, "--cross-fault must be 1 to 7");
    if (cache && no_cache)
        return gsvm_cli_usage_error(c, "--cache and --no-cache exclude each other");
    ro.frames_per_second = (uint32_t)fps;
    ro.cross_fault = (int)cross_fault;
    ro.throttle_period = (uint32_t)throttle_period;
    char cache_buf[4096];
    ro.cache_dir = no_cache ? NULL : cache ? cache : gsvm_lsl_default_cache_dir(cache_buf, sizeof cache_buf);

    gsvm_error err;
    gsvm_error_clear(&err);
    int rc;
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
        st = gsvm_lsl_region_load_world(r, c->pos[0], &err);
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
