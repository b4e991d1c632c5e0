/* The region's host functions: what a script's builtin calls do when they
 * cross the VM boundary in a region.  Chat, link messages, touches'
 * llDetected*, positions, keys and names, and host operations (dataserver,
 * HTTP, notecards) are the region's own; any other function is a host effect
 * that leaves the region and is printed (with its default result, as
 * `gsvm lsl run` does). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lsl/builtins.h"
#include "lsl/region_int.h"

#define NULL_KEY "00000000-0000-0000-0000-000000000000"
enum { LINK_ROOT = 1, LINK_SET = -1, LINK_ALL_OTHERS = -2, LINK_ALL_CHILDREN = -3, LINK_THIS = -4 };
enum { AGENT = 1 };

static int32_t arg_int(const json_t *a, size_t i) { return (int32_t)json_integer_value(json_array_get(a, i)); }

static const char *arg_str(const json_t *a, size_t i, size_t *len)
{
    const json_t *j = json_array_get(a, i);
    *len = json_string_length(j);
    return json_is_string(j) ? json_string_value(j) : "";
}

static void arg_vec(const json_t *a, size_t i, float out[3])
{
    const json_t *v = json_object_get(json_array_get(a, i), "vector");
    for (size_t k = 0; k < 3; k++)
        out[k] = (float)json_number_value(json_array_get(v, k));
}

static json_t *vec_json(const float v[3])
{
    return json_pack("{s:[f,f,f]}", "vector", (double)v[0], (double)v[1], (double)v[2]);
}

/* The effect line ({"host", "args"} plus the object and script). */
static void emit_host(gsvm_lsl_region *r, rg_script *s, const char *name, const json_t *args, json_t *extra)
{
    json_t *line = json_object();
    json_object_set_new(line, "host", json_string(name));
    json_object_set(line, "args", (json_t *)args);
    if (extra) {
        json_object_update(line, extra);
        json_decref(extra);
    }
    rg_emit(r, s, line);
}

/* The prim of link number `link` in s's link set, or -1. */
static int link_prim(gsvm_lsl_region *r, const rg_prim *p, int32_t link)
{
    const rg_prim *root = &r->prims[p->object];
    if (root->nlinks == 1)
        return (link == 0 || link == 1) ? (int)p->object : -1;
    if (link < 1 || (uint32_t)link > root->nlinks)
        return -1;
    return (int)root->links[link - 1];
}

static gsvm_status message_linked(gsvm_lsl_region *r, rg_script *s, const json_t *args, gsvm_error *err)
{
    const rg_prim *p = &r->prims[s->prim];
    const rg_prim *root = &r->prims[p->object];
    int32_t link = arg_int(args, 0);
    size_t slen, klen;
    const char *str = arg_str(args, 2, &slen), *id = arg_str(args, 3, &klen);
    lsl_value av[4] = {lsl_int(p->link), lsl_int(arg_int(args, 1)), lsl_empty(LSL_TYPE_STRING),
                       lsl_empty(LSL_TYPE_KEY)};
    gsvm_status st = lsl_string_new(NULL, LSL_TYPE_STRING, str, slen, &av[2], err);
    if (st == GSVM_OK)
        st = lsl_string_new(NULL, LSL_TYPE_KEY, id, klen, &av[3], err);
    for (uint32_t k = 0; st == GSVM_OK && k < root->nlinks; k++) {
        uint32_t pi = root->links[k];
        bool to;
        switch (link) {
        case LINK_SET: to = true; break;
        case LINK_ALL_OTHERS: to = pi != s->prim; break;
        case LINK_ALL_CHILDREN: to = pi != p->object; break;
        case LINK_THIS: to = pi == s->prim; break;
        default: to = (int)pi == link_prim(r, p, link); break;
        }
        if (!to)
            continue;
        const rg_prim *tp = &r->prims[pi];
        for (uint32_t j = 0; st == GSVM_OK && j < tp->nscripts; j++) {
            bool q;
            st = rg_post(r, rg_script_of(r, tp->scripts[j]), 19 /* link_message */, av, 4, 0, &q, err);
            if (st == GSVM_ERR_FAULT)
                st = GSVM_OK; /* a full heap drops it for that script */
        }
    }
    lsl_value_release(&av[2]);
    lsl_value_release(&av[3]);
    return st;
}

/* The touch the running handler is for (its queue entry's tag), or NULL. */
static const rg_detect *detected(rg_script *s, int32_t i)
{
    uint32_t tag = s->vm->cur_tag;
    if (!tag || i != 0)
        return NULL; /* a region touch has one toucher */
    for (unsigned k = 0; k < s->ndet; k++)
        if (s->det[k].tag == tag)
            return &s->det[k];
    return NULL;
}

static json_t *detected_result(gsvm_lsl_region *r, rg_script *s, int32_t id, const json_t *args)
{
    const rg_detect *d = detected(s, arg_int(args, 0));
    static const float zero[3] = {0, 0, 0};
    switch (id) {
    case LSL_ID_llDetectedKey:
    case LSL_ID_llDetectedOwner: return json_string(d ? d->key : NULL_KEY);
    case LSL_ID_llDetectedName: return json_string(d ? d->name : "");
    case LSL_ID_llDetectedType: return json_integer(d ? AGENT : 0);
    case LSL_ID_llDetectedPos: return vec_json(d ? d->pos : zero);
    case LSL_ID_llDetectedLinkNumber: return json_integer(d ? d->link : 0);
    case LSL_ID_llDetectedTouchFace: return json_integer(d ? 0 : -1);
    default: (void)r; return NULL; /* the type's default */
    }
}

/* A host operation: a request key now, the answer later as `event`. */
static json_t *start_request(gsvm_lsl_region *r, rg_script *s, const char *name, const json_t *args, int event)
{
    char key[RG_KEY_LEN + 1];
    snprintf(key, sizeof key, "%08x-0000-4000-8000-%012llx", 0x9e51u,
             (unsigned long long)++r->next_request);
    if (r->nreqs == r->capreqs) {
        size_t nc = r->capreqs ? r->capreqs * 2 : 16;
        rg_request *n = realloc(r->reqs, nc * sizeof *n);
        if (!n)
            return json_string(NULL_KEY);
        r->reqs = n;
        r->capreqs = nc;
    }
    rg_request *q = &r->reqs[r->nreqs++];
    memcpy(q->key, key, sizeof q->key);
    q->script = s->index;
    q->event = event;
    emit_host(r, s, name, args, json_pack("{s:s}", "request", key));
    return json_string(key);
}

static void say(gsvm_lsl_region *r, rg_script *s, const char *fn, const json_t *args, int32_t ch,
                const char *msg, size_t mlen, double range, const char *target, gsvm_error *err)
{
    const rg_prim *p = &r->prims[s->prim];
    float pos[3];
    rg_prim_world_pos(r, p, pos);
    if (r->o.print_chat)
        emit_host(r, s, fn, args, NULL);
    rg_deliver_chat(r, ch, p->name, strlen(p->name), p->key, pos, range, target, s->prim, msg, mlen, err);
}

gsvm_status rg_host(void *user, const char *name, const json_t *args, json_t **result, gsvm_error *err)
{
    rg_script *s = user;
    gsvm_lsl_region *r = s->region;
    rg_prim *p = &r->prims[s->prim];
    rg_prim *root = &r->prims[p->object];
    const lsl_builtin *b = lsl_builtin_by_name(name, strlen(name));
    *result = NULL;
    size_t len, len2;
    const char *str;
    float v[3];
    switch (b ? b->id : -1) {
    case LSL_ID_llOwnerSay: emit_host(r, s, name, args, NULL); return GSVM_OK;
    case LSL_ID_llWhisper:
        str = arg_str(args, 1, &len);
        say(r, s, name, args, arg_int(args, 0), str, len, 10, NULL, err);
        return GSVM_OK;
    case LSL_ID_llSay:
        str = arg_str(args, 1, &len);
        say(r, s, name, args, arg_int(args, 0), str, len, 20, NULL, err);
        return GSVM_OK;
    case LSL_ID_llShout:
        str = arg_str(args, 1, &len);
        say(r, s, name, args, arg_int(args, 0), str, len, 100, NULL, err);
        return GSVM_OK;
    case LSL_ID_llRegionSay:
        str = arg_str(args, 1, &len);
        if (arg_int(args, 0) != 0) /* SL refuses the public channel here */
            say(r, s, name, args, arg_int(args, 0), str, len, -1, NULL, err);
        return GSVM_OK;
    case LSL_ID_llRegionSayTo: {
        const char *target = arg_str(args, 0, &len2);
        str = arg_str(args, 2, &len);
        if (rg_find_prim_by_key(r, target, len2) < 0) {
            emit_host(r, s, name, args, NULL); /* to an avatar: it leaves the region */
            return GSVM_OK;
        }
        say(r, s, name, args, arg_int(args, 1), str, len, -1, target, err);
        return GSVM_OK;
    }
    case LSL_ID_llMessageLinked: return message_linked(r, s, args, err);
    case LSL_ID_llDetectedKey:
    case LSL_ID_llDetectedOwner:
    case LSL_ID_llDetectedName:
    case LSL_ID_llDetectedType:
    case LSL_ID_llDetectedPos:
    case LSL_ID_llDetectedLinkNumber:
    case LSL_ID_llDetectedTouchFace:
    case LSL_ID_llDetectedVel:
    case LSL_ID_llDetectedRot:
    case LSL_ID_llDetectedGrab:
    case LSL_ID_llDetectedGroup:
        *result = detected_result(r, s, b->id, args);
        return GSVM_OK;
    case LSL_ID_llGetPos:
        rg_prim_world_pos(r, p, v);
        *result = vec_json(v);
        return GSVM_OK;
    case LSL_ID_llGetRootPosition: *result = vec_json(root->pos); return GSVM_OK;
    case LSL_ID_llGetLocalPos: *result = vec_json(p->pos); return GSVM_OK;
    case LSL_ID_llSetPos:
        arg_vec(args, 0, p->pos); /* the root moves the object; a child moves within it */
        return GSVM_OK;
    case LSL_ID_llGetKey: *result = json_string(p->key); return GSVM_OK;
    case LSL_ID_llGetOwner:
    case LSL_ID_llGetCreator: *result = json_string(p->owner); return GSVM_OK;
    case LSL_ID_llGetObjectName: *result = json_string(p->name); return GSVM_OK;
    case LSL_ID_llGetLinkNumber: *result = json_integer(p->link); return GSVM_OK;
    case LSL_ID_llGetNumberOfPrims: *result = json_integer(root->nlinks); return GSVM_OK;
    case LSL_ID_llGetScriptName: *result = json_string(s->name); return GSVM_OK;
    case LSL_ID_llGetRegionName: *result = json_string("gsvm"); return GSVM_OK;
    case LSL_ID_llGetLinkName:
    case LSL_ID_llGetLinkKey: {
        int pi = link_prim(r, p, arg_int(args, 0) == LINK_THIS ? p->link : arg_int(args, 0));
        if (b->id == LSL_ID_llGetLinkName)
            *result = json_string(pi < 0 ? "" : r->prims[pi].name);
        else
            *result = json_string(pi < 0 ? NULL_KEY : r->prims[pi].key);
        return GSVM_OK;
    }
    case LSL_ID_llGetOwnerKey:
    case LSL_ID_llKey2Name: {
        str = arg_str(args, 0, &len);
        int pi = rg_find_prim_by_key(r, str, len);
        if (b->id == LSL_ID_llGetOwnerKey)
            *result = pi < 0 ? json_stringn(str, len) : json_string(r->prims[pi].owner);
        else
            *result = json_string(pi < 0 ? "" : r->prims[pi].name);
        return GSVM_OK;
    }
    case LSL_ID_llRequestAgentData:
    case LSL_ID_llGetNotecardLine:
    case LSL_ID_llGetNumberOfNotecardLines:
    case LSL_ID_llRequestInventoryData:
    case LSL_ID_llRequestUsername:
    case LSL_ID_llRequestDisplayName:
        *result = start_request(r, s, name, args, 8 /* dataserver */);
        return GSVM_OK;
    case LSL_ID_llHTTPRequest:
        *result = start_request(r, s, name, args, 15 /* http_response */);
        return GSVM_OK;
    default:
        emit_host(r, s, name, args, NULL);
        return GSVM_OK;
    }
}
