/* Request records: what a callback asked for, as it waits in the outbox and
 * as the store keeps it ({"key":..,"attempt":..,"op":..,...,"args":{...}}). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

void ms_mreq_free(mreq *r)
{
    if (r) {
        free(r->args);
        free(r);
    }
}

char *ms_mreq_encode(const mreq *r)
{
    json_error_t je;
    /* The arguments were made by mapi_to_json: UTF-8, NUL as \u0000.  A
     * failure here is out of memory, never a reason to store other args. */
    json_t *args = r->args ? json_loads(r->args, JSON_ALLOW_NUL, &je) : json_object();
    if (!args)
        return NULL;
    json_t *o = json_pack("{s:I,s:I,s:i,s:b,s:b,s:s,s:s,s:I,s:I,s:I,s:o}", "key", (json_int_t)r->key,
                          "attempt", (json_int_t)r->attempt, "op", r->op, "publish", r->publish,
                          "completes", r->completes, "call", r->call, "effect", r->effect, "p1",
                          (json_int_t)r->p1, "p2", (json_int_t)r->p2, "p3", (json_int_t)r->p3,
                          "args", args);
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

mreq *ms_mreq_decode(const char *text, size_t len, gsvm_error *err)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_ALLOW_NUL, &je);
    if (!o) {
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, "request record", je.position,
                             "invalid request record: %s", je.text);
        return NULL;
    }
    json_int_t key, attempt, p1, p2, p3;
    int op, publish, completes;
    const char *call, *effect;
    json_t *args;
    mreq *r = NULL;
    if (json_unpack_ex(o, &je, JSON_STRICT, "{s:I,s:I,s:i,s:b,s:b,s:s,s:s,s:I,s:I,s:I,s:o}", "key",
                       &key, "attempt", &attempt, "op", &op, "publish", &publish, "completes",
                       &completes, "call", &call, "effect", &effect, "p1", &p1, "p2", &p2, "p3",
                       &p3, "args", &args) != 0) {
        gsvm_error_set(err, GSVM_ERR_INPUT, "request record", "invalid request record: %s", je.text);
        goto out;
    }
    if (key <= 0 || attempt <= 0 || op < OP_HOST || op > OP_ACTOR_COMMAND || !json_is_object(args) ||
        strlen(call) >= sizeof r->call || strlen(effect) >= sizeof r->effect) {
        gsvm_error_set(err, GSVM_ERR_INPUT, "request record", "request record out of range");
        goto out;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        gsvm_error_set(err, GSVM_ERR_NOMEM, "request record", "out of memory");
        goto out;
    }
    r->key = (uint64_t)key;
    r->attempt = (uint64_t)attempt;
    r->op = op;
    r->publish = publish;
    r->completes = completes;
    strcpy(r->call, call);
    strcpy(r->effect, effect);
    r->p1 = p1;
    r->p2 = p2;
    r->p3 = p3;
    r->args = json_dumps(args, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!r->args) {
        ms_mreq_free(r);
        r = NULL;
        gsvm_error_set(err, GSVM_ERR_NOMEM, "request record", "out of memory");
    }
out:
    json_decref(o);
    return r;
}

gsvm_status gsvm_mission_request_record_check(const char *text, size_t len, gsvm_error *err)
{
    gsvm_error_clear(err);
    mreq *r = ms_mreq_decode(text, len, err);
    if (!r)
        return err->status ? err->status : GSVM_ERR_INPUT;
    ms_mreq_free(r);
    return GSVM_OK;
}
