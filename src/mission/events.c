/* Event kinds (from events.def), event records and their queues, and the
 * JSON form runtime events take in the store. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mission/internal.h"

static const struct {
    const char *name;
    bool reaches;
    int first_report;
} kinds[EV_COUNT] = {
#define EVENT(idx, name, reaches, fr, doc) [idx] = {#name, reaches, fr},
#include "mission/events.def"
#undef EVENT
};

const char *gsvm_mission_event_name(int kind)
{
    return kind >= 0 && kind < EV_COUNT ? kinds[kind].name : NULL;
}

int gsvm_mission_event_kind(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < EV_COUNT; i++)
        if (kinds[i].name[0] == name[0] && strcmp(kinds[i].name, name) == 0)
            return i;
    return -1;
}

bool ms_event_reaches_script(int kind) { return kind >= 0 && kind < EV_COUNT && kinds[kind].reaches; }
int ms_event_first_report_rule(int kind)
{
    return kind >= 0 && kind < EV_COUNT ? kinds[kind].first_report : FR_NONE;
}

mevent *ms_mevent_new(int kind)
{
    mevent *e = calloc(1, sizeof *e);
    if (e) {
        e->kind = kind;
        e->source_generation = 1;
    }
    return e;
}

void ms_mevent_free(mevent *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->nf; i++)
        free(e->f[i].s);
    free(e->f);
    free(e);
}

static mfield *field_slot(mevent *e, const char *name)
{
    for (int i = 0; i < e->nf; i++)
        if (strcmp(e->f[i].name, name) == 0) {
            free(e->f[i].s);
            e->f[i].s = NULL;
            return &e->f[i];
        }
    if (strlen(name) >= sizeof e->f[0].name)
        return NULL;
    if (e->nf == e->capf) {
        int nc = e->capf ? e->capf * 2 : 8;
        mfield *nf = realloc(e->f, (size_t)nc * sizeof *nf);
        if (!nf)
            return NULL;
        e->f = nf;
        e->capf = nc;
    }
    mfield *f = &e->f[e->nf++];
    memset(f, 0, sizeof *f);
    strcpy(f->name, name);
    return f;
}

bool ms_mevent_set_int(mevent *e, const char *name, int64_t v)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    f->type = EF_INT;
    f->i = v;
    return true;
}

bool ms_mevent_set_num(mevent *e, const char *name, double v)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    f->type = EF_NUM;
    f->n = v;
    return true;
}

bool ms_mevent_set_bool(mevent *e, const char *name, bool v)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    f->type = EF_BOOL;
    f->b = v;
    return true;
}

bool ms_mevent_set_nil(mevent *e, const char *name)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    f->type = EF_NIL;
    return true;
}

bool ms_mevent_set_str(mevent *e, const char *name, const char *s, size_t len)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    if (len < sizeof f->small) {
        memcpy(f->small, s, len);
        f->small[len] = 0;
    } else if (!(f->s = gsvm_dup_bytes(s, len))) {
        f->type = EF_NIL;
        return false;
    }
    f->len = len;
    f->type = EF_STR;
    return true;
}

bool ms_mevent_set_key(mevent *e, const char *name, uint64_t key)
{
    mfield *f = field_slot(e, name);
    if (!f)
        return false;
    f->type = EF_KEY;
    f->i = (int64_t)key;
    return true;
}

const mfield *ms_mevent_get(const mevent *e, const char *name)
{
    for (int i = 0; i < e->nf; i++)
        if (strcmp(e->f[i].name, name) == 0)
            return &e->f[i];
    return NULL;
}

/* A stored runtime event: {"kind":K,"attempt":A,"slot":R,"fields":[[name,type,value],...]} */
char *ms_mevent_encode(const mevent *e)
{
    json_t *o = json_object(), *fs = json_array();
    json_object_set_new(o, "kind", json_integer(e->kind));
    json_object_set_new(o, "attempt", json_integer((json_int_t)e->attempt));
    json_object_set_new(o, "slot", json_integer(e->slot_row));
    for (int i = 0; i < e->nf; i++) {
        const mfield *f = &e->f[i];
        json_t *v;
        switch (f->type) {
        case EF_BOOL: v = json_boolean(f->b); break;
        case EF_INT:
        case EF_KEY: v = json_integer(f->i); break;
        case EF_NUM: v = json_real(f->n); break;
        case EF_STR:
            /* UTF-8 text (NUL included) as a string; other bytes as hex, so
             * a report of any bytes comes back from the store as it was. */
            v = json_stringn(ms_mfield_str(f), f->len);
            if (!v) {
                char *hex = malloc(2 * f->len + 1);
                if (hex) {
                    for (size_t k = 0; k < f->len; k++)
                        snprintf(hex + 2 * k, 3, "%02x", (unsigned char)ms_mfield_str(f)[k]);
                    v = json_pack("{s:s}", "hex", hex);
                    free(hex);
                }
            }
            break;
        default: v = json_null(); break;
        }
        json_array_append_new(fs, json_pack("[s,i,o]", f->name, f->type, v));
    }
    json_object_set_new(o, "fields", fs);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

mevent *ms_mevent_decode(const char *text, size_t len)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_ALLOW_NUL, &je);
    if (!o)
        return NULL;
    mevent *e = NULL;
    json_t *k = json_object_get(o, "kind"), *a = json_object_get(o, "attempt"),
           *sl = json_object_get(o, "slot"), *fs = json_object_get(o, "fields");
    if (!json_is_integer(k) || json_integer_value(k) < 0 || json_integer_value(k) >= EV_COUNT ||
        !json_is_integer(a) || !json_is_integer(sl) || !json_is_array(fs))
        goto out;
    e = ms_mevent_new((int)json_integer_value(k));
    if (!e)
        goto out;
    e->attempt = (uint64_t)json_integer_value(a);
    json_int_t row = json_integer_value(sl);
    e->slot_row = row < 0 || row > 1000000 ? 0 : (int)row;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        const char *name;
        int type;
        json_t *v;
        if (json_unpack(f, "[s,i,o]", &name, &type, &v) != 0 || strlen(name) >= 40)
            goto bad;
        bool ok = true;
        switch (type) {
        case EF_BOOL: ok = json_is_boolean(v) && ms_mevent_set_bool(e, name, json_is_true(v)); break;
        case EF_INT: ok = json_is_integer(v) && ms_mevent_set_int(e, name, json_integer_value(v)); break;
        case EF_KEY: ok = json_is_integer(v) && ms_mevent_set_key(e, name, (uint64_t)json_integer_value(v)); break;
        case EF_NUM: ok = json_is_number(v) && ms_mevent_set_num(e, name, json_number_value(v)); break;
        case EF_STR:
            if (json_is_string(v)) {
                ok = ms_mevent_set_str(e, name, json_string_value(v), json_string_length(v));
            } else {
                json_t *h = json_object_get(v, "hex");
                const char *x = json_string_value(h);
                size_t n = json_string_length(h);
                char *bytes = x && n % 2 == 0 && json_object_size(v) == 1 ? malloc(n / 2 + 1) : NULL;
                ok = bytes != NULL;
                for (size_t q = 0; ok && q < n / 2; q++) {
                    unsigned b;
                    ok = sscanf(x + 2 * q, "%2x", &b) == 1 && isxdigit((unsigned char)x[2 * q]) &&
                         isxdigit((unsigned char)x[2 * q + 1]);
                    bytes[q] = (char)b;
                }
                ok = ok && ms_mevent_set_str(e, name, bytes, n / 2);
                free(bytes);
            }
            break;
        case EF_NIL: ok = ms_mevent_set_nil(e, name); break;
        default: ok = false;
        }
        if (!ok)
            goto bad;
    }
    goto out;
bad:
    ms_mevent_free(e);
    e = NULL;
out:
    json_decref(o);
    return e;
}

void ms_mqueue_push(mqueue *q, mevent *e)
{
    e->next = NULL;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    q->n++;
}

mevent *ms_mqueue_pop(mqueue *q)
{
    mevent *e = q->head;
    if (!e)
        return NULL;
    q->head = e->next;
    if (!q->head)
        q->tail = NULL;
    q->n--;
    e->next = NULL;
    return e;
}

void ms_mqueue_clear(mqueue *q)
{
    mevent *e;
    while ((e = ms_mqueue_pop(q)))
        ms_mevent_free(e);
}
