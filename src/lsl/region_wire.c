/* Crossing's wire: frames (u32 length, u8 type, payload) over a loopback
 * TCP connection, sent a turn at a time and read in large chunks.  The
 * protocol that uses them is described in region_cross.c. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lsl/region_wire.h"

/* Blocks in poll() until `fd` is ready (never a sleep loop). */
bool xw_wait_fd(int fd, short ev, int ms)
{
    struct pollfd p = {fd, ev, 0};
    int k;
    do
        k = poll(&p, 1, ms);
    while (k < 0 && errno == EINTR);
    return k > 0 && !(p.revents & POLLNVAL);
}

static bool send_all(int fd, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!xw_wait_fd(fd, POLLOUT, IO_TIMEOUT_MS))
                return false;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* What one side has to say next, framed: every message of one turn of the
 * handoff (the offer with every script's state, say) leaves in one send, so
 * the peer wakes once per turn and no small segment waits for an ACK. */
void xw_put_frame(gsvm_buf *b, uint8_t type, const void *data, size_t n)
{
    gsvm_buf_u32(b, (uint32_t)(n + 1), false);
    gsvm_buf_u8(b, type);
    gsvm_buf_append(b, data, n);
}

void xw_put_json(gsvm_buf *b, uint8_t type, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (s)
        xw_put_frame(b, type, s, strlen(s));
    else
        b->oom = true;
    free(s);
}

/* Sends what `b` holds and empties it. */
bool xw_flush(int fd, gsvm_buf *b)
{
    bool ok = !b->oom && send_all(fd, b->data, b->len);
    b->len = 0;
    return ok;
}

bool xw_send_frame(int fd, uint8_t type, const void *data, size_t n)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    xw_put_frame(&b, type, data, n);
    bool ok = xw_flush(fd, &b);
    gsvm_buf_free(&b);
    return ok;
}

bool xw_send_json(int fd, uint8_t type, json_t *j)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    xw_put_json(&b, type, j);
    bool ok = xw_flush(fd, &b);
    gsvm_buf_free(&b);
    return ok;
}

static bool recv_all(xw_reader *rd, void *data, size_t n)
{
    uint8_t *p = data;
    while (n > 0) {
        if (rd->pos < rd->len) {
            size_t k = rd->len - rd->pos < n ? rd->len - rd->pos : n;
            memcpy(p, rd->buf + rd->pos, k);
            rd->pos += k;
            p += k;
            n -= k;
            continue;
        }
        /* a large payload goes straight to its place, a small read fills the buffer */
        bool direct = n >= sizeof rd->buf;
        ssize_t k = recv(rd->fd, direct ? p : rd->buf, direct ? n : sizeof rd->buf, MSG_DONTWAIT);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!xw_wait_fd(rd->fd, POLLIN, IO_TIMEOUT_MS))
                return false;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        if (direct) {
            p += k;
            n -= (size_t)k;
        } else {
            rd->pos = 0;
            rd->len = (size_t)k;
        }
    }
    return true;
}

/* Reads one frame: *type and a malloc'd payload (NUL-terminated). */
bool xw_recv_frame(xw_reader *rd, uint8_t *type, uint8_t **data, size_t *n)
{
    uint8_t h[5];
    *data = NULL;
    if (!recv_all(rd, h, 5))
        return false;
    uint32_t len = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    if (len < 1 || len > MAX_FRAME)
        return false;
    *type = h[4];
    *n = len - 1;
    /* The payload's room grows as its bytes arrive (doubling from 64 KiB):
     * a header is only a peer's claim, and one that claims 64 MiB and sends
     * nothing must not cost 64 MiB. */
    size_t cap = 0, have = 0;
    uint8_t *p = NULL;
    do {
        size_t want = cap ? 2 * cap : 64 * 1024;
        if (want > *n + 1)
            want = *n + 1;
        uint8_t *q = realloc(p, want);
        if (!q || !recv_all(rd, q + have, want - 1 - have)) {
            free(q ? q : p);
            return false;
        }
        p = q;
        cap = want;
        have = want - 1;
    } while (have < *n);
    p[*n] = 0;
    *data = p;
    return true;
}

json_t *xw_recv_json(xw_reader *rd, uint8_t want)
{
    uint8_t type, *d;
    size_t n;
    if (!xw_recv_frame(rd, &type, &d, &n))
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

void xw_reader_init(xw_reader *rd, int fd)
{
    rd->fd = fd;
    rd->pos = rd->len = 0;
}

/* Socket buffers that hold a whole object's state (the kernel caps them at
 * net.core.[rw]mem_max): the offer then leaves A in one send without
 * waiting for B to drain it, and B wakes once to read it, instead of once
 * per default-sized window while both processes queue for a CPU.  Set
 * before connect() and listen(), as TCP fixes its window scale then. */
static void big_buffers(int fd)
{
    int size = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

int xw_connect_loopback(int port, int tries_ms)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* the destination may not be listening yet: retry, 1 ms at first, then
     * doubling up to 20 ms */
    long wait_ms = 1;
    for (long waited = 0;; waited += wait_ms, wait_ms = wait_ms < 20 ? wait_ms * 2 : 20) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        big_buffers(fd);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        close(fd);
        if (waited >= tries_ms)
            return -1;
        struct timespec ts = {0, wait_ms * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int xw_listen_loopback(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    big_buffers(fd);
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
