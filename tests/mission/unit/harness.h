/* Test helpers for the mission runtime: a recording host and shortcuts to
 * open a script from a string, report events and read variables. */
#ifndef GSVM_TEST_MISSION_HARNESS_H
#define GSVM_TEST_MISSION_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "gsvm/mission.h"
#include "test.h"

typedef struct rec_host {
    char log[32768];
    size_t len;
    gsvm_mission_answer answer;
    int faults, requests, results;
    char last_fault[300];
} rec_host;

static void rec_append(rec_host *h, const char *line)
{
    size_t n = strlen(line);
    if (h->len + n + 1 < sizeof h->log) {
        memcpy(h->log + h->len, line, n);
        h->len += n;
        h->log[h->len] = 0;
    }
}

static gsvm_mission_answer rec_request(void *ud, const gsvm_mission_request *r)
{
    rec_host *h = ud;
    char line[600];
    snprintf(line, sizeof line, "req %llu %s %s %s\n", (unsigned long long)r->key,
             r->effect ? r->effect : "-", r->call, r->args_json);
    rec_append(h, line);
    h->requests++;
    return h->answer;
}

static void rec_result(void *ud, uint64_t key, const char *effect, const char *outcome)
{
    rec_host *h = ud;
    char line[200];
    (void)effect;
    snprintf(line, sizeof line, "res %llu %s\n", (unsigned long long)key, outcome);
    rec_append(h, line);
    h->results++;
}

static void rec_fault(void *ud, const char *msg)
{
    rec_host *h = ud;
    char line[400];
    snprintf(line, sizeof line, "fault %s\n", msg);
    snprintf(h->last_fault, sizeof h->last_fault, "%s", msg);
    rec_append(h, line);
    h->faults++;
}

static void harness_config(gsvm_mission_config *cfg, rec_host *h)
{
    memset(h, 0, sizeof *h);
    gsvm_mission_config_init(cfg);
    cfg->activity_id = "test";
    cfg->host.request = rec_request;
    cfg->host.effect_result = rec_result;
    cfg->host.fault = rec_fault;
    cfg->host.ud = h;
}

/* Opens `src` with `cfg` (or a default one); NULL (and the error printed) on failure. */
static inline gsvm_mission *open_with(const char *src, gsvm_mission_config *cfg, gsvm_error *err)
{
    gsvm_mission *m = NULL;
    if (gsvm_mission_open(cfg, src, strlen(src), &m, err) != GSVM_OK)
        return NULL;
    return m;
}

static inline gsvm_mission *open_src(const char *src, rec_host *h)
{
    gsvm_mission_config cfg;
    harness_config(&cfg, h);
    gsvm_error err;
    gsvm_mission *m = open_with(src, &cfg, &err);
    if (!m)
        fprintf(stderr, "open failed: %s\n", err.message);
    return m;
}

static inline void report(gsvm_mission *m, const char *kind)
{
    gsvm_error err;
    if (gsvm_mission_report(m, kind, NULL, 0, &err) != GSVM_OK)
        fprintf(stderr, "report %s failed: %s\n", kind, err.message);
}

static inline void report_str(gsvm_mission *m, const char *kind, const char *field, const char *value)
{
    gsvm_error err;
    gsvm_mission_field f = {field, {GSVM_MV_STR, false, 0, 0, value, strlen(value)}};
    if (gsvm_mission_report(m, kind, &f, 1, &err) != GSVM_OK)
        fprintf(stderr, "report %s failed: %s\n", kind, err.message);
}

static inline long long var_int(gsvm_mission *m, const char *name)
{
    gsvm_mission_value v;
    if (!gsvm_mission_variable(m, name, &v))
        return -999999;
    if (v.type == GSVM_MV_BOOL)
        return v.b;
    return v.type == GSVM_MV_INT ? v.i : -999998;
}

static inline const char *var_str(gsvm_mission *m, const char *name)
{
    static char buf[200];
    gsvm_mission_value v;
    if (!gsvm_mission_variable(m, name, &v) || v.type != GSVM_MV_STR)
        return "(none)";
    snprintf(buf, sizeof buf, "%.*s", (int)v.len, v.s);
    return buf;
}

#endif
