/* The SCRI payload that wraps a world layer's script:
 * "SCRI" | u32 version (1) | u8 flag | u32 length | body, little endian;
 * flag 1 = Lua source text, flag 0 = HavokScript bytecode. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "gsvm/hks.h"

gsvm_status gsvm_hks_scri_unpack(const uint8_t *data, size_t len, const char *file,
                                 gsvm_hks_scri *out, gsvm_error *err)
{
    memset(out, 0, sizeof *out);
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, file, err);
    const uint8_t *magic;
    uint8_t flag;
    uint32_t version, length;
    if (!gsvm_read_bytes(&r, 4, &magic, "SCRI magic"))
        return GSVM_ERR_INPUT;
    if (memcmp(magic, "SCRI", 4) != 0)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, 0, "expected the magic \"SCRI\"");
    if (!gsvm_read_u32(&r, &version, "SCRI version"))
        return GSVM_ERR_INPUT;
    if (version != 1)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, 4,
                                    "SCRI version is %u; expected 1", version);
    if (!gsvm_read_u8(&r, &flag, "SCRI flag"))
        return GSVM_ERR_INPUT;
    if (flag > 1)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, 8,
                                    "SCRI flag is %u; expected 0 (bytecode) or 1 (source)", flag);
    if (!gsvm_read_u32(&r, &length, "SCRI body length"))
        return GSVM_ERR_INPUT;
    const uint8_t *body;
    if (!gsvm_read_bytes(&r, length, &body, "SCRI body"))
        return GSVM_ERR_INPUT;
    if (flag == 0 && (length < 4 || memcmp(body, "\x1bLua", 4) != 0))
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, 13,
                                    "SCRI flag 0 (bytecode) but the body does not start with "
                                    "\"\\x1bLua\"");
    out->version = version;
    out->flag = flag;
    out->body = body;
    out->body_len = length;
    out->trailing = gsvm_reader_left(&r);
    return GSVM_OK;
}

gsvm_status gsvm_hks_scri_pack(uint8_t flag, const uint8_t *body, size_t body_len, uint8_t **out,
                               size_t *out_len, gsvm_error *err)
{
    if (flag > 1)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "SCRI flag must be 0 or 1");
    if (body_len > UINT32_MAX)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "body longer than 4 GiB");
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, "SCRI", 4);
    gsvm_buf_u32(&b, 1, false);
    gsvm_buf_u8(&b, flag);
    gsvm_buf_u32(&b, (uint32_t)body_len, false);
    gsvm_buf_append(&b, body, body_len);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *out = gsvm_buf_take(&b, out_len);
    return GSVM_OK;
}
