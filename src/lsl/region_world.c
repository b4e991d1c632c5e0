/* World files and timeline lines (the JSON side of gsvm/lsl_region.h).
 * Every field is checked before it is used; errors name the file and the
 * line (jansson's line:column for a world file's syntax, the timeline
 * line's number for a timeline). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hash.h"
#include "lsl/region_int.h"

/* ---- programs: one per distinct source ------------------------------------ */

/* The program of a script file: a program file of either ABI (by its
 * magic) is loaded; source compiles to ABI 2 when it fits the document's
 * slice, else to ABI 3 (as `gsvm lsl compile` and `run` choose): the ABI is
 * the compiled program's.  One entry per distinct file content. */
gsvm_status rg_program_for_bytes(gsvm_lsl_region *r, const uint8_t *data, size_t len, const char *name,
                                 uint32_t *idx, gsvm_error *err)
{
    uint8_t h[32];
    gsvm_sha256(data, len, h);
    for (size_t i = 0; i < r->nprogs; i++)
        if (memcmp(r->progs[i].hash, h, 32) == 0) {
            *idx = (uint32_t)i;
            return GSVM_OK;
        }
    gsvm_status st;
    if (gsvm_lsl3_is_program_file(data, len)) {
        gsvm_lsl3_program *p3;
        st = gsvm_lsl3_program_load(data, len, name, &p3, err);
        if (st == GSVM_OK) {
            st = rg_program_add3(r, p3, h, idx, err);
            gsvm_lsl3_program_free(p3); /* the store holds its own reference */
        }
        return st;
    }
    gsvm_lsl_program *p2 = NULL;
    if (gsvm_lsl_is_program_file(data, len)) {
        st = gsvm_lsl_program_load(data, len, name, &p2, err);
    } else {
        /* ABI 2 when the script fits its slice, else ABI 3 (the one API's choice) */
        const gsvm_lsl_compile_opts o = {.abi = 0, .cache_dir = r->o.cache_dir};
        st = gsvm_lsl_compile_with(data ? (const char *)data : "", len, name, &o, &p2, err);
        if (st == GSVM_OK && gsvm_lsl_program_abi(p2) == 3) {
            st = rg_program_add3(r, gsvm_lsl_program_abi3(p2), h, idx, err);
            gsvm_lsl_program_release(p2); /* the store holds its own reference */
            return st;
        }
    }
    return st ? st : rg_program_add2(r, p2, h, idx, err);
}

static gsvm_status program_for(gsvm_lsl_region *r, const char *path, uint32_t *idx, gsvm_error *err)
{
    gsvm_buf src;
    gsvm_status st = gsvm_file_read(path, &src, err);
    if (st)
        return st;
    st = rg_program_for_bytes(r, src.data, src.len, path, idx, err);
    gsvm_buf_free(&src);
    return st;
}

/* ---- the world file --------------------------------------------------------- */

static bool get_pos(const json_t *j, float out[3])
{
    if (!j) {
        out[0] = out[1] = out[2] = 0;
        return true;
    }
    if (!json_is_array(j) || json_array_size(j) != 3)
        return false;
    for (size_t k = 0; k < 3; k++) {
        if (!json_is_number(json_array_get(j, k)))
            return false;
        out[k] = (float)json_number_value(json_array_get(j, k));
    }
    return true;
}

static gsvm_status add_scripts(gsvm_lsl_region *r, uint32_t prim, const json_t *scripts, const char *dir,
                               const char *file, const char *id, gsvm_error *err)
{
    if (!scripts)
        return GSVM_OK;
    if (!json_is_array(scripts))
        return gsvm_error_set(err, GSVM_ERR_INPUT, file, "'%s': \"scripts\" must be an array of paths", id);
    for (size_t k = 0; k < json_array_size(scripts); k++) {
        const json_t *js = json_array_get(scripts, k);
        if (!json_is_string(js) || !json_string_length(js))
            return gsvm_error_set(err, GSVM_ERR_INPUT, file, "'%s': script %zu must be a path", id, k + 1);
        const char *rel = json_string_value(js);
        char path[4096];
        if (rel[0] == '/' || !*dir)
            snprintf(path, sizeof path, "%s", rel);
        else
            snprintf(path, sizeof path, "%s/%s", dir, rel);
        uint32_t prog;
        gsvm_status st = program_for(r, path, &prog, err);
        if (st)
            return st;
        st = rg_add_script_at(r, prim, rel, prog, err);
        if (st)
            return st;
    }
    return GSVM_OK;
}

static const char *opt_string(const json_t *o, const char *key, bool *bad)
{
    const json_t *j = json_object_get(o, key);
    if (!j)
        return NULL;
    if (!json_is_string(j)) {
        *bad = true;
        return NULL;
    }
    return json_string_value(j);
}

gsvm_status gsvm_lsl_region_load_world(gsvm_lsl_region *r, const char *path, gsvm_error *err)
{
    json_error_t je;
    json_t *w = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!w)
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, path, je.line, je.column, "%s", je.text);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        dir[0] = 0;
    gsvm_status st = gsvm_lsl_region_load_world_json(r, w, dir, path, err);
    json_decref(w);
    return st;
}

gsvm_status gsvm_lsl_region_load_world_json(gsvm_lsl_region *r, const json_t *w, const char *dir,
                                            const char *path, gsvm_error *err)
{
    gsvm_status st = GSVM_OK;
    const json_t *objs = json_object_get(w, "objects");
    if (!json_is_object(w) || !json_is_array(objs))
        st = gsvm_error_set(err, GSVM_ERR_INPUT, path, "a world is {\"objects\": [...]}");
    for (size_t i = 0; st == GSVM_OK && i < json_array_size(objs); i++) {
        const json_t *o = json_array_get(objs, i);
        bool bad = false;
        const char *id = opt_string(o, "id", &bad), *owner = opt_string(o, "owner", &bad),
                   *name = opt_string(o, "name", &bad);
        float pos[3];
        if (!json_is_object(o) || bad || !id || !owner || !get_pos(json_object_get(o, "pos"), pos)) {
            st = gsvm_error_set(err, GSVM_ERR_INPUT, path,
                                "object %zu: needs \"id\" and \"owner\" strings, an optional \"name\" "
                                "string and \"pos\" [x, y, z]", i + 1);
            break;
        }
        uint32_t root;
        st = gsvm_lsl_region_add_object(r, id, owner, name, pos, &root, err);
        if (st) {
            snprintf(err->file, sizeof err->file, "%s", path);
            break;
        }
        const json_t *links = json_object_get(o, "links");
        if (links && !json_is_array(links)) {
            st = gsvm_error_set(err, GSVM_ERR_INPUT, path, "object '%s': \"links\" must be an array", id);
            break;
        }
        /* links first so that link numbers are final before any script runs */
        uint32_t *lp = rg_calloc(r, json_array_size(links) + 1, sizeof *lp);
        if (!lp) {
            st = gsvm_error_set(err, GSVM_ERR_NOMEM, path, "out of memory");
            break;
        }
        for (size_t k = 0; st == GSVM_OK && k < json_array_size(links); k++) {
            const json_t *l = json_array_get(links, k);
            bool lbad = false;
            const char *lid = opt_string(l, "id", &lbad), *lname = opt_string(l, "name", &lbad);
            float lpos[3];
            if (!json_is_object(l) || lbad || !lid || !get_pos(json_object_get(l, "pos"), lpos)) {
                st = gsvm_error_set(err, GSVM_ERR_INPUT, path,
                                    "object '%s' link %zu: needs an \"id\" string and \"pos\" [x, y, z]", id,
                                    k + 1);
                break;
            }
            st = gsvm_lsl_region_add_link(r, root, lid, lname, lpos, &lp[k], err);
            if (st)
                snprintf(err->file, sizeof err->file, "%s", path);
        }
        if (st == GSVM_OK)
            st = add_scripts(r, root, json_object_get(o, "scripts"), dir, path, id, err);
        for (size_t k = 0; st == GSVM_OK && k < json_array_size(links); k++) {
            const json_t *l = json_array_get(links, k);
            st = add_scripts(r, lp[k], json_object_get(l, "scripts"), dir, path,
                             json_string_value(json_object_get(l, "id")), err);
        }
        rg_free(r, lp);
    }
    return st;
}

/* ---- timeline lines ------------------------------------------------------------- */

#define LINE_FAIL(...) gsvm_error_at_line(err, GSVM_ERR_INPUT, file, lineno, 1, __VA_ARGS__)

void rg_push_detect(rg_script *s, uint32_t tag, const char *key, const char *name, const float pos[3], int32_t link)
{
    const gsvm_lsl_region *r = s->region;
    if (s->ndet == RG_DETECT_MAX) { /* the oldest has been handled long ago or dropped */
        rg_free(r, s->det[0].name);
        memmove(&s->det[0], &s->det[1], (RG_DETECT_MAX - 1) * sizeof s->det[0]);
        s->ndet--;
    }
    if (s->ndet == s->capdet) {
        unsigned nc = s->capdet ? s->capdet * 2 : 2;
        rg_detect *nd = rg_realloc(r, s->det, (nc > RG_DETECT_MAX ? RG_DETECT_MAX : nc) * sizeof *nd);
        if (!nd)
            return; /* llDetected* then answer the defaults for this touch */
        s->det = nd;
        s->capdet = nc > RG_DETECT_MAX ? RG_DETECT_MAX : nc;
    }
    rg_detect *d = &s->det[s->ndet];
    char *nm = rg_dup(r, name, strlen(name));
    if (!nm)
        return;
    d->tag = tag;
    snprintf(d->key, sizeof d->key, "%s", key);
    d->name = nm;
    memcpy(d->pos, pos, sizeof d->pos);
    d->link = link;
    s->ndet++;
}

static bool handles_touch(const rg_script *s)
{
    return rg_handles(s, 39 /* touch */) || rg_handles(s, 40 /* touch_end */) || rg_handles(s, RG_EV_TOUCH_START);
}

static gsvm_status touch(gsvm_lsl_region *r, const json_t *t, const char *file, long lineno, gsvm_error *err)
{
    const char *id = json_string_value(json_object_get(t, "object"));
    const char *av = json_string_value(json_object_get(t, "avatar"));
    const char *name = json_string_value(json_object_get(t, "name"));
    float pos[3];
    if (!id || !av || !lsl_is_uuid(av, strlen(av)) || !get_pos(json_object_get(t, "pos"), pos) ||
        (json_object_get(t, "name") && !name))
        return LINE_FAIL("\"touch\" needs \"object\" (an id), \"avatar\" (a key), optional \"name\" and \"pos\"");
    int pi = rg_find_prim(r, id);
    if (pi < 0)
        return LINE_FAIL("no object or link '%s'", id);
    const rg_prim *p = &r->prims[pi];
    if (!json_object_get(t, "pos"))
        rg_prim_world_pos(r, p, pos);
    /* the touched prim's scripts, or the root's when none of them handles
     * touches (Second Life passes the touch on) */
    const rg_prim *to = p;
    bool any = false;
    for (uint32_t k = 0; k < p->nscripts; k++)
        any |= handles_touch(rg_script_of(r, p->scripts[k]));
    if (!any)
        to = &r->prims[p->object];
    static const int evs[2] = {41 /* touch_start */, 40 /* touch_end */};
    for (int e = 0; e < 2; e++) {
        uint32_t tag = r->next_tag++;
        if (r->next_tag == 0)
            r->next_tag = 1;
        lsl_value one = lsl_int(1);
        for (uint32_t k = 0; k < to->nscripts; k++) {
            rg_script *s = rg_script_of(r, to->scripts[k]);
            bool q;
            gsvm_status st = rg_post(r, s, evs[e], &one, 1, tag, &q, err);
            if (st)
                return st;
            if (q)
                rg_push_detect(s, tag, av, name ? name : "", pos, p->link);
        }
    }
    return GSVM_OK;
}

static gsvm_status chat(gsvm_lsl_region *r, const json_t *c, const char *file, long lineno, gsvm_error *err)
{
    const json_t *ch = json_object_get(c, "channel");
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *key = json_string_value(json_object_get(c, "key"));
    const char *msg = json_string_value(json_object_get(c, "message"));
    const char *type = json_string_value(json_object_get(c, "type"));
    float pos[3];
    if (!json_is_integer(ch) || json_integer_value(ch) < INT32_MIN || json_integer_value(ch) > INT32_MAX ||
        !name || !key || !msg || !get_pos(json_object_get(c, "pos"), pos) ||
        (json_object_get(c, "type") && !type))
        return LINE_FAIL("\"chat\" needs \"channel\" (an integer), \"name\", \"key\", \"message\" strings, "
                         "\"pos\" [x, y, z] and optionally \"type\"");
    double range = 20;
    if (type) {
        if (strcmp(type, "whisper") == 0) range = 10;
        else if (strcmp(type, "say") == 0) range = 20;
        else if (strcmp(type, "shout") == 0) range = 100;
        else if (strcmp(type, "region") == 0) range = -1;
        else return LINE_FAIL("chat \"type\" is whisper, say, shout or region, not '%s'", type);
    }
    return gsvm_lsl_region_chat(r, (int32_t)json_integer_value(ch), name, key, pos, range, msg, err);
}

static rg_request *take_request(gsvm_lsl_region *r, const char *key, rg_request *out)
{
    for (size_t i = 0; key && i < r->nreqs; i++)
        if (strcasecmp(r->reqs[i].key, key) == 0) {
            *out = r->reqs[i];
            r->reqs[i] = r->reqs[--r->nreqs];
            return out;
        }
    return NULL;
}

static gsvm_status answer(gsvm_lsl_region *r, const json_t *a, bool http, const char *file, long lineno,
                          gsvm_error *err)
{
    const char *key = json_string_value(json_object_get(a, "request"));
    rg_request q;
    if (!take_request(r, key, &q))
        return LINE_FAIL("no pending host operation with request key '%s'", key ? key : "");
    if (q.event != (http ? 15 : 8))
        return LINE_FAIL("request '%s' is answered by %s", key, http ? "\"dataserver\"" : "\"http_response\"");
    rg_script *s = rg_script_of(r, q.script);
    lsl_value av[4];
    size_t n;
    gsvm_status st;
    lsl_heap *h = NULL;
    memset(av, 0, sizeof av);
    av[0] = lsl_empty(LSL_TYPE_KEY);
    st = lsl_string_new(h, LSL_TYPE_KEY, key, strlen(key), &av[0], err);
    if (!http) {
        const char *data = json_string_value(json_object_get(a, "data"));
        if (st == GSVM_OK && !data)
            st = LINE_FAIL("\"dataserver\" needs \"data\" (a string)");
        av[1] = lsl_empty(LSL_TYPE_STRING);
        if (st == GSVM_OK)
            st = lsl_string_new(h, LSL_TYPE_STRING, data, json_string_length(json_object_get(a, "data")), &av[1], err);
        n = 2;
    } else {
        const json_t *status = json_object_get(a, "status"), *body = json_object_get(a, "body");
        const json_t *meta = json_object_get(a, "metadata");
        av[1] = lsl_empty(LSL_TYPE_INTEGER);
        av[2] = lsl_empty(LSL_TYPE_LIST);
        av[3] = lsl_empty(LSL_TYPE_STRING);
        if (st == GSVM_OK && (!json_is_integer(status) || !json_is_string(body) || (meta && !json_is_array(meta))))
            st = LINE_FAIL("\"http_response\" needs \"status\" (an integer), \"body\" (a string) and optional "
                           "\"metadata\" (an array)");
        if (st == GSVM_OK) {
            av[1] = lsl_int((int32_t)json_integer_value(status));
            json_t *empty = json_array();
            st = lsl_value_from_json(h, meta ? meta : empty, LSL_TYPE_LIST, &av[2], err);
            json_decref(empty);
        }
        if (st == GSVM_OK)
            st = lsl_string_new(h, LSL_TYPE_STRING, json_string_value(body), json_string_length(body), &av[3], err);
        n = 4;
    }
    bool queued;
    if (st == GSVM_OK) {
        st = rg_post(r, s, q.event, av, n, 0, &queued, err);
        if (st == GSVM_ERR_FAULT)
            st = GSVM_OK; /* the script's heap is full: the answer is lost, as in SL */
    } else if (err->line == 0) {
        snprintf(err->file, sizeof err->file, "%s", file);
        err->line = lineno;
        err->column = 1;
    }
    for (size_t i = 0; i < n; i++)
        lsl_value_release(&av[i]);
    return st;
}

static gsvm_status move(gsvm_lsl_region *r, const json_t *m, const char *file, long lineno, gsvm_error *err)
{
    const char *id = json_string_value(json_object_get(m, "object"));
    float pos[3];
    if (!id || !json_object_get(m, "pos") || !get_pos(json_object_get(m, "pos"), pos))
        return LINE_FAIL("\"move\" needs \"object\" (an id) and \"pos\" [x, y, z]");
    int pi = rg_find_prim(r, id);
    if (pi < 0)
        return LINE_FAIL("no object or link '%s'", id);
    memcpy(r->prims[pi].pos, pos, sizeof pos);
    return GSVM_OK;
}

/* {"event": {"object": ID, "script": NAME (optional), "name": EVENT, "args": [...]}}:
 * any event to a prim's scripts (or one of them). */
static gsvm_status any_event(gsvm_lsl_region *r, const json_t *e, const char *file, long lineno, gsvm_error *err)
{
    const char *id = json_string_value(json_object_get(e, "object"));
    const char *script = json_string_value(json_object_get(e, "script"));
    const char *ev = json_string_value(json_object_get(e, "name"));
    const json_t *args = json_object_get(e, "args");
    if (!id || !ev || (args && !json_is_array(args)))
        return LINE_FAIL("\"event\" needs \"object\", \"name\" (the event), optional \"script\" and \"args\"");
    int pi = rg_find_prim(r, id);
    if (pi < 0)
        return LINE_FAIL("no object or link '%s'", id);
    const rg_prim *p = &r->prims[pi];
    bool found = false;
    for (uint32_t k = 0; k < p->nscripts; k++) {
        rg_script *s = rg_script_of(r, p->scripts[k]);
        if (script && strcmp(script, s->name) != 0)
            continue;
        found = true;
        if (s->dead)
            continue;
        bool q;
        if (!s->vm) { /* ABI 2: touch_start(integer) is the one event it queues */
            if (strcmp(ev, "touch_start") != 0)
                continue;
            if (json_array_size(args) != 1 || !json_is_integer(json_array_get(args, 0)))
                return LINE_FAIL("touch_start takes (integer num_detected)");
            lsl_value a = lsl_int((int32_t)json_integer_value(json_array_get(args, 0)));
            gsvm_status st = rg_post(r, s, RG_EV_TOUCH_START, &a, 1, 0, &q, err);
            if (st)
                return st;
            continue;
        }
        rg_sync_clock(r, s);
        gsvm_error e2;
        gsvm_error_clear(&e2);
        if (gsvm_lsl3_vm_post(s->vm, ev, args, &q, &e2) != GSVM_OK)
            return LINE_FAIL("%s", e2.message);
        if (q)
            rg_make_runnable(r, s);
    }
    if (script && !found)
        return LINE_FAIL("'%s' has no script '%s'", id, script);
    return GSVM_OK;
}

gsvm_status gsvm_lsl_region_apply(gsvm_lsl_region *r, const json_t *line, const char *file, long lineno,
                                  gsvm_error *err)
{
    if (!json_is_object(line) || json_object_size(line) != 1)
        return LINE_FAIL("a timeline line is one of {\"touch\":...}, {\"chat\":...}, {\"move\":...}, "
                         "{\"dataserver\":...}, {\"http_response\":...}, {\"event\":...}, {\"cross\":...}, "
                         "{\"accept\":...}, {\"advance_ms\": N}");
    const char *kind = json_object_iter_key(json_object_iter((json_t *)line));
    const json_t *v = json_object_iter_value(json_object_iter((json_t *)line));
    if (strcmp(kind, "advance_ms") == 0) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)1000000000000)
            return LINE_FAIL("\"advance_ms\" must be an integer from 0 to 10^12");
        return gsvm_lsl_region_advance(r, (uint64_t)json_integer_value(v), err);
    }
    if (!json_is_object(v))
        return LINE_FAIL("\"%s\" must be an object", kind);
    if (strcmp(kind, "touch") == 0)
        return touch(r, v, file, lineno, err);
    if (strcmp(kind, "chat") == 0)
        return chat(r, v, file, lineno, err);
    if (strcmp(kind, "move") == 0)
        return move(r, v, file, lineno, err);
    if (strcmp(kind, "dataserver") == 0)
        return answer(r, v, false, file, lineno, err);
    if (strcmp(kind, "http_response") == 0)
        return answer(r, v, true, file, lineno, err);
    if (strcmp(kind, "event") == 0)
        return any_event(r, v, file, lineno, err);
    if (strcmp(kind, "cross") == 0)
        return rg_cross_line(r, v, file, lineno, err);
    if (strcmp(kind, "accept") == 0)
        return rg_accept_line(r, v, file, lineno, err);
    return LINE_FAIL("unknown timeline line \"%s\"", kind);
}
