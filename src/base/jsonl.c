#include "base/jsonl.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"

gsvm_status gsvm_jsonl_next(const char *text, size_t len, const char *name, size_t *pos, long *line,
                            json_t **out, gsvm_error *err)
{
    *out = NULL;
    while (*pos < len) {
        (*line)++;
        const char *start = text + *pos;
        const char *nl = memchr(start, '\n', len - *pos);
        size_t n = nl ? (size_t)(nl - start) : len - *pos;
        *pos += n + (nl ? 1 : 0);
        size_t skip = 0;
        while (skip < n && (start[skip] == ' ' || start[skip] == '\t' || start[skip] == '\r'))
            skip++;
        if (skip == n)
            continue;
        json_error_t je;
        json_t *v = json_loadb(start, n, 0, &je);
        if (!v)
            return gsvm_error_at_line(err, GSVM_ERR_INPUT, name, *line, je.column > 0 ? je.column : 1,
                                      "invalid JSON: %s", je.text);
        if (!json_is_object(v)) {
            json_decref(v);
            return gsvm_error_at_line(err, GSVM_ERR_INPUT, name, *line, (long)skip + 1,
                                      "expected a JSON object on each line");
        }
        *out = v;
        return GSVM_OK;
    }
    return GSVM_OK;
}

gsvm_status gsvm_jsonl_parse_lines(const char *text, size_t len, const char *name, json_t **out,
                                   long **lines, gsvm_error *err)
{
    json_t *all = json_array();
    long *at = NULL;
    size_t cap = 0;
    if (!all)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, name, "out of memory");
    size_t pos = 0;
    long line = 0;
    for (;;) {
        json_t *v;
        if (gsvm_jsonl_next(text, len, name, &pos, &line, &v, err) != GSVM_OK) {
            free(at);
            json_decref(all);
            return err->status;
        }
        if (!v)
            break;
        if (lines && json_array_size(all) == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            long *grown = realloc(at, ncap * sizeof *at);
            if (!grown) {
                json_decref(v);
                free(at);
                json_decref(all);
                return gsvm_error_set(err, GSVM_ERR_NOMEM, name, "out of memory");
            }
            at = grown;
            cap = ncap;
        }
        if (lines)
            at[json_array_size(all)] = line;
        json_array_append_new(all, v);
    }
    *out = all;
    if (lines)
        *lines = at;
    return GSVM_OK;
}

gsvm_status gsvm_jsonl_parse(const char *text, size_t len, const char *name, json_t **out,
                             gsvm_error *err)
{
    return gsvm_jsonl_parse_lines(text, len, name, out, NULL, err);
}

gsvm_status gsvm_jsonl_load_lines(const char *path, json_t **out, long **lines, gsvm_error *err)
{
    gsvm_buf text;
    gsvm_status st = gsvm_file_read(path, &text, err);
    if (st != GSVM_OK)
        return st;
    st = gsvm_jsonl_parse_lines((const char *)text.data, text.len, path, out, lines, err);
    gsvm_buf_free(&text);
    return st;
}

gsvm_status gsvm_jsonl_load(const char *path, json_t **out, gsvm_error *err)
{
    return gsvm_jsonl_load_lines(path, out, NULL, err);
}

void gsvm_jsonl_emit(FILE *out, json_t *obj)
{
    char *s = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    if (s) {
        fputs(s, out);
        fputc('\n', out);
        free(s);
    }
    fflush(out);
    json_decref(obj);
}
