/* Fuzz target: the receiving side of a region crossing — the frames another
 * region sends over loopback TCP (offer JSON, ABI-3 programs, snapshots,
 * END, COMMIT, BYE) as read by an {"accept"} timeline line.
 *
 * The input is the byte stream the sender would write: a sender thread
 * connects to the accepting region, writes it, closes its side, reads
 * until the region hangs up, then connects once more and hangs up (so a
 * transfer left in doubt does not wait for a question).  The thread is
 * started once and handed one input at a time: a thread per input cost
 * more than most inputs.  Whatever arrives,
 * the region must refuse it or build the object, run on, and free without
 * a leak.  The seed door.cross is a real crossing of examples/lsl/region's
 * door, recorded from `gsvm lsl region`. */
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gsvm/lsl_region.h"

typedef struct sender {
    int port;
    const uint8_t *data;
    size_t size;
} sender;

/* The one sender thread's mailbox: `busy` while it sends `job`. */
static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mailbox_cond = PTHREAD_COND_INITIALIZER;
static sender job;
static bool busy, started;

static int connect_port(int port, int tries_left)
{
    for (; tries_left > 0; tries_left--) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            return fd;
        close(fd);
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void send_stream(const sender *s)
{
    int fd = connect_port(s->port, 2000); /* the region starts listening soon */
    if (fd < 0)
        return;
    size_t off = 0;
    while (off < s->size) {
        ssize_t n = send(fd, s->data + off, s->size - off, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    char buf[4096];
    while (recv(fd, buf, sizeof buf, 0) > 0)
        ;
    close(fd);
    /* Ends a wait for the in-doubt question; once: the region listens until
     * it is done with this crossing, and refuses at once after. */
    fd = connect_port(s->port, 1);
    if (fd >= 0)
        close(fd);
}

static void *sender_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mailbox_lock);
    for (;;) {
        while (!busy)
            pthread_cond_wait(&mailbox_cond, &mailbox_lock);
        sender s = job;
        pthread_mutex_unlock(&mailbox_lock);
        send_stream(&s);
        pthread_mutex_lock(&mailbox_lock);
        busy = false;
        pthread_cond_broadcast(&mailbox_cond);
    }
    return NULL;
}

/* A free loopback port (the kernel's choice; nothing else here takes it). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!started) {
        pthread_t t;
        if (pthread_create(&t, NULL, sender_loop, NULL) != 0)
            abort();
        pthread_detach(t);
        started = true;
    }
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.slice_guard_us = o.frame_guard_us = 0;
    gsvm_lsl_region *r;
    gsvm_error err;
    int port = free_port();
    if (port < 0 || gsvm_lsl_region_new(&o, &r, &err) != GSVM_OK)
        return 0;
    pthread_mutex_lock(&mailbox_lock);
    job = (sender){port, data, size};
    busy = true;
    pthread_cond_broadcast(&mailbox_cond);
    pthread_mutex_unlock(&mailbox_lock);
    json_t *line = json_pack("{s:{s:i,s:i}}", "accept", "port", port, "timeout_ms", 2000);
    gsvm_lsl_region_apply(r, line, "fuzz", 1, &err);
    json_decref(line);
    pthread_mutex_lock(&mailbox_lock);
    while (busy)
        pthread_cond_wait(&mailbox_cond, &mailbox_lock);
    pthread_mutex_unlock(&mailbox_lock);
    bool idle;
    gsvm_lsl_region_settle(r, 500, &idle, &err);
    gsvm_lsl_region_free(r);
    return 0;
}
