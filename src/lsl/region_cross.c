/* Crossing: an object handed from one region process to another over a
 * loopback TCP connection, scripts and all, in the middle of whatever they
 * were doing.
 *
 * Messages are frames: u32 length (little-endian, of what follows), u8
 * type, payload.  The sender A and the receiver B:
 *   1 A->B OFFER    JSON: transfer id, A's clock and frame, the object (ids,
 *                   names, owner, positions) and per script its name, prim,
 *                   ABI and program hash
 *   2 B->A NEED     JSON: {"need": [script indexes whose program B lacks]}
 *                   or {"refuse": REASON} (an unknown ABI, an id in use,
 *                   over B's limits)
 *   3 A->B PROGRAM  a program file (.fp3) per needed script, then one
 *          SNAPSHOT per script (HWZS v3), then END
 *   4 B->A PREPARED B restored everything (held frozen), or REFUSE
 *   5 A->B COMMIT   A has frozen its copy
 *   6 B->A DONE     B runs the object
 *   7 A->B BYE      A has removed its copy
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
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "lsl/region_int.h"

enum { M_OFFER = 1, M_NEED, M_PROGRAM, M_SNAPSHOT, M_END, M_PREPARED, M_REFUSE, M_COMMIT, M_DONE, M_BYE,
       M_QUERY, M_ANSWER };
#define IO_TIMEOUT_MS 3000
#define MAX_FRAME (64u << 20)

/* ---- frames over a socket --------------------------------------------------- */

static bool wait_fd(int fd, short ev, int ms)
{
    struct pollfd p = {fd, ev, 0};
    int k;
    do
        k = poll(&p, 1, ms);
    while (k < 0 && errno == EINTR);
    return k > 0 && !(p.revents & POLLNVAL);
}

static bool send_all(int fd, const void *data, size_t n, int flags)
{
    const uint8_t *p = data;
    while (n > 0) {
        if (!wait_fd(fd, POLLOUT, IO_TIMEOUT_MS))
            return false;
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL | flags);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static bool recv_all(int fd, void *data, size_t n)
{
    uint8_t *p = data;
    while (n > 0) {
        if (!wait_fd(fd, POLLIN, IO_TIMEOUT_MS))
            return false;
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static bool send_frame(int fd, uint8_t type, const void *data, size_t n)
{
    uint8_t h[5] = {(uint8_t)(n + 1), (uint8_t)((n + 1) >> 8), (uint8_t)((n + 1) >> 16), (uint8_t)((n + 1) >> 24),
                    type};
    /* the header goes out with the payload (MSG_MORE), never alone: a lone
     * small segment would wait for the peer's delayed ACK (~40 ms) */
    return send_all(fd, h, 5, n ? MSG_MORE : 0) && (n == 0 || send_all(fd, data, n, 0));
}

static bool send_json(int fd, uint8_t type, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    bool ok = s && send_frame(fd, type, s, strlen(s));
    free(s);
    return ok;
}

/* Reads one frame: *type and a malloc'd payload (NUL-terminated). */
static bool recv_frame(int fd, uint8_t *type, uint8_t **data, size_t *n)
{
    uint8_t h[5];
    *data = NULL;
    if (!recv_all(fd, h, 5))
        return false;
    uint32_t len = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    if (len < 1 || len > MAX_FRAME)
        return false;
    *type = h[4];
    *n = len - 1;
    *data = malloc(*n + 1);
    if (!*data || !recv_all(fd, *data, *n)) {
        free(*data);
        *data = NULL;
        return false;
    }
    (*data)[*n] = 0;
    return true;
}

static json_t *recv_json(int fd, uint8_t want)
{
    uint8_t type, *d;
    size_t n;
    if (!recv_frame(fd, &type, &d, &n))
        return NULL;
    json_t *j = NULL;
    if (type == want || type == M_REFUSE)
        j = json_loadb((const char *)d, n, 0, NULL);
    free(d);
    if (j && type == M_REFUSE && want != M_REFUSE) {
        json_t *w = json_pack("{s:O}", "refuse", json_object_get(j, "refuse"));
        json_decref(j);
        j = w;
    }
    return j;
}

static int connect_loopback(int port, int tries_ms)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int waited = 0;; waited += 20) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        close(fd);
        if (waited >= tries_ms)
            return -1;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

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
    int fd = connect_loopback(port, 1000);
    if (fd < 0)
        return -1;
    int res = -1;
    if (send_json(fd, M_QUERY, json_pack("{s:s}", "xfer", xfer))) {
        json_t *a = recv_json(fd, M_ANSWER);
        if (a && json_is_boolean(json_object_get(a, "committed")))
            res = json_is_true(json_object_get(a, "committed"));
        json_decref(a);
    }
    close(fd);
    return res;
}

static gsvm_status cross_out(gsvm_lsl_region *r, uint32_t root, int port, gsvm_error *err)
{
    const rg_prim *rp = &r->prims[root];
    const char *id = rp->id;
    rg_script *sc[1024];
    size_t ns = object_scripts(r, root, sc, 1024);
    if (ns > 1024)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "object '%s' has more than 1024 scripts", id);
    char xfer[80];
    snprintf(xfer, sizeof xfer, "%s#%llu@%llu", id, (unsigned long long)++r->next_xfer,
             (unsigned long long)r->now_ms);

    /* 1 OFFER */
    json_t *links = json_array(), *scripts = json_array();
    for (uint32_t k = 1; k < rp->nlinks; k++) {
        const rg_prim *p = &r->prims[rp->links[k]];
        json_array_append_new(links, json_pack("{s:s,s:s,s:o}", "id", p->id, "name", p->name, "pos", pos_json(p->pos)));
    }
    for (size_t i = 0; i < ns; i++) {
        char hex[65];
        gsvm_hex(gsvm_lsl3_program_hash(sc[i]->vm->prog), 32, hex);
        uint32_t link = 0;
        for (uint32_t k = 0; k < rp->nlinks; k++)
            if (rp->links[k] == sc[i]->prim)
                link = k;
        json_array_append_new(scripts, json_pack("{s:s,s:i,s:i,s:s}", "name", sc[i]->name, "prim", (int)link, "abi",
                                                 GSVM_LSL3_ABI_VERSION, "hash", hex));
    }
    json_t *offer = json_pack("{s:s,s:I,s:I,s:{s:s,s:s,s:s,s:o,s:o},s:o}", "xfer", xfer, "now_ms",
                              (json_int_t)r->now_ms, "frame", (json_int_t)r->frame, "object", "id", id, "owner",
                              rp->owner, "name", rp->name, "pos", pos_json(rp->pos), "links", links, "scripts",
                              scripts);
    int fd = connect_loopback(port, 2000);
    if (fd < 0) {
        json_decref(offer);
        report(r, id, "failed", "no region listening");
        return GSVM_OK;
    }
    const char *why = NULL;
    json_t *need = NULL;
    bool sent_offer = !fault_here(r, 1) && send_json(fd, M_OFFER, offer); /* send_json takes it */
    if (fault_here(r, 1))
        json_decref(offer);
    offer = NULL;
    if (!sent_offer) {
        why = "the connection dropped sending the offer";
        goto keep;
    }
    /* 2 NEED */
    if (fault_here(r, 2) || !(need = recv_json(fd, M_NEED))) {
        why = "the connection dropped waiting for the answer";
        goto keep;
    }
    if (json_object_get(need, "refuse")) {
        report(r, id, "refused", json_string_value(json_object_get(need, "refuse")));
        json_decref(need);
        close(fd);
        return GSVM_OK;
    }
    /* 3 programs B lacks, then every script's state after whatever
     * instruction it reached */
    if (fault_here(r, 3)) {
        why = "the connection dropped sending the state";
        goto keep;
    }
    size_t idx;
    json_t *v;
    json_array_foreach(json_object_get(need, "need"), idx, v) {
        json_int_t k = json_integer_value(v);
        uint8_t *blob;
        size_t len;
        if (k < 0 || (size_t)k >= ns || gsvm_lsl3_program_save(sc[k]->vm->prog, &blob, &len, err) != GSVM_OK) {
            why = "bad program request";
            goto keep;
        }
        bool ok = send_frame(fd, M_PROGRAM, blob, len);
        free(blob);
        if (!ok) {
            why = "the connection dropped sending a program";
            goto keep;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        uint8_t *blob;
        size_t len;
        if (gsvm_lsl3_vm_snapshot(sc[i]->vm, &blob, &len, err) != GSVM_OK) {
            why = err->message;
            goto keep;
        }
        bool ok = send_frame(fd, M_SNAPSHOT, blob, len);
        free(blob);
        if (!ok) {
            why = "the connection dropped sending a snapshot";
            goto keep;
        }
    }
    if (!send_frame(fd, M_END, NULL, 0)) {
        why = "the connection dropped sending the state";
        goto keep;
    }
    /* 4 PREPARED */
    json_decref(need);
    need = NULL;
    if (fault_here(r, 4) || !(need = recv_json(fd, M_PREPARED))) {
        why = "the connection dropped waiting for the destination to prepare";
        goto keep;
    }
    if (json_object_get(need, "refuse")) {
        report(r, id, "refused", json_string_value(json_object_get(need, "refuse")));
        json_decref(need);
        close(fd);
        return GSVM_OK;
    }
    json_decref(need);
    need = NULL;
    /* 5 COMMIT: from here A's copy is frozen */
    if (fault_here(r, 5)) {
        why = "the connection dropped before the commit";
        goto keep;
    }
    rg_object_freeze(r, root, true);
    bool sent = send_frame(fd, M_COMMIT, NULL, 0);
    /* 6 DONE */
    uint8_t type = 0, *d = NULL;
    size_t n;
    bool done = sent && !fault_here(r, 6) && recv_frame(fd, &type, &d, &n) && type == M_DONE;
    free(d);
    if (done) {
        /* 7 BYE (best effort: B asks if it does not come) */
        if (!fault_here(r, 7))
            send_frame(fd, M_BYE, NULL, 0);
        close(fd);
        report(r, id, "crossed", NULL);
        rg_object_remove(r, root);
        return GSVM_OK;
    }
    close(fd);
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
    return GSVM_OK;
keep:
    json_decref(offer);
    json_decref(need);
    close(fd);
    report(r, id, "failed", why);
    return GSVM_OK; /* the object stays, running */
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

static const gsvm_lsl3_program *program_by_hash(gsvm_lsl_region *r, const char *hex)
{
    for (size_t i = 0; i < r->nprogs; i++) {
        char h[65];
        gsvm_hex(gsvm_lsl3_program_hash(r->progs[i].prog), 32, h);
        if (strcmp(h, hex) == 0)
            return r->progs[i].prog;
    }
    return NULL;
}

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

/* One transfer on `fd`.  *bye: A confirmed the end; *x names it. */
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

static void cross_in(gsvm_lsl_region *r, int fd, xfer_log *x, bool *bye)
{
    *bye = false;
    x->committed = false;
    x->xfer[0] = 0;
    json_t *offer = NULL;
    uint8_t *d = NULL;
    const char *refuse = NULL;
    char why[700];
    if (fault_here(r, 1) || !(offer = recv_json(fd, M_OFFER)))
        return;
    snprintf(x->xfer, sizeof x->xfer, "%s", json_string_value(json_object_get(offer, "xfer")) ?
                                               json_string_value(json_object_get(offer, "xfer")) : "");
    const json_t *obj = json_object_get(offer, "object"), *scripts = json_object_get(offer, "scripts");
    const json_t *links = json_object_get(obj, "links");
    const char *id = json_string_value(json_object_get(obj, "id"));
    size_t ns = json_array_size(scripts);
    json_t *need = json_array();
    size_t idx;
    json_t *v;
    if (!id || !json_is_array(scripts) || !json_is_array(links)) {
        refuse = "a malformed offer";
    } else if (rg_find_prim(r, id) >= 0) {
        refuse = "an object with that id is here already";
    } else {
        json_array_foreach(links, idx, v) {
            const char *lid = json_string_value(json_object_get(v, "id"));
            if (!lid || rg_find_prim(r, lid) >= 0)
                refuse = "a link id is in use here";
        }
        json_array_foreach(scripts, idx, v) {
            if (json_integer_value(json_object_get(v, "abi")) != GSVM_LSL3_ABI_VERSION) {
                snprintf(why, sizeof why, "unknown ABI %lld",
                         (long long)json_integer_value(json_object_get(v, "abi")));
                refuse = why;
            } else if (!json_is_string(json_object_get(v, "hash")) || !json_is_string(json_object_get(v, "name"))) {
                refuse = "a malformed offer";
            } else if (!program_by_hash(r, json_string_value(json_object_get(v, "hash"))) &&
                       !hash_before(scripts, idx)) {
                json_array_append_new(need, json_integer((json_int_t)idx)); /* once per program */
            }
        }
        if (!refuse && r->o.max_scripts && r->st.scripts + ns > r->o.max_scripts)
            refuse = "over this region's script limit";
    }
    if (refuse) {
        send_json(fd, M_REFUSE, json_pack("{s:s}", "refuse", refuse));
        json_decref(need);
        json_decref(offer);
        return;
    }
    /* 2 NEED */
    if (fault_here(r, 2) || !send_json(fd, M_NEED, json_pack("{s:O}", "need", need))) {
        json_decref(need);
        json_decref(offer);
        return;
    }
    /* 3 programs, snapshots, END */
    size_t nneed = json_array_size(need);
    const gsvm_lsl3_program **progs = calloc(ns ? ns : 1, sizeof *progs);
    uint8_t **snaps = calloc(ns ? ns : 1, sizeof *snaps);
    size_t *snap_len = calloc(ns ? ns : 1, sizeof *snap_len);
    bool ok = progs && snaps && snap_len && !fault_here(r, 3);
    for (size_t k = 0; ok && k < nneed; k++) {
        uint8_t type;
        size_t n;
        ok = recv_frame(fd, &type, &d, &n) && type == M_PROGRAM;
        gsvm_lsl3_program *p = NULL;
        gsvm_error e;
        if (ok && gsvm_lsl3_program_load(d, n, "crossing", &p, &e) != GSVM_OK) {
            refuse = "a program that does not load";
            ok = false;
        }
        free(d);
        d = NULL;
        if (ok) {
            rg_program *np = realloc(r->progs, (r->nprogs + 1) * sizeof *np);
            if (!np) {
                gsvm_lsl3_program_free(p);
                ok = false;
                break;
            }
            r->progs = np;
            memcpy(np[r->nprogs].hash, gsvm_lsl3_program_hash(p), 32);
            np[r->nprogs].prog = p;
            np[r->nprogs].owned = true;
            r->nprogs++;
        }
    }
    for (size_t k = 0; ok && k < ns; k++) {
        uint8_t type;
        ok = recv_frame(fd, &type, &snaps[k], &snap_len[k]) && type == M_SNAPSHOT;
        progs[k] = ok ? program_by_hash(r, json_string_value(json_object_get(json_array_get(scripts, k), "hash"))) : NULL;
        if (ok && !progs[k]) {
            refuse = "a program was not sent";
            ok = false;
        }
    }
    if (ok) {
        uint8_t type;
        size_t n;
        ok = recv_frame(fd, &type, &d, &n) && type == M_END;
        free(d);
        d = NULL;
    }
    /* build the object frozen */
    uint32_t root = 0;
    bool built = false;
    gsvm_error e;
    gsvm_error_clear(&e);
    if (ok) {
        float pos[3] = {0, 0, 0};
        get_pos3(json_object_get(obj, "pos"), pos);
        ok = gsvm_lsl_region_add_object(r, id, json_string_value(json_object_get(obj, "owner")),
                                        json_string_value(json_object_get(obj, "name")), pos, &root, &e) == GSVM_OK;
        built = ok;
        uint32_t *lp = calloc(json_array_size(links) + 1, sizeof *lp);
        lp[0] = root;
        json_array_foreach(links, idx, v) {
            float lpos[3] = {0, 0, 0};
            get_pos3(json_object_get(v, "pos"), lpos);
            if (ok)
                ok = gsvm_lsl_region_add_link(r, root, json_string_value(json_object_get(v, "id")),
                                              json_string_value(json_object_get(v, "name")), lpos, &lp[idx + 1],
                                              &e) == GSVM_OK;
        }
        for (size_t k = 0; ok && k < ns; k++) {
            const json_t *sj = json_array_get(scripts, k);
            json_int_t link = json_integer_value(json_object_get(sj, "prim"));
            if (link < 0 || (size_t)link > json_array_size(links)) {
                ok = false;
                break;
            }
            ok = rg_add_script_restored(r, lp[link], json_string_value(json_object_get(sj, "name")), progs[k],
                                        snaps[k], snap_len[k], &e) == GSVM_OK;
        }
        free(lp);
        if (!ok) {
            snprintf(why, sizeof why, "the state does not restore here: %s", e.message);
            refuse = why;
        }
    }
    for (size_t k = 0; k < ns && snaps; k++)
        free(snaps[k]);
    free(snaps);
    free(snap_len);
    free(progs);
    json_decref(need);
    /* 4 PREPARED (or REFUSE) */
    if (!ok) {
        if (refuse)
            send_json(fd, M_REFUSE, json_pack("{s:s}", "refuse", refuse));
        if (built)
            rg_object_remove(r, root);
        json_decref(offer);
        return;
    }
    if (fault_here(r, 4) || !send_frame(fd, M_PREPARED, "{}", 2)) {
        rg_object_remove(r, root);
        json_decref(offer);
        return;
    }
    /* 5 COMMIT: the object is ours */
    uint8_t type = 0;
    size_t n;
    if (fault_here(r, 5) || !recv_frame(fd, &type, &d, &n) || type != M_COMMIT) {
        free(d);
        rg_object_remove(r, root);
        json_decref(offer);
        return;
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
    rg_object_freeze(r, root, false);
    report(r, id, "arrived", NULL);
    json_decref(offer);
    /* 6 DONE, 7 BYE */
    if (fault_here(r, 6) || !send_frame(fd, M_DONE, NULL, 0))
        return;
    *bye = !fault_here(r, 7) && recv_frame(fd, &type, &d, &n) && type == M_BYE;
    free(d);
}

static int listen_loopback(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Answers the in-doubt question if A asks within `ms`. */
static void answer_queries(int lfd, const xfer_log *x, int ms)
{
    if (!wait_fd(lfd, POLLIN, ms))
        return;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return;
    json_t *q = recv_json(fd, M_QUERY);
    const char *want = json_string_value(json_object_get(q, "xfer"));
    bool yes = want && x->committed && strcmp(want, x->xfer) == 0;
    send_json(fd, M_ANSWER, json_pack("{s:b}", "committed", yes));
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
    int lfd = listen_loopback((int)json_integer_value(port));
    if (lfd < 0)
        return gsvm_error_at_line(err, GSVM_ERR_IO, file, lineno, 1, "cannot listen on 127.0.0.1:%lld",
                                  (long long)json_integer_value(port));
    int ms = timeout ? (int)json_integer_value(timeout) : 10000;
    if (wait_fd(lfd, POLLIN, ms)) {
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
