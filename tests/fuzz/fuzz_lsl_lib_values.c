/* Fuzz target: the snapshot decoder of LSL values (value_codec.h).  Decodes
 * values until the input ends or is rejected, re-encodes what was decoded,
 * checks the re-encoding decodes to the same values with the same memory
 * accounting, and that everything is released. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/value_codec.h"

#define MAX_VALUES 64

static size_t decode_some(const uint8_t *data, size_t size, lsl_heap *h, lsl_value *out)
{
    gsvm_error err;
    gsvm_reader r;
    gsvm_reader_init(&r, data, size, "fuzz", &err);
    lsl_value_decoder d;
    lsl_value_decoder_init(&d, &r, h);
    size_t n = 0;
    while (n < MAX_VALUES && gsvm_reader_left(&r) > 0 && lsl_value_decode(&d, &out[n], &err) == GSVM_OK)
        n++;
    lsl_value_decoder_free(&d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lsl_heap h1, h2;
    lsl_heap_init(&h1, LSL_DEFAULT_MEMORY_LIMIT);
    lsl_heap_init(&h2, LSL_DEFAULT_MEMORY_LIMIT);
    lsl_value a[MAX_VALUES], b[MAX_VALUES];
    size_t n = decode_some(data, size, &h1, a);

    gsvm_buf buf;
    gsvm_buf_init(&buf);
    lsl_value_encoder e;
    lsl_value_encoder_init(&e, &buf);
    for (size_t i = 0; i < n; i++)
        lsl_value_encode(&e, &a[i]);
    bool oom = e.oom || buf.oom;
    lsl_value_encoder_free(&e);
    if (!oom) {
        size_t m = decode_some(buf.data, buf.len, &h2, b);
        if (m != n || h2.used != h1.used)
            abort(); /* a re-encoding must read back whole, with the same accounting */
        for (size_t i = 0; i < m; i++) {
            if (b[i].type != a[i].type)
                abort();
            lsl_value_release(&b[i]);
        }
    }
    gsvm_buf_free(&buf);
    for (size_t i = 0; i < n; i++)
        lsl_value_release(&a[i]);
    if (h1.used != 0 || h2.used != 0)
        abort();
    return 0;
}
