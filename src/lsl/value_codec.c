/* Binary encoding of LSL values with shared objects written once; see
 * value_codec.h for the layout. */
#include "lsl/value_codec.h"

#include <stdlib.h>
#include <string.h>

/* ---- encoder ------------------------------------------------------------- */

void lsl_value_encoder_init(lsl_value_encoder *e, gsvm_buf *out)
{
    memset(e, 0, sizeof *e);
    e->out = out;
}

void lsl_value_encoder_free(lsl_value_encoder *e)
{
    free(e->objs);
    free(e->slots);
    memset(e, 0, sizeof *e);
}

static size_t slot_of(const void *p, size_t nslots)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDu;
    h ^= h >> 33;
    return (size_t)h & (nslots - 1);
}

/* The number of an object already written, or 0. */
static uint32_t find_obj(const lsl_value_encoder *e, const void *p)
{
    if (!e->nslots)
        return 0;
    for (size_t i = slot_of(p, e->nslots);; i = (i + 1) & (e->nslots - 1)) {
        uint32_t n = e->slots[i];
        if (n == 0)
            return 0;
        if (e->objs[n - 1] == p)
            return n;
    }
}

static bool add_obj(lsl_value_encoder *e, const void *p)
{
    if (e->count == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        const void **objs = realloc(e->objs, cap * sizeof *objs);
        if (!objs)
            return false;
        e->objs = objs;
        e->cap = cap;
    }
    if (2 * (e->count + 1) > e->nslots) {
        size_t n = e->nslots ? e->nslots * 2 : 128;
        uint32_t *slots = calloc(n, sizeof *slots);
        if (!slots)
            return false;
        for (size_t k = 0; k < e->count; k++) {
            size_t i = slot_of(e->objs[k], n);
            while (slots[i])
                i = (i + 1) & (n - 1);
            slots[i] = (uint32_t)(k + 1);
        }
        free(e->slots);
        e->slots = slots;
        e->nslots = n;
    }
    e->objs[e->count++] = p;
    size_t i = slot_of(p, e->nslots);
    while (e->slots[i])
        i = (i + 1) & (e->nslots - 1);
    e->slots[i] = (uint32_t)e->count;
    return true;
}

/* Little-endian stores into a region already reserved. */
static uint8_t *put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

static uint8_t *putf(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return put32(p, u);
}

/* Reserves n bytes at the end of the buffer (NULL when out of memory). */
static uint8_t *room(gsvm_buf *b, size_t n)
{
    if (!gsvm_buf_reserve(b, n))
        return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

void lsl_value_encode(lsl_value_encoder *e, const lsl_value *v)
{
    gsvm_buf *b = e->out;
    uint8_t *p;
    switch (v->type) {
    case LSL_TYPE_INTEGER:
    case LSL_TYPE_FLOAT:
        if ((p = room(b, 5))) {
            p[0] = (uint8_t)v->type;
            put32(p + 1, (uint32_t)v->u.i); /* a float's bits, through the union */
        }
        return;
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        int n = v->type == LSL_TYPE_VECTOR ? 3 : 4;
        if ((p = room(b, 1 + 4 * (size_t)n))) {
            *p++ = (uint8_t)v->type;
            for (int k = 0; k < n; k++)
                p = putf(p, v->u.v[k]);
        }
        return;
    }
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
    case LSL_TYPE_LIST: {
        const void *obj = v->type == LSL_TYPE_LIST ? (const void *)v->u.l : (const void *)v->u.s;
        uint32_t n = obj ? find_obj(e, obj) : 0;
        if (!obj || n) {
            if ((p = room(b, 5))) {
                p[0] = (uint8_t)v->type;
                put32(p + 1, n);
            }
            return;
        }
        if (!add_obj(e, obj)) {
            e->oom = true;
            return;
        }
        if (v->type == LSL_TYPE_LIST) {
            if ((p = room(b, 9))) {
                p[0] = (uint8_t)v->type;
                put32(put32(p + 1, (uint32_t)e->count), v->u.l->len);
            }
            /* reserve the scalars' worst case once, then write in place */
            gsvm_buf_reserve(b, (size_t)v->u.l->len * 17);
            for (uint32_t i = 0; i < v->u.l->len; i++)
                lsl_value_encode(e, &v->u.l->items[i]);
        } else {
            if ((p = room(b, 9 + (size_t)v->u.s->len))) {
                p[0] = (uint8_t)v->type;
                p = put32(put32(p + 1, (uint32_t)e->count), v->u.s->len);
                memcpy(p, v->u.s->data, v->u.s->len);
            }
        }
        return;
    }
    default: return;
    }
}

/* ---- decoder ------------------------------------------------------------- */

void lsl_value_decoder_init(lsl_value_decoder *d, gsvm_reader *in, lsl_heap *heap)
{
    memset(d, 0, sizeof *d);
    d->in = in;
    d->heap = heap;
}

void lsl_value_decoder_free(lsl_value_decoder *d)
{
    for (size_t i = 0; i < d->count; i++)
        lsl_value_release(&d->objs[i]);
    free(d->objs);
    d->objs = NULL;
    d->count = d->cap = 0;
}

/* The reader has failed: report its error through err. */
static gsvm_status input_error(lsl_value_decoder *d, gsvm_error *err)
{
    if (d->in->err && err && err != d->in->err)
        *err = *d->in->err;
    else if (!d->in->err)
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, d->in->file, (long long)d->in->pos, "malformed value");
    return GSVM_ERR_INPUT;
}

static gsvm_status bad(lsl_value_decoder *d, gsvm_error *err, const char *what)
{
    gsvm_reader_fail(d->in, "%s", what);
    return input_error(d, err);
}

/* Reserves the next object number (filled in once the object is built). */
static bool push_obj(lsl_value_decoder *d, lsl_type t)
{
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        lsl_value *objs = realloc(d->objs, cap * sizeof *objs);
        if (!objs)
            return false;
        d->objs = objs;
        d->cap = cap;
    }
    d->objs[d->count++] = lsl_empty(t);
    return true;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float getf(const uint8_t *p)
{
    uint32_t u = get32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static gsvm_status decode(lsl_value_decoder *d, lsl_value *out, bool in_list, gsvm_error *err)
{
    gsvm_reader *r = d->in;
    const uint8_t *p;
    out->type = LSL_TYPE_VOID;
    if (!gsvm_read_bytes(r, 1, &p, "value type"))
        return input_error(d, err);
    lsl_type t = (lsl_type)p[0];
    switch (t) {
    case LSL_TYPE_INTEGER:
    case LSL_TYPE_FLOAT:
        if (!gsvm_read_bytes(r, 4, &p, t == LSL_TYPE_INTEGER ? "integer" : "float"))
            return input_error(d, err);
        out->type = t;
        memset(&out->u, 0, sizeof out->u);
        out->u.i = (int32_t)get32(p); /* a float's bits, through the union */
        return GSVM_OK;
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        int n = t == LSL_TYPE_VECTOR ? 3 : 4;
        if (!gsvm_read_bytes(r, 4 * (size_t)n, &p, t == LSL_TYPE_VECTOR ? "vector" : "rotation"))
            return input_error(d, err);
        out->type = t;
        for (int k = 0; k < 4; k++)
            out->u.v[k] = k < n ? getf(p + 4 * k) : 0.0f;
        return GSVM_OK;
    }
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
    case LSL_TYPE_LIST: {
        if (t == LSL_TYPE_LIST && in_list)
            return bad(d, err, "a list inside a list");
        uint32_t ref;
        if (!gsvm_read_u32(r, &ref, "object reference"))
            return input_error(d, err);
        if (ref == 0) {
            *out = lsl_empty(t);
            return GSVM_OK;
        }
        if (ref <= d->count) {
            const lsl_value *o = &d->objs[ref - 1];
            bool ok = t == LSL_TYPE_LIST ? o->type == LSL_TYPE_LIST && o->u.l
                                         : (o->type == LSL_TYPE_STRING || o->type == LSL_TYPE_KEY) && o->u.s;
            if (!ok)
                return bad(d, err, "object reference to the wrong kind of object");
            *out = *o;
            out->type = t;
            lsl_value_retain(out);
            return GSVM_OK;
        }
        if (ref != d->count + 1)
            return bad(d, err, "object reference out of order");
        uint32_t len;
        if (!gsvm_read_u32(r, &len, t == LSL_TYPE_LIST ? "list length" : "string length"))
            return input_error(d, err);
        if (len == 0)
            return bad(d, err, "an empty object must be written as reference 0");
        size_t slot = d->count;
        if (!push_obj(d, t))
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        gsvm_status st;
        if (t != LSL_TYPE_LIST) {
            const uint8_t *bytes;
            if (len > LSL_MAX_STRING_BYTES)
                return bad(d, err, "string longer than the bound");
            if (!gsvm_read_bytes(r, len, &bytes, "string bytes"))
                return input_error(d, err);
            st = lsl_string_new(d->heap, t, (const char *)bytes, len, &d->objs[slot], err);
        } else {
            /* every element takes at least 5 bytes */
            if (len > LSL_MAX_LIST_LENGTH || len > gsvm_reader_left(r) / 5)
                return bad(d, err, "list longer than the bytes that remain");
            lsl_value *items = malloc(len * sizeof *items);
            if (!items)
                return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
            st = GSVM_OK;
            uint32_t done = 0;
            for (; done < len && !st; done++)
                st = decode(d, &items[done], true, err);
            /* the list takes the elements' references over */
            if (!st)
                st = lsl_list_adopt(d->heap, items, len, &d->objs[slot], err);
            if (st)
                for (uint32_t i = 0; i < done; i++)
                    lsl_value_release(&items[i]);
            free(items);
        }
        if (st)
            return st;
        *out = d->objs[slot];
        lsl_value_retain(out);
        return GSVM_OK;
    }
    default:
        return bad(d, err, "unknown value type");
    }
}

gsvm_status lsl_value_decode(lsl_value_decoder *d, lsl_value *out, gsvm_error *err)
{
    return decode(d, out, false, err);
}
