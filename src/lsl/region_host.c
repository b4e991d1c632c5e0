/* The region's host functions: what a script's builtin calls do when they
 * cross the VM boundary in a region, through one typed host table
 * (gsvm_lsl_hosts: arguments and results without JSON; JSON only for the
 * lines that leave the region).  Chat, link messages, touches'
 * llDetected*, positions, keys and names, and host operations (dataserver,
 * HTTP, notecards) are the region's own; any other function is a host effect
 * that leaves the region and is printed (with its default result, as
 * `gsvm lsl run` does). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lsl/builtins.h"
#include "lsl/hostcall.h"
#include "lsl/region_int.h"

#define NULL_KEY "00000000-0000-0000-0000-000000000000"
enum { LINK_ROOT = 1, LINK_SET = -1, LINK_ALL_OTHERS = -2, LINK_ALL_CHILDREN = -3, LINK_THIS = -4 };
enum { AGENT = 1 };

/* The effect line ({"host", "args"} plus the object and script): the one
 * place a host call becomes JSON, on its way out of the region. */
static json_t *args_json(const gsvm_lsl_call *c)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < c->argc; i++) {
        json_t *v;
        if (c->args) /* ABI 3: as `gsvm lsl run` prints them */
            v = lsl_value_to_json(&c->args[i]);
        else if (c->hargs[i].type == GSVM_LSL_INTEGER)
            v = json_integer(c->hargs[i].integer);
        else
            v = json_stringn(c->hargs[i].str ? c->hargs[i].str : "", c->hargs[i].len);
        json_array_append_new(a, v);
    }
    return a;
}

static void emit_host(gsvm_lsl_region *r, rg_script *s, const gsvm_lsl_call *c, json_t *extra)
{
    json_t *line = json_object();
    json_object_set_new(line, "host", json_string(c->fn->name));
    json_object_set_new(line, "args", args_json(c));
    if (extra) {
        json_object_update(line, extra);
        json_decref(extra);
    }
    rg_emit(r, s, line);
}

static void arg_vec(const gsvm_lsl_call *c, size_t i, float out[3])
{
    gsvm_lsl_item it;
    bool ok = gsvm_lsl_arg(c, i, &it) && it.type == GSVM_LSL_T_VECTOR;
    for (size_t k = 0; k < 3; k++)
        out[k] = ok ? it.v[k] : 0.0f;
}

static gsvm_status ret_text(gsvm_lsl_call *c, const char *s)
{
    return c->fn->ret == LSL_TYPE_KEY ? gsvm_lsl_return_key(c, s, strlen(s)) : gsvm_lsl_return_string(c, s, strlen(s));
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

static gsvm_status message_linked(gsvm_lsl_region *r, rg_script *s, const gsvm_lsl_call *c, gsvm_error *err)
{
    const rg_prim *p = &r->prims[s->prim];
    const rg_prim *root = &r->prims[p->object];
    int32_t link = gsvm_lsl_arg_int(c, 0);
    size_t slen, klen;
    const char *str = gsvm_lsl_arg_str(c, 2, &slen), *id = gsvm_lsl_arg_str(c, 3, &klen);
    lsl_value av[4] = {lsl_int(p->link), lsl_int(gsvm_lsl_arg_int(c, 1)), lsl_empty(LSL_TYPE_STRING),
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

static gsvm_status detected_result(rg_script *s, gsvm_lsl_call *c)
{
    const rg_detect *d = detected(s, gsvm_lsl_arg_int(c, 0));
    static const float zero[3] = {0, 0, 0};
    switch (c->fn->id) {
    case LSL_ID_llDetectedKey:
    case LSL_ID_llDetectedOwner: return ret_text(c, d ? d->key : NULL_KEY);
    case LSL_ID_llDetectedName: return ret_text(c, d ? d->name : "");
    case LSL_ID_llDetectedType: return gsvm_lsl_return_int(c, d ? AGENT : 0);
    case LSL_ID_llDetectedPos: return gsvm_lsl_return_vector(c, d ? d->pos : zero);
    case LSL_ID_llDetectedLinkNumber: return gsvm_lsl_return_int(c, d ? d->link : 0);
    case LSL_ID_llDetectedTouchFace: return gsvm_lsl_return_int(c, d ? 0 : -1);
    default: return GSVM_OK; /* the type's default */
    }
}

/* A host operation: a request key now, the answer later as `event`. */
static gsvm_status start_request(gsvm_lsl_region *r, rg_script *s, gsvm_lsl_call *c, int event)
{
    char key[RG_KEY_LEN + 1];
    snprintf(key, sizeof key, "%08x-0000-4000-8000-%012llx", 0x9e51u, (unsigned long long)++r->next_request);
    if (r->nreqs == r->capreqs) {
        size_t nc = r->capreqs ? r->capreqs * 2 : 16;
        rg_request *n = rg_realloc(r, r->reqs, nc * sizeof *n);
        if (!n)
            return ret_text(c, NULL_KEY);
        r->reqs = n;
        r->capreqs = nc;
    }
    rg_request *q = &r->reqs[r->nreqs++];
    memcpy(q->key, key, sizeof q->key);
    q->script = s->index;
    q->event = event;
    emit_host(r, s, c, json_pack("{s:s}", "request", key));
    return ret_text(c, key);
}

static void say(gsvm_lsl_region *r, rg_script *s, const gsvm_lsl_call *c, size_t chan_arg, double range,
                const char *target, gsvm_error *err)
{
    const rg_prim *p = &r->prims[s->prim];
    size_t mlen;
    const char *msg = gsvm_lsl_arg_str(c, chan_arg + 1, &mlen);
    float pos[3];
    rg_prim_world_pos(r, p, pos);
    if (r->o.print_chat)
        emit_host(r, s, c, NULL);
    rg_deliver_chat(r, gsvm_lsl_arg_int(c, chan_arg), p->name, strlen(p->name), p->key, pos, range, target,
                    s->prim, msg, mlen, err);
}

/* Every function the region answers or prints, by func-id: the call reads
 * its arguments and sets its result through the typed call (no JSON, no
 * name lookup). */
static gsvm_status rg_call(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user;
    rg_script *s = vm_user;
    gsvm_lsl_region *r = s->region;
    rg_prim *p = &r->prims[s->prim];
    rg_prim *root = &r->prims[p->object];
    size_t len;
    const char *str;
    float v[3];
    switch (c->fn->id) {
    case LSL_ID_llOwnerSay: emit_host(r, s, c, NULL); return GSVM_OK;
    case LSL_ID_llWhisper: say(r, s, c, 0, 10, NULL, err); return GSVM_OK;
    case LSL_ID_llSay: say(r, s, c, 0, 20, NULL, err); return GSVM_OK;
    case LSL_ID_llShout: say(r, s, c, 0, 100, NULL, err); return GSVM_OK;
    case LSL_ID_llRegionSay:
        if (gsvm_lsl_arg_int(c, 0) != 0) /* SL refuses the public channel here */
            say(r, s, c, 0, -1, NULL, err);
        return GSVM_OK;
    case LSL_ID_llRegionSayTo: {
        char target[RG_KEY_LEN + 1];
        str = gsvm_lsl_arg_str(c, 0, &len);
        if (len > RG_KEY_LEN || rg_find_prim_by_key(r, str, len) < 0) {
            emit_host(r, s, c, NULL); /* to an avatar: it leaves the region */
            return GSVM_OK;
        }
        memcpy(target, str, len);
        target[len] = 0;
        say(r, s, c, 1, -1, target, err);
        return GSVM_OK;
    }
    case LSL_ID_llMessageLinked: return message_linked(r, s, c, err);
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
    case LSL_ID_llDetectedGroup: return detected_result(s, c);
    case LSL_ID_llGetPos: rg_prim_world_pos(r, p, v); return gsvm_lsl_return_vector(c, v);
    case LSL_ID_llGetRootPosition: return gsvm_lsl_return_vector(c, root->pos);
    case LSL_ID_llGetLocalPos: return gsvm_lsl_return_vector(c, p->pos);
    case LSL_ID_llSetPos:
        arg_vec(c, 0, p->pos); /* the root moves the object; a child moves within it */
        return GSVM_OK;
    case LSL_ID_llGetKey: return ret_text(c, p->key);
    case LSL_ID_llGetOwner:
    case LSL_ID_llGetCreator: return ret_text(c, p->owner);
    case LSL_ID_llGetObjectName: return ret_text(c, p->name);
    case LSL_ID_llGetLinkNumber: return gsvm_lsl_return_int(c, p->link);
    case LSL_ID_llGetNumberOfPrims: return gsvm_lsl_return_int(c, (int32_t)root->nlinks);
    case LSL_ID_llGetScriptName: return ret_text(c, s->name);
    case LSL_ID_llGetRegionName: return ret_text(c, "gsvm");
    case LSL_ID_llGetLinkName:
    case LSL_ID_llGetLinkKey: {
        int32_t link = gsvm_lsl_arg_int(c, 0);
        int pi = link_prim(r, p, link == LINK_THIS ? p->link : link);
        if (c->fn->id == LSL_ID_llGetLinkName)
            return ret_text(c, pi < 0 ? "" : r->prims[pi].name);
        return ret_text(c, pi < 0 ? NULL_KEY : r->prims[pi].key);
    }
    case LSL_ID_llGetOwnerKey:
    case LSL_ID_llKey2Name: {
        str = gsvm_lsl_arg_str(c, 0, &len);
        int pi = rg_find_prim_by_key(r, str, len);
        if (c->fn->id == LSL_ID_llGetOwnerKey)
            return pi < 0 ? gsvm_lsl_return_key(c, str, len) : ret_text(c, r->prims[pi].owner);
        return ret_text(c, pi < 0 ? "" : r->prims[pi].name);
    }
    case LSL_ID_llRequestAgentData:
    case LSL_ID_llGetNotecardLine:
    case LSL_ID_llGetNumberOfNotecardLines:
    case LSL_ID_llRequestInventoryData:
    case LSL_ID_llRequestUsername:
    case LSL_ID_llRequestDisplayName: return start_request(r, s, c, 8 /* dataserver */);
    case LSL_ID_llHTTPRequest: return start_request(r, s, c, 15 /* http_response */);
    default: emit_host(r, s, c, NULL); return GSVM_OK; /* leaves the region, with its type's default */
    }
}

gsvm_status rg_hosts_new(gsvm_lsl_hosts **out, gsvm_error *err)
{
    gsvm_status st = gsvm_lsl_hosts_new(out, err);
    /* Straight into the id table: gsvm_lsl_hosts_add looks each name up
     * again, a linear scan per function that was most of a new region's
     * cost (one per input of fuzz_lsl_cross). */
    for (int32_t id = 0; st == GSVM_OK && id < LSL_ID_END_; id++) {
        const lsl_builtin *b = lsl_builtin_by_id(id);
        if (b && !lsl_builtin_native(b) && !(b->flags & LSL_FN_VM))
            (*out)->by_id[id] = (fal_host_entry){rg_call, NULL};
    }
    return st;
}
