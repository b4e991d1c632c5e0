/* Crossing's wire (region_wire.c): the message types of the handoff and
 * frames over a loopback TCP connection. */
#ifndef GSVM_LSL_REGION_WIRE_H
#define GSVM_LSL_REGION_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

enum { M_OFFER = 1, M_NEED, M_PROGRAM, M_SNAPSHOT, M_END, M_PREPARED, M_REFUSE, M_COMMIT, M_DONE, M_BYE,
       M_QUERY, M_ANSWER };
#define IO_TIMEOUT_MS 3000
#define MAX_FRAME (64u << 20)

/* The receiving end: reads in large chunks (one recv for many frames when
 * they came in one send). */
typedef struct xw_reader {
    int fd;
    uint8_t buf[64 * 1024];
    size_t pos, len;
} xw_reader;

/* Blocks in poll() until `fd` is ready (never a sleep loop). */
bool xw_wait_fd(int fd, short ev, int ms);
/* Appends a frame (or a JSON frame, taking `j`) to what one turn sends. */
void xw_put_frame(gsvm_buf *b, uint8_t type, const void *data, size_t n);
void xw_put_json(gsvm_buf *b, uint8_t type, json_t *j);
/* Sends what `b` holds and empties it. */
bool xw_flush(int fd, gsvm_buf *b);
/* One frame sent alone (send_json takes `j`). */
bool xw_send_frame(int fd, uint8_t type, const void *data, size_t n);
bool xw_send_json(int fd, uint8_t type, json_t *j);
void xw_reader_init(xw_reader *rd, int fd);
/* Reads one frame: *type and a malloc'd payload (NUL-terminated). */
bool xw_recv_frame(xw_reader *rd, uint8_t *type, uint8_t **data, size_t *n);
/* Reads a JSON frame of type `want`; a REFUSE becomes {"refuse": REASON}. */
json_t *xw_recv_json(xw_reader *rd, uint8_t want);
/* A connected socket (retrying for up to tries_ms), or -1. */
int xw_connect_loopback(int port, int tries_ms);
/* A listening socket on the loopback port, or -1. */
int xw_listen_loopback(int port);

#endif
