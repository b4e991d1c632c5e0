#include "base/natives.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"

const char *gsvm_native_latent_name(gsvm_native_latent l)
{
    static const char *const names[] = {"null", "time", "event", "frame", "anim"};
    return (unsigned)l < sizeof names / sizeof *names ? names[l] : "?";
}

/* ---- positions --------------------------------------------------------
 * jansson gives positions for syntax errors only, but a declaration error
 * ("unknown type word") must name the line:column of its value too.  Once
 * the whole text has parsed, these walk it again and let jansson measure
 * each value (JSON_DISABLE_EOF_CHECK reports how many bytes one value
 * took), so no second JSON grammar lives here: the walk only skips the
 * whitespace, ':' and ',' between values it already knows are valid. */

typedef struct text_ref {
    const char *t;
    size_t len;
} text_ref;

static size_t skip_ws(text_ref tx, size_t p)
{
    while (p < tx.len && (tx.t[p] == ' ' || tx.t[p] == '\t' || tx.t[p] == '\n' || tx.t[p] == '\r'))
        p++;
    return p;
}

/* The value at `p`: its end offset, and (when `as` is not NULL) the value. */
static size_t value_end(text_ref tx, size_t p, json_t **as)
{
    json_error_t je;
    json_t *v = json_loadb(tx.t + p, tx.len - p, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &je);
    if (!v)
        return tx.len; /* cannot happen on text that parsed whole */
    if (as)
        *as = v;
    else
        json_decref(v);
    return p + (size_t)je.position;
}

/* In the container at `p` ('{' or '['): the offset of the value under `key`
 * (objects) or at `index` (arrays); `p` itself when it is not found. */
static size_t child_at(text_ref tx, size_t p, const char *key, size_t index)
{
    if (p >= tx.len || (tx.t[p] != '{' && tx.t[p] != '['))
        return p;
    bool object = tx.t[p] == '{';
    size_t q = skip_ws(tx, p + 1);
    for (size_t i = 0; q < tx.len && tx.t[q] != '}' && tx.t[q] != ']'; i++) {
        bool match = !object && i == index;
        if (object) {
            json_t *k = NULL;
            q = skip_ws(tx, value_end(tx, q, &k));
            /* key is NULL when the caller wants an array element but the
             * text offset it holds is an object's (a text the offsets lost
             * step with, e.g. one with a NUL byte): nothing matches. */
            match = key && k && json_is_string(k) && strcmp(json_string_value(k), key) == 0;
            json_decref(k);
            q = skip_ws(tx, q + 1); /* the ':' */
        }
        if (match)
            return q;
        q = skip_ws(tx, value_end(tx, q, NULL));
        if (q < tx.len && tx.t[q] == ',')
            q = skip_ws(tx, q + 1);
    }
    return p;
}

/* The offsets of every element of the array at `p` (n of them). */
static void array_offsets(text_ref tx, size_t p, size_t *offs, size_t n)
{
    size_t q = skip_ws(tx, p + 1);
    for (size_t i = 0; i < n && q < tx.len; i++) {
        offs[i] = q;
        q = skip_ws(tx, value_end(tx, q, NULL));
        if (q < tx.len && tx.t[q] == ',')
            q = skip_ws(tx, q + 1);
    }
}

/* 1-based line and column of byte `p`, counting characters (not UTF-8
 * continuation bytes) as jansson does. */
static void line_col(text_ref tx, size_t p, long *line, long *col)
{
    long l = 1, c = 1;
    for (size_t i = 0; i < p && i < tx.len; i++) {
        if (tx.t[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)tx.t[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* ---- the declarations ------------------------------------------------ */

typedef struct parse_ctx {
    text_ref tx;
    const char *file;
    gsvm_native_types types;
    gsvm_error *err;
} parse_ctx;

static gsvm_status fail_at(parse_ctx *c, size_t p, const char *fmt, const char *a, const char *b)
{
    long line, col;
    line_col(c->tx, p, &line, &col);
    char msg[400];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    return gsvm_error_at_line(c->err, GSVM_ERR_INPUT, c->file, line, col, "%s", msg);
}

static int type_index(gsvm_native_types types, const char *word, size_t n)
{
    for (int i = 0; types[i] && i < 255; i++)
        if (strlen(types[i]) == n && memcmp(types[i], word, n) == 0)
            return i;
    return -1;
}

static void decl_free(gsvm_native_decl *d)
{
    free(d->name);
    free(d->arg_types);
    json_decref(d->answer);
    memset(d, 0, sizeof *d);
}

static const char *const known_keys[] = {"name", "args", "result", "out", "latent",
                                         "needs_script_stack", "answer", NULL};

static gsvm_status parse_args(parse_ctx *c, size_t at, const json_t *args, gsvm_native_decl *d)
{
    size_t n = json_array_size(args);
    if (n > GSVM_NATIVE_MAX_ARGS)
        return fail_at(c, at, "more than 64 arguments%s%s", NULL, NULL);
    d->arg_types = malloc(n ? n : 1);
    if (!d->arg_types)
        return gsvm_error_set(c->err, GSVM_ERR_NOMEM, c->file, "out of memory");
    bool optional_seen = false;
    d->min_args = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(args, i);
        size_t ap = child_at(c->tx, at, NULL, i);
        if (!json_is_string(a))
            return fail_at(c, ap, "an argument is a type word (a string)%s%s", NULL, NULL);
        const char *w = json_string_value(a);
        size_t wl = json_string_length(a);
        if (strcmp(w, "varargs") == 0) {
            if (i + 1 != n)
                return fail_at(c, ap, "\"varargs\" must be the last argument%s%s", NULL, NULL);
            d->varargs = true;
            break;
        }
        bool opt = wl > 0 && w[wl - 1] == '?';
        int t = type_index(c->types, w, opt ? wl - 1 : wl);
        if (t < 0)
            return fail_at(c, ap, "unknown type word \"%s\"%s", w, NULL);
        if (opt)
            optional_seen = true;
        else if (optional_seen)
            return fail_at(c, ap, "a required argument \"%s\" after an optional one%s", w, NULL);
        else
            d->min_args++;
        d->arg_types[d->nargs++] = (uint8_t)t;
    }
    return GSVM_OK;
}

static gsvm_status parse_decl(parse_ctx *c, size_t at, json_t *o, gsvm_native_decl *d)
{
    line_col(c->tx, at, &d->line, &d->column);
    d->result = -1;
    d->out = -1;
    if (!json_is_object(o))
        return fail_at(c, at, "a declaration is an object {\"name\": ..., \"args\": [...]}%s%s",
                       NULL, NULL);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        bool known = false;
        for (int i = 0; known_keys[i]; i++)
            known = known || strcmp(key, known_keys[i]) == 0;
        if (!known)
            return fail_at(c, child_at(c->tx, at, key, 0), "unknown field \"%s\"%s", key, NULL);
    }
    json_t *name = json_object_get(o, "name");
    if (!json_is_string(name) || json_string_length(name) == 0 ||
        json_string_length(name) > GSVM_NATIVE_MAX_NAME ||
        strlen(json_string_value(name)) != json_string_length(name))
        return fail_at(c, name ? child_at(c->tx, at, "name", 0) : at,
                       "\"name\" must be a non-empty string of at most 255 bytes%s%s", NULL, NULL);
    d->name = strdup(json_string_value(name));
    if (!d->name)
        return gsvm_error_set(c->err, GSVM_ERR_NOMEM, c->file, "out of memory");

    json_t *args = json_object_get(o, "args");
    size_t args_at = child_at(c->tx, at, "args", 0);
    if (args && !json_is_array(args))
        return fail_at(c, args_at, "\"args\" must be an array of type words%s%s", NULL, NULL);
    if (args) {
        gsvm_status st = parse_args(c, args_at, args, d);
        if (st != GSVM_OK)
            return st;
    } else if (!(d->arg_types = malloc(1))) {
        return gsvm_error_set(c->err, GSVM_ERR_NOMEM, c->file, "out of memory");
    }

    json_t *res = json_object_get(o, "result");
    if (res && !json_is_null(res)) {
        size_t rp = child_at(c->tx, at, "result", 0);
        if (!json_is_string(res))
            return fail_at(c, rp, "\"result\" must be a type word or null%s%s", NULL, NULL);
        d->result = type_index(c->types, json_string_value(res), json_string_length(res));
        if (d->result < 0)
            return fail_at(c, rp, "unknown type word \"%s\"%s", json_string_value(res), NULL);
    }
    json_t *out = json_object_get(o, "out");
    if (out && !json_is_null(out)) {
        size_t op = child_at(c->tx, at, "out", 0);
        if (!json_is_integer(out) || json_integer_value(out) < 0 ||
            json_integer_value(out) >= (json_int_t)d->nargs)
            return fail_at(c, op, "\"out\" must be the index of a declared argument%s%s", NULL,
                           NULL);
        d->out = (int)json_integer_value(out);
    }
    json_t *lat = json_object_get(o, "latent");
    if (lat && !json_is_null(lat)) {
        size_t lp = child_at(c->tx, at, "latent", 0);
        int k = -1;
        for (int i = GSVM_NATIVE_WAIT_TIME; i <= GSVM_NATIVE_WAIT_ANIM; i++)
            if (json_is_string(lat) &&
                strcmp(json_string_value(lat), gsvm_native_latent_name((gsvm_native_latent)i)) == 0)
                k = i;
        if (k < 0)
            return fail_at(c, lp,
                           "\"latent\" must be null, \"time\", \"event\", \"frame\" or \"anim\"%s%s",
                           NULL, NULL);
        d->latent = (gsvm_native_latent)k;
    }
    json_t *nss = json_object_get(o, "needs_script_stack");
    if (nss) {
        if (!json_is_boolean(nss))
            return fail_at(c, child_at(c->tx, at, "needs_script_stack", 0),
                           "\"needs_script_stack\" must be true or false%s%s", NULL, NULL);
        d->needs_script_stack = json_is_true(nss);
    }
    json_t *ans = json_object_get(o, "answer");
    if (ans)
        d->answer = json_incref(ans);
    return GSVM_OK;
}

bool gsvm_native_accepts(const gsvm_native_decl *d, uint32_t argc)
{
    return argc >= d->min_args && (d->varargs || argc <= d->nargs);
}

/* Do two declarations accept a common argument count? */
static bool overlap(const gsvm_native_decl *a, const gsvm_native_decl *b)
{
    uint32_t lo = a->min_args > b->min_args ? a->min_args : b->min_args;
    return gsvm_native_accepts(a, lo) && gsvm_native_accepts(b, lo);
}

gsvm_status gsvm_natives_parse(const char *text, size_t len, const char *file,
                               gsvm_native_types types, gsvm_natives *out, gsvm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!file)
        file = "<natives>";
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, file, je.line > 0 ? je.line : 1,
                                  je.column > 0 ? je.column : 1, "invalid JSON: %s", je.text);
    parse_ctx c = {{text, len}, file, types, err};
    size_t root_at = skip_ws(c.tx, 0);
    json_t *list = json_is_object(root) ? json_object_get(root, "natives") : NULL;
    if (!json_is_array(list)) {
        json_decref(root);
        return fail_at(&c, list ? child_at(c.tx, root_at, "natives", 0) : root_at,
                       "expected an object {\"natives\": [...]}%s%s", NULL, NULL);
    }
    size_t n = json_array_size(list);
    size_t list_at = child_at(c.tx, root_at, "natives", 0);
    if (n > GSVM_NATIVE_MAX_DECLS) {
        json_decref(root);
        return fail_at(&c, list_at, "more than 65536 declarations%s%s", NULL, NULL);
    }
    size_t *offs = calloc(n ? n : 1, sizeof *offs);
    out->decls = calloc(n ? n : 1, sizeof *out->decls);
    gsvm_status st = GSVM_OK;
    if (!offs || !out->decls)
        st = gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    else
        array_offsets(c.tx, list_at, offs, n);
    for (size_t i = 0; st == GSVM_OK && i < n; i++) {
        st = parse_decl(&c, offs[i], json_array_get(list, i), &out->decls[i]);
        out->count = (uint32_t)i + 1;
        for (size_t j = 0; st == GSVM_OK && j < i; j++)
            if (strcmp(out->decls[i].name, out->decls[j].name) == 0 &&
                overlap(&out->decls[i], &out->decls[j])) {
                char where[64];
                snprintf(where, sizeof where, "%ld:%ld", out->decls[j].line,
                         out->decls[j].column);
                st = fail_at(&c, offs[i], "\"%s\" is declared for the same argument count at %s",
                             out->decls[i].name, where);
            }
    }
    free(offs);
    json_decref(root);
    if (st != GSVM_OK) {
        gsvm_natives_free(out);
        return st;
    }
    snprintf(out->file, sizeof out->file, "%s", file);
    return GSVM_OK;
}

gsvm_status gsvm_natives_load(const char *path, gsvm_native_types types, gsvm_natives *out,
                              gsvm_error *err)
{
    memset(out, 0, sizeof *out);
    gsvm_buf b;
    gsvm_status st = gsvm_file_read(path, &b, err);
    if (st != GSVM_OK)
        return st;
    st = gsvm_natives_parse((const char *)b.data, b.len, path, types, out, err);
    gsvm_buf_free(&b);
    return st;
}

void gsvm_natives_free(gsvm_natives *n)
{
    if (!n)
        return;
    for (uint32_t i = 0; i < n->count; i++)
        decl_free(&n->decls[i]);
    free(n->decls);
    memset(n, 0, sizeof *n);
}

const gsvm_native_decl *gsvm_natives_find(const gsvm_natives *n, const char *name, uint32_t argc)
{
    for (uint32_t i = 0; i < n->count; i++)
        if (gsvm_native_accepts(&n->decls[i], argc) && strcmp(n->decls[i].name, name) == 0)
            return &n->decls[i];
    return NULL;
}

const gsvm_native_decl *gsvm_natives_find_name(const gsvm_natives *n, const char *name)
{
    for (uint32_t i = 0; i < n->count; i++)
        if (strcmp(n->decls[i].name, name) == 0)
            return &n->decls[i];
    return NULL;
}
