/* A compact, validated binary form of LSL values, for snapshots.
 *
 * Strings, keys and lists are written once and referred to afterwards, so
 * a restored script shares exactly the objects the original shared and its
 * memory accounting (value.h) comes out identical.  Encoding, all
 * little-endian, one value at a time:
 *
 *   u8 type (lsl_type, 1..7)
 *   integer  i32          float  f32 bits
 *   vector   3 x f32      rotation  4 x f32
 *   string / key / list:  u32 ref
 *       ref 0              the empty string / list
 *       ref = count + 1    a new object, whose contents follow:
 *                          string/key: u32 byte length + bytes
 *                          list: u32 length + that many values (no lists)
 *       1 <= ref <= count  the object already numbered ref (same kind)
 *
 * Objects are numbered in the order they are first written, by one encoder
 * (and read back by one decoder) over a whole snapshot.  The decoder checks
 * every tag, count and reference against the bytes that remain and LSL's
 * bounds, charges the objects to the target heap (a Stack-Heap Collision if
 * they do not fit) and leaves nothing half-built on error. */
#ifndef GSVM_LSL_VALUE_CODEC_H
#define GSVM_LSL_VALUE_CODEC_H

#include "base/buf.h"
#include "base/reader.h"
#include "lsl/value.h"

typedef struct lsl_value_encoder {
    gsvm_buf *out;
    /* objects written so far, by address, in number order */
    const void **objs;
    size_t count, cap;
    /* open-addressing index into objs (size a power of two) */
    uint32_t *slots;
    size_t nslots;
    bool oom;
} lsl_value_encoder;

void lsl_value_encoder_init(lsl_value_encoder *e, gsvm_buf *out);
void lsl_value_encoder_free(lsl_value_encoder *e);
/* Appends one value; check `e->oom || e->out->oom` once at the end. */
void lsl_value_encode(lsl_value_encoder *e, const lsl_value *v);

typedef struct lsl_value_decoder {
    gsvm_reader *in;
    lsl_heap *heap;
    /* objects read so far (each holds one reference of the decoder's) */
    lsl_value *objs;
    size_t count, cap;
} lsl_value_decoder;

void lsl_value_decoder_init(lsl_value_decoder *d, gsvm_reader *in, lsl_heap *heap);
/* Drops the decoder's references (decoded values keep theirs). */
void lsl_value_decoder_free(lsl_value_decoder *d);
/* Reads one value into *out (a new reference).  On error *out is empty, the
 * reader has failed (GSVM_ERR_INPUT naming the offset) or the heap refused
 * (GSVM_ERR_FAULT "Stack-Heap Collision"), and err says which. */
gsvm_status lsl_value_decode(lsl_value_decoder *d, lsl_value *out, gsvm_error *err);

#endif
