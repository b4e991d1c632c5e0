/* Crossing: an object handed from one region process to another over a
 * loopback TCP connection, scripts and all, in the middle of whatever they
 * were doing.
 *
 * Messages are frames: u32 length (little-endian, of what follows), u8
 * type, payload.  Each turn of one side leaves in one send (the receiver
 * wakes once per turn; nothing small waits for a delayed ACK; TCP_NODELAY on
 * both ends).  The sender A and the receiver B:
 *   1 A->B OFFER    JSON: transfer id, A's clock and frame, the object (ids,
 *                   names, owner, positions) and per script its name, prim,
 *                   ABI and program hash; then one SNAPSHOT per script
 *                   (HWZS, after whatever instruction it reached), then END
 *   2 B->A NEED     JSON: {"need": [script indexes whose program B lacks]}
 *                   or REFUSE {"refuse": REASON} (an unknown ABI, an id in
 *                   use, over B's limits)
 *   3 A->B PROGRAM  a program file (.fp3) per needed program, then END
 *                   (only when B needs any: B asks for bytecode only when it
 *                   lacks that program and ABI)
 *   4 B->A PREPARED B restored everything (held frozen), or REFUSE; sent
 *                   with NEED when B needed nothing
 *   5 A->B COMMIT   A has frozen its copy
 *   6 B->A DONE     B runs the object
 *   7 A->B BYE      A has removed its copy
 * So a crossing to a region that has the programs takes two round trips
 * (offer and state / prepared, commit / done), one more when it lacks some.
 * Until A reads PREPARED the object keeps running in A, and B drops what it
 * received on any failure.  A freezes its copy before COMMIT; B commits when
 * it reads COMMIT.  If A then misses DONE it cannot know whether B read
 * COMMIT, and neither can B know, without BYE, whether A saw DONE: the
 * transfer is in doubt and A asks B on a new connection (QUERY ->
 * ANSWER {"committed": bool}); B waits for that question when BYE did not
 * come.  A removes its copy on "committed", thaws it (running on) on "not",
 * and keeps it frozen, never running twice, if it cannot get an answer.
 * So one failure at any step (tests/lsl/region/cross) loses nothing and
 * runs nothing twice. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "lsl/program.h"
#include "lsl/region_int.h"
#include "lsl/region_wire.h"

/* The injected failure (--cross-fault N): at step N this side drops the
 * connection instead of sending or receiving. */
static bool fault_here(gsvm_lsl_region *r, int step) { return r->cross_fault == step; }

/* ---- the sender --------------------------------------------------------------- */

static json_t *pos_json(const float p[3]) { return json_pack("[f,f,f]", (double)p[0], (double)p[1], (double)p[2]); }

static void report(gsvm_lsl_region *r, const char *id, const char *what, const char *detail)
{
    json_t *l = json_pack("{s:s,s:s}", "crossing", what, "object", id);
    if (detail)
        json_object_set_new(l, "detail", json_string(detail));
    rg_emit(r, NULL, l);
}

/* Every script of the object, in link then script order. */
static size_t object_scripts(gsvm_lsl_region *r, uint32_t root, rg_script **out, size_t cap)
{
    size_t n = 0;
    const rg_prim *rp = &r->prims[root];
    for (uint32_t k = 0; k < rp->nlinks; k++) {
        const rg_prim *p = &r->prims[rp->links[k]];
        for (uint32_t j = 0; j < p->nscripts; j++) {
            if (n < cap)
                out[n] = r->scripts[p->scripts[j]];
            n++;
        }
    }
    return n;
}

/* The in-doubt question on a new connection.  1 committed, 0 not, -1 no answer. */
static int ask(int port, const char *xfer)
{
    int fd = xw_connect_loopback(port, 1000);
    if (fd < 0)
        return -1;
    int res = -1;
    xw_reader *rd = malloc(sizeof *rd);
    if (rd && xw_send_json(fd, M_QUERY, json_pack("{s:s}", "xfer", xfer))) {
        xw_reader_init(rd, fd);
        json_t *a = xw_recv_json(rd, M_ANSWER);
        if (a && json_is_boolean(json_object_get(a, "committed")))
            res = json_is_true(json_object_get(a, "committed"));
        json_decref(a);
    }
    free(rd);
    close(fd);
    return res;
}

/* What the region keeps of a script beside its VM (its snapshot does not
 * hold it), so that it goes on in B as it would have in A:
 *   "tags": the host tags of the queued events, oldest first, and "cur" the
 *           running handler's (ABI 3), with "touches" the llDetected* data
 *           under those tags: a touch queued or being handled in A answers
 *           llDetected* in B;
 *   "avg", "used", "age", "throttled": the scheduler's moving average, the
 *           use in frame (A's frame - age), and whether it is throttled. */
static json_t *region_state(const gsvm_lsl_region *r, const rg_script *s)
{
    json_t *x = json_pack("{s:f,s:I,s:I,s:b}", "avg", s->avg, "used", (json_int_t)s->used, "age",
                          (json_int_t)(s->mark == UINT64_MAX || s->mark > r->frame ? -1 : (int64_t)(r->frame - s->mark)),
                          "throttled", s->throttled);
    if (!s->vm || !x)
        return x;
    const lsl_sched *q = &s->vm->sched;
    json_t *tags = json_array(), *touches = json_array();
    for (unsigned k = 0; k < q->count; k++)
        json_array_append_new(tags, json_integer(q->queue[(q->head + k) % LSL_SCHED_QUEUE_MAX].tag));
    for (unsigned k = 0; k < s->ndet; k++) {
        const rg_detect *d = &s->det[k];
        json_array_append_new(touches, json_pack("{s:I,s:s,s:s,s:o,s:i}", "tag", (json_int_t)d->tag, "key", d->key,
                                                 "name", d->name, "pos", pos_json(d->pos), "link", (int)d->link));
    }
    json_object_set_new(x, "tags", tags);
    json_object_set_new(x, "touches", touches);
    json_object_set_new(x, "cur", json_integer(s->vm->cur_event >= 0 ? s->vm->cur_tag : 0));
    return x;
}

/* The offer: the object and, per script, its name, link, ABI and program hash. */
static json_t *make_offer(gsvm_lsl_region *r, uint32_t root, rg_script **sc, size_t ns, const char *xfer)
{
    const rg_prim *rp = &r->prims[root];
    json_t *links = json_array(), *scripts = json_array();
    for (uint32_t k = 1; k < rp->nlinks; k++) {
        const rg_prim *p = &r->prims[rp->links[k]];
        json_array_append_new(links, json_pack("{s:s,s:s,s:o}", "id", p->id, "name", p->name, "pos", pos_json(p->pos)));
    }
    for (size_t i = 0; i < ns; i++) {
        const rg_program *pr = &r->progs[sc[i]->prog];
        char hex[65];
        gsvm_hex(pr->id, 32, hex);
        uint32_t link = 0;
        for (uint32_t k = 0; k < rp->nlinks; k++)
            if (rp->links[k] == sc[i]->prim)
                link = k;
        json_t *sj = json_pack("{s:s,s:i,s:i,s:s}", "name", sc[i]->name, "prim", (int)link, "abi", pr->abi, "hash", hex);
        json_object_set_new(sj, "region", region_state(r, sc[i]));
        if (pr->abi == 2) { /* its queue is the region's: the touch_start arguments waiting */
            json_t *q = json_array();
            for (unsigned k = 0; k < sc[i]->nq2; k++)
                json_array_append_new(q, json_integer(sc[i]->q2[k]));
            json_object_set_new(sj, "queue", q);
        }
        json_array_append_new(scripts, sj);
    }
    return json_pack("{s:s,s:I,s:I,s:{s:s,s:s,s:s,s:o,s:o},s:o}", "xfer", xfer, "now_ms", (json_int_t)r->now_ms,
                     "frame", (json_int_t)r->frame, "object", "id", rp->id, "owner", rp->owner, "name", rp->name,
                     "pos", pos_json(rp->pos), "links", links, "scripts", scripts);
}

static gsvm_status cross_out(gsvm_lsl_region *r, uint32_t root, int port, gsvm_error *err)
{
    const char *id = r->prims[root].id;
    rg_script *sc[1024];
    size_t ns = object_scripts(r, root, sc, 1024);
    if (ns > 1024)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "object '%s' has more than 1024 scripts", id);
    char xfer[80];
    snprintf(xfer, sizeof xfer, "%s#%llu@%llu", id, (unsigned long long)++r->next_xfer,
             (unsigned long long)r->now_ms);

    /* 1 the offer and every script's state after whatever instruction it
     * reached (nothing runs here until the handoff is over), in one send */
    gsvm_buf out;
    gsvm_buf_init(&out);
    xw_put_json(&out, M_OFFER, make_offer(r, root, sc, ns, xfer));
    for (size_t i = 0; i < ns; i++) {
        uint8_t *blob;
        size_t len;
        if ((sc[i]->vm ? gsvm_lsl3_vm_snapshot(sc[i]->vm, &blob, &len, err)
                       : gsvm_lsl_vm_snapshot(sc[i]->vm2, &blob, &len, err)) != GSVM_OK) {
            report(r, id, "failed", err->message);
            gsvm_buf_free(&out);
            return GSVM_OK; /* the object stays, running */
        }
        xw_put_frame(&out, M_SNAPSHOT, blob, len);
        free(blob);
    }
    xw_put_frame(&out, M_END, NULL, 0);
    int fd = xw_connect_loopback(port, 2000);
    if (fd < 0) {
        gsvm_buf_free(&out);
        report(r, id, "failed", "no region listening");
        return GSVM_OK;
    }
    const char *why = NULL;
    json_t *need = NULL;
    xw_reader *rd = malloc(sizeof *rd);
    if (!rd) {
        why = "out of memory";
        goto keep;
    }
    xw_reader_init(rd, fd);
    if (fault_here(r, 1) || !xw_flush(fd, &out)) {
        why = "the connection dropped sending the offer";
        goto keep;
    }
    /* 2 NEED: the programs B lacks (or a refusal) */
    if (fault_here(r, 2) || !(need = xw_recv_json(rd, M_NEED))) {
        why = "the connection dropped waiting for the answer";
        goto keep;
    }
    if (json_object_get(need, "refuse")) {
        report(r, id, "refused", json_string_value(json_object_get(need, "refuse")));
        goto end;
    }
    /* 3 those programs, in one send */
    if (fault_here(r, 3)) {
        why = "the connection dropped sending the programs";
        goto keep;
    }
    const json_t *want = json_object_get(need, "need");
    if (json_array_size(want) > 0) {
        size_t idx;
        json_t *v;
        json_array_foreach(want, idx, v) {
            json_int_t k = json_integer_value(v);
            uint8_t *blob;
            size_t len;
            const rg_program *pr = k >= 0 && (size_t)k < ns ? &r->progs[sc[k]->prog] : NULL;
            if (!pr || (pr->abi == 3 ? gsvm_lsl3_program_save(pr->prog, &blob, &len, err)
                                     : gsvm_lsl_program_save(pr->prog2, &blob, &len, err)) != GSVM_OK) {
                why = "bad program request";
                goto keep;
            }
            xw_put_frame(&out, M_PROGRAM, blob, len);
            free(blob);
        }
        xw_put_frame(&out, M_END, NULL, 0);
        if (!xw_flush(fd, &out)) {
            why = "the connection dropped sending the programs";
            goto keep;
        }
    }
    /* 4 PREPARED */
    json_decref(need);
    need = NULL;
    if (fault_here(r, 4) || !(need = xw_recv_json(rd, M_PREPARED))) {
        why = "the connection dropped waiting for the destination to prepare";
        goto keep;
    }
    if (json_object_get(need, "refuse")) {
        report(r, id, "refused", json_string_value(json_object_get(need, "refuse")));
        goto end;
    }
    /* 5 COMMIT: from here A's copy is frozen */
    if (fault_here(r, 5)) {
        why = "the connection dropped before the commit";
        goto keep;
    }
    rg_object_freeze(r, root, true);
    bool sent = xw_send_frame(fd, M_COMMIT, NULL, 0);
    /* 6 DONE */
    uint8_t type = 0, *d = NULL;
    size_t n;
    bool done = sent && !fault_here(r, 6) && xw_recv_frame(rd, &type, &d, &n) && type == M_DONE;
    free(d);
    if (done) {
        /* 7 BYE (best effort: B asks if it does not come) */
        if (!fault_here(r, 7))
            xw_send_frame(fd, M_BYE, NULL, 0);
        report(r, id, "crossed", NULL);
        rg_object_remove(r, root);
        goto end;
    }
    close(fd);
    fd = -1;
    int answer = ask(port, xfer);
    if (answer == 1) {
        report(r, id, "crossed", "confirmed after the connection dropped");
        rg_object_remove(r, root);
    } else if (answer == 0) {
        report(r, id, "failed", "the destination did not commit; the object runs on here");
        rg_object_freeze(r, root, false);
    } else {
        report(r, id, "in doubt", "kept frozen here: the destination cannot be asked whether it committed");
    }
    goto end;
keep:
    report(r, id, "failed", why); /* the object stays, running */
end:
    json_decref(need);
    gsvm_buf_free(&out);
    free(rd);
    if (fd >= 0)
        close(fd);
    return GSVM_OK;
}

gsvm_status rg_cross_line(gsvm_lsl_region *r, const json_t *c, const char *file, long lineno, gsvm_error *err)
{
    const char *id = json_string_value(json_object_get(c, "object"));
    const json_t *port = json_object_get(c, "port");
    if (!id || !json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535)
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, file, lineno, 1,
                                  "\"cross\" needs \"object\" (an id) and \"port\" (1 to 65535, on 127.0.0.1)");
    int pi = rg_find_prim(r, id);
    if (pi < 0 || r->prims[pi].object != (uint32_t)pi)
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, file, lineno, 1, "no object '%s' (a root) to cross", id);
    return cross_out(r, (uint32_t)pi, (int)json_integer_value(port), err);
}

/* ---- the receiver ---------------------------------------------------------------- */

/* The store's entry for a program identity in hex and an ABI, or -1. */
static long program_by_hash(gsvm_lsl_region *r, const char *hex, int abi)
{
    uint8_t h[32];
    if (!hex || strlen(hex) != 64)
        return -1;
    for (size_t k = 0; k < 32; k++) {
        unsigned v;
        if (sscanf(hex + 2 * k, "%2x", &v) != 1)
            return -1;
        h[k] = (uint8_t)v;
    }
    return rg_program_find(r, h, abi);
}

static int abi_of(const json_t *script) { return (int)json_integer_value(json_object_get(script, "abi")); }

static bool get_pos3(const json_t *j, float out[3])
{
    if (!json_is_array(j) || json_array_size(j) != 3)
        return false;
    for (size_t k = 0; k < 3; k++)
        out[k] = (float)json_number_value(json_array_get(j, k));
    return true;
}

typedef struct xfer_log {
    char xfer[80];
    bool committed;
} xfer_log;

/* Does a script before `idx` in the offer run the same program? */
static bool hash_before(const json_t *scripts, size_t idx)
{
    const char *h = json_string_value(json_object_get(json_array_get(scripts, idx), "hash"));
    for (size_t k = 0; h && k < idx; k++) {
        const char *o = json_string_value(json_object_get(json_array_get(scripts, k), "hash"));
        if (o && strcmp(o, h) == 0)
            return true;
    }
    return false;
}

/* Why B cannot take the offered object (NULL: it can); fills `need` with
 * the script indexes whose program B lacks, once per program. */
static const char *check_offer(gsvm_lsl_region *r, const json_t *offer, json_t *need, char *why, size_t whylen)
{
    const json_t *obj = json_object_get(offer, "object"), *scripts = json_object_get(offer, "scripts");
    const json_t *links = json_object_get(obj, "links");
    const char *id = json_string_value(json_object_get(obj, "id"));
    size_t idx;
    json_t *v;
    if (!id || !json_is_array(scripts) || !json_is_array(links) || json_array_size(scripts) > 1024)
        return "a malformed offer";
    if (rg_find_prim(r, id) >= 0)
        return "an object with that id is here already";
    json_array_foreach(links, idx, v) {
        const char *lid = json_string_value(json_object_get(v, "id"));
        if (!lid || rg_find_prim(r, lid) >= 0)
            return "a link id is in use here";
    }
    json_array_foreach(scripts, idx, v) {
        if (abi_of(v) != GSVM_LSL_ABI_VERSION && abi_of(v) != GSVM_LSL3_ABI_VERSION) {
            snprintf(why, whylen, "unknown ABI %lld", (long long)json_integer_value(json_object_get(v, "abi")));
            return why;
        }
        const json_t *q = json_object_get(v, "queue");
        if (q && (!json_is_array(q) || json_array_size(q) > LSL_SCHED_QUEUE_MAX))
            return "a malformed offer";
        if (!json_is_string(json_object_get(v, "hash")) || !json_is_string(json_object_get(v, "name")))
            return "a malformed offer";
        if (program_by_hash(r, json_string_value(json_object_get(v, "hash")), abi_of(v)) < 0 &&
            !hash_before(scripts, idx))
            json_array_append_new(need, json_integer((json_int_t)idx));
    }
    if (r->o.max_scripts && r->st.scripts + json_array_size(scripts) > r->o.max_scripts)
        return "over this region's script limit";
    return NULL;
}

/* The received programs (`nneed` of them, then END) into the region's
 * programs.  False when the stream breaks; *refuse when one does not load. */
static bool recv_programs(gsvm_lsl_region *r, xw_reader *rd, size_t nneed, const char **refuse)
{
    size_t got = 0;
    for (;;) {
        uint8_t type, *d;
        size_t n;
        if (!xw_recv_frame(rd, &type, &d, &n)) {
            free(d);
            return false;
        }
        if (type == M_END && got == nneed) {
            free(d);
            return true;
        }
        gsvm_error e;
        bool ok = true;
        if (type == M_PROGRAM && got < nneed) {
            /* a program file of either ABI, by its magic; the store keeps it */
            uint32_t idx;
            got++;
            if (!gsvm_lsl_is_program_file(d, n) && !gsvm_lsl3_is_program_file(d, n)) {
                *refuse = "a program that does not load";
                ok = false;
            } else if (rg_program_for_bytes(r, d, n, "crossing", &idx, &e) != GSVM_OK) {
                *refuse = e.status == GSVM_ERR_NOMEM ? NULL : "a program that does not load";
                ok = false;
            }
        } else {
            ok = false; /* not the stream of a region */
        }
        free(d);
        if (!ok)
            return false;
    }
}

/* A's tags to B's: B numbers touches from its own counter, so a tag of A
 * gets the next free one of B (the same for every script the touch
 * reached: they share it). */
typedef struct tag_map {
    uint32_t (*pair)[2];
    size_t n, cap;
} tag_map;

static uint32_t map_tag(gsvm_lsl_region *r, tag_map *m, json_int_t from)
{
    if (from <= 0 || from > UINT32_MAX)
        return 0;
    for (size_t k = 0; k < m->n; k++)
        if (m->pair[k][0] == (uint32_t)from)
            return m->pair[k][1];
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 16;
        uint32_t(*np)[2] = realloc(m->pair, nc * sizeof *np);
        if (!np)
            return 0; /* llDetected* then answer the defaults for it */
        m->pair = np;
        m->cap = nc;
    }
    uint32_t to = r->next_tag++;
    if (r->next_tag == 0)
        r->next_tag = 1;
    m->pair[m->n][0] = (uint32_t)from;
    m->pair[m->n++][1] = to;
    return to;
}

/* region_state()'s fields onto the restored script s (its "mark" is A's
 * frame number until the commit moves it onto B's frames). */
static void apply_region_state(gsvm_lsl_region *r, rg_script *s, const json_t *x, tag_map *m)
{
    if (!json_is_object(x))
        return;
    double avg = json_number_value(json_object_get(x, "avg"));
    json_int_t used = json_integer_value(json_object_get(x, "used"));
    json_int_t age = json_integer_value(json_object_get(x, "age"));
    s->avg = avg >= 0 && avg < 1e18 ? avg : 0;
    s->used = used > 0 ? (uint64_t)used : 0;
    s->mark = age >= 0 ? (uint64_t)age : UINT64_MAX; /* made a frame number by the commit */
    s->throttled = json_is_true(json_object_get(x, "throttled"));
    if (s->throttled) /* rg_object_remove uncounts it if the handoff fails */
        r->st.throttled++;
    if (!s->vm)
        return;
    lsl_sched *q = &s->vm->sched;
    const json_t *tags = json_object_get(x, "tags");
    if (json_array_size(tags) == q->count)
        for (unsigned k = 0; k < q->count; k++)
            q->queue[(q->head + k) % LSL_SCHED_QUEUE_MAX].tag = map_tag(r, m, json_integer_value(json_array_get(tags, k)));
    s->vm->cur_tag = map_tag(r, m, json_integer_value(json_object_get(x, "cur")));
    size_t k;
    const json_t *t;
    json_array_foreach(json_object_get(x, "touches"), k, t) {
        const char *key = json_string_value(json_object_get(t, "key"));
        const char *name = json_string_value(json_object_get(t, "name"));
        float pos[3] = {0, 0, 0};
        get_pos3(json_object_get(t, "pos"), pos);
        uint32_t tag = map_tag(r, m, json_integer_value(json_object_get(t, "tag")));
        if (tag && key && strlen(key) <= RG_KEY_LEN && name)
            rg_push_detect(s, tag, key, name, pos, (int32_t)json_integer_value(json_object_get(t, "link")));
    }
}

/* At the commit: the object's scripts' frame marks (ages in A) onto B's
 * frame, which is now A's or later. */
static void settle_region_state(gsvm_lsl_region *r, uint32_t root)
{
    const rg_prim *rp = &r->prims[root];
    for (uint32_t k = 0; k < rp->nlinks; k++) {
        const rg_prim *p = &r->prims[rp->links[k]];
        for (uint32_t j = 0; j < p->nscripts; j++) {
            rg_script *s = r->scripts[p->scripts[j]];
            if (s->mark != UINT64_MAX)
                s->mark = s->mark <= r->frame ? r->frame - s->mark : UINT64_MAX;
        }
    }
}

/* The offered object built here, frozen, its scripts restored.  On failure
 * nothing of it is left and *why says what went wrong. */
static bool build_object(gsvm_lsl_region *r, const json_t *offer, uint8_t **snaps, const size_t *snap_len,
                         uint32_t *root, char *why, size_t whylen)
{
    const json_t *obj = json_object_get(offer, "object"), *scripts = json_object_get(offer, "scripts");
    const json_t *links = json_object_get(obj, "links");
    size_t ns = json_array_size(scripts), idx;
    json_t *v;
    gsvm_error e;
    gsvm_error_clear(&e);
    float pos[3] = {0, 0, 0};
    get_pos3(json_object_get(obj, "pos"), pos);
    if (gsvm_lsl_region_add_object(r, json_string_value(json_object_get(obj, "id")),
                                   json_string_value(json_object_get(obj, "owner")),
                                   json_string_value(json_object_get(obj, "name")), pos, root, &e) != GSVM_OK) {
        snprintf(why, whylen, "the state does not restore here: %s", e.message);
        return false;
    }
    uint32_t *lp = calloc(json_array_size(links) + 1, sizeof *lp);
    bool ok = lp != NULL;
    tag_map tags = {NULL, 0, 0};
    if (ok)
        lp[0] = *root;
    json_array_foreach(links, idx, v) {
        float lpos[3] = {0, 0, 0};
        get_pos3(json_object_get(v, "pos"), lpos);
        if (ok)
            ok = gsvm_lsl_region_add_link(r, *root, json_string_value(json_object_get(v, "id")),
                                          json_string_value(json_object_get(v, "name")), lpos, &lp[idx + 1],
                                          &e) == GSVM_OK;
    }
    for (size_t k = 0; ok && k < ns; k++) {
        const json_t *sj = json_array_get(scripts, k);
        json_int_t link = json_integer_value(json_object_get(sj, "prim"));
        long prog = program_by_hash(r, json_string_value(json_object_get(sj, "hash")), abi_of(sj));
        if (link < 0 || (size_t)link > json_array_size(links) || prog < 0) {
            snprintf(e.message, sizeof e.message, "%s", prog >= 0 ? "a script in no prim" : "a program was not sent");
            ok = false;
            break;
        }
        const json_t *jq = json_object_get(sj, "queue");
        int32_t q2[LSL_SCHED_QUEUE_MAX];
        size_t nq2 = 0, qi;
        const json_t *qv;
        json_array_foreach(jq, qi, qv) {
            if (nq2 < LSL_SCHED_QUEUE_MAX)
                q2[nq2++] = (int32_t)json_integer_value(qv);
        }
        ok = rg_add_script_restored(r, lp[link], json_string_value(json_object_get(sj, "name")), (uint32_t)prog,
                                    snaps[k], snap_len[k], q2, nq2, &e) == GSVM_OK;
        if (ok)
            apply_region_state(r, r->scripts[r->nscripts - 1], json_object_get(sj, "region"), &tags);
    }
    free(tags.pair);
    free(lp);
    if (!ok) {
        snprintf(why, whylen, "the state does not restore here: %s", e.message);
        rg_object_remove(r, *root);
    }
    return ok;
}

/* One transfer on `fd`.  *bye: A confirmed the end; *x names it. */
static void cross_in(gsvm_lsl_region *r, int fd, xfer_log *x, bool *bye)
{
    *bye = false;
    x->committed = false;
    x->xfer[0] = 0;
    json_t *offer = NULL, *need = json_array();
    uint8_t **snaps = NULL;
    size_t *snap_len = NULL, ns = 0, got = 0;
    const char *refuse = NULL;
    char why[700];
    uint32_t root = 0;
    gsvm_buf out;
    gsvm_buf_init(&out);
    xw_reader *rd = malloc(sizeof *rd);
    if (!rd || !need)
        goto end;
    xw_reader_init(rd, fd);
    /* 1 the offer, then every script's state up to END */
    if (fault_here(r, 1) || !(offer = xw_recv_json(rd, M_OFFER)))
        goto end;
    const char *xf = json_string_value(json_object_get(offer, "xfer"));
    snprintf(x->xfer, sizeof x->xfer, "%s", xf ? xf : "");
    ns = json_array_size(json_object_get(offer, "scripts"));
    if (ns > 1024)
        ns = 1024;
    snaps = calloc(ns + 1, sizeof *snaps);
    snap_len = calloc(ns + 1, sizeof *snap_len);
    if (!snaps || !snap_len)
        goto end;
    for (;;) {
        uint8_t type, *d;
        size_t n;
        if (!xw_recv_frame(rd, &type, &d, &n))
            goto end;
        if (type == M_END) {
            free(d);
            break;
        }
        if (type != M_SNAPSHOT || got >= ns) {
            free(d);
            goto end; /* not the stream of a region */
        }
        snaps[got] = d;
        snap_len[got++] = n;
    }
    refuse = check_offer(r, offer, need, why, sizeof why);
    if (!refuse && got != ns)
        refuse = "a malformed offer";
    if (refuse) {
        xw_send_json(fd, M_REFUSE, json_pack("{s:s}", "refuse", refuse));
        goto end;
    }
    /* 2 NEED (sent together with PREPARED when B lacks nothing) */
    if (fault_here(r, 2))
        goto end;
    size_t nneed = json_array_size(need);
    xw_put_json(&out, M_NEED, json_pack("{s:O}", "need", need));
    if (nneed > 0 && !xw_flush(fd, &out))
        goto end;
    /* 3 the programs */
    if (fault_here(r, 3))
        goto end;
    if (nneed > 0 && !recv_programs(r, rd, nneed, &refuse)) {
        if (refuse)
            xw_send_json(fd, M_REFUSE, json_pack("{s:s}", "refuse", refuse));
        goto end;
    }
    /* 4 PREPARED (or REFUSE): the object built here, frozen */
    if (!build_object(r, offer, snaps, snap_len, &root, why, sizeof why)) {
        xw_put_json(&out, M_REFUSE, json_pack("{s:s}", "refuse", why));
        xw_flush(fd, &out);
        goto end;
    }
    xw_put_frame(&out, M_PREPARED, "{}", 2);
    if (fault_here(r, 4) || !xw_flush(fd, &out)) {
        rg_object_remove(r, root);
        goto end;
    }
    /* 5 COMMIT: the object is ours */
    uint8_t type = 0, *d = NULL;
    size_t n;
    if (fault_here(r, 5) || !xw_recv_frame(rd, &type, &d, &n) || type != M_COMMIT) {
        free(d);
        rg_object_remove(r, root);
        goto end;
    }
    free(d);
    d = NULL;
    x->committed = true;
    /* A's clock and frame: the object goes on where it was */
    uint64_t now = (uint64_t)json_integer_value(json_object_get(offer, "now_ms"));
    uint64_t frame = (uint64_t)json_integer_value(json_object_get(offer, "frame"));
    if (now > r->now_ms && now <= LSL_SCHED_MAX_TIME_MS)
        r->now_ms = now;
    if (frame > r->frame)
        r->frame = frame;
    settle_region_state(r, root);
    rg_object_freeze(r, root, false);
    report(r, json_string_value(json_object_get(json_object_get(offer, "object"), "id")), "arrived", NULL);
    /* 6 DONE, 7 BYE */
    if (fault_here(r, 6) || !xw_send_frame(fd, M_DONE, NULL, 0))
        goto end;
    *bye = !fault_here(r, 7) && xw_recv_frame(rd, &type, &d, &n) && type == M_BYE;
    free(d);
end:
    for (size_t k = 0; k < got; k++)
        free(snaps[k]);
    free(snaps);
    free(snap_len);
    json_decref(need);
    json_decref(offer);
    gsvm_buf_free(&out);
    free(rd);
}

/* Answers the in-doubt question if A asks within `ms`. */
static void answer_queries(int lfd, const xfer_log *x, int ms)
{
    if (!xw_wait_fd(lfd, POLLIN, ms))
        return;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return;
    xw_reader *rd = malloc(sizeof *rd);
    json_t *q = NULL;
    if (rd) {
        xw_reader_init(rd, fd);
        q = xw_recv_json(rd, M_QUERY);
        free(rd);
    }
    const char *want = json_string_value(json_object_get(q, "xfer"));
    bool yes = want && x->committed && strcmp(want, x->xfer) == 0;
    xw_send_json(fd, M_ANSWER, json_pack("{s:b}", "committed", yes));
    json_decref(q);
    close(fd);
}

gsvm_status rg_accept_line(gsvm_lsl_region *r, const json_t *a, const char *file, long lineno, gsvm_error *err)
{
    const json_t *port = json_object_get(a, "port"), *timeout = json_object_get(a, "timeout_ms");
    if (!json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535 ||
        (timeout && (!json_is_integer(timeout) || json_integer_value(timeout) < 0 ||
                     json_integer_value(timeout) > 600000)))
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, file, lineno, 1,
                                  "\"accept\" needs \"port\" (1 to 65535, on 127.0.0.1) and optional "
                                  "\"timeout_ms\" (0 to 600000, default 10000)");
    int lfd = xw_listen_loopback((int)json_integer_value(port));
    if (lfd < 0)
        return gsvm_error_at_line(err, GSVM_ERR_IO, file, lineno, 1, "cannot listen on 127.0.0.1:%lld",
                                  (long long)json_integer_value(port));
    int ms = timeout ? (int)json_integer_value(timeout) : 10000;
    if (xw_wait_fd(lfd, POLLIN, ms)) {
        int fd = accept(lfd, NULL, NULL);
        if (fd >= 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            xfer_log x;
            bool bye;
            cross_in(r, fd, &x, &bye);
            close(fd);
            if (!bye && x.xfer[0])
                answer_queries(lfd, &x, IO_TIMEOUT_MS);
        }
    } else {
        rg_emit(r, NULL, json_pack("{s:s}", "crossing", "none arrived"));
    }
    close(lfd);
    return GSVM_OK;
}
