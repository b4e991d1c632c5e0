/* The world-layer runtime: a layer script run the way the game runs it
 * (seed 000, "World scripts", "The running-script stack", "Records and
 * natives from script").
 *
 * - The layer's chunk is installed once per process per script id (the
 *   `reinstall` cache); installing it again reuses the loaded function.
 *   Its main function runs as LoadBuffer + Pcall do: no running-script
 *   entry is pushed.  It leaves _G.loadedresource, the layer's section.
 * - Objects named *.SC are StartupCommands: their _<prefab>_SC_Script_<hash>
 *   entries start as script threads function(self, threadId, scriptId).
 * - LithThreadSleep(threadId, seconds) suspends a thread on simulated time;
 *   advancing the clock wakes sleepers in deadline order, a paused world
 *   wakes none.
 * - ScriptBind entries map (object, event) to a function of the section;
 *   a dispatch pushes the running script's name (at most 16 deep, "Invalid"
 *   when it has none) and pops it after.
 * - DB<Kind>.Name finds a record by the name's hash and a binary search of
 *   the kind's category; a missing record is nil.
 * - Natives come from a declarations file (src/base/natives): the argument
 *   count and shape are checked, a wrong shape faults the script naming the
 *   native, the argument and what was expected (the game would crash);
 *   natives declared needs_script_stack fault outside a dispatched handler
 *   with the game's "This function should only be called from script code".
 * Every call across the host boundary is one JSON line.  This file holds the
 * world, its natives and records and the install; world_run.c the script
 * threads, simulated time and event dispatch. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/world_int.h"

/* FNV-1a, 32 bits: the hash records are sorted by (the game's own name hash
 * is not documented; any fixed hash gives the same lookup behaviour). */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 16777619u;
    }
    return h;
}

void w_emit(gsvm_hks_world *w, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
    if (s && w->emit)
        w->emit(w->emit_ctx, s);
    free(s);
    json_decref(o);
}

static json_t *to_json(hv_thread *L, const hv_value *v)
{
    switch (v->tt) {
    case HV_TNIL: return json_null();
    case HV_TBOOL: return json_boolean(v->v.b);
    case HV_TNUM: {
        double d = v->v.n;
        if (d == (double)(json_int_t)d && d > -9e15 && d < 9e15)
            return json_integer((json_int_t)d);
        return json_real(d);
    }
    case HV_TSTR: return json_stringn(hv_strv(v)->data, hv_strv(v)->len);
    case HV_TTAB: {
        const hv_value *k = hv_table_getstr(hv_tabv(v), hv_str_cstr(L, "__record"));
        if (k->tt == HV_TSTR)
            return json_stringn(hv_strv(k)->data, hv_strv(k)->len);
        return json_string("<table>");
    }
    default: return json_string(hv_typename(v));
    }
}

void w_push_json(hv_thread *L, json_t *j)
{
    if (json_is_boolean(j))
        hv_pushbool(L, json_is_true(j));
    else if (json_is_number(j))
        hv_pushnum(L, hv_round(L->vm, json_number_value(j)));
    else if (json_is_string(j))
        hv_pushlstr(L, json_string_value(j), json_string_length(j));
    else
        hv_pushnil(L);
}

/* ---- the running-script stack ---- */

void w_script_push(gsvm_hks_world *w, const char *name)
{
    if (w->depth < SCRIPT_STACK_MAX) {
        snprintf(w->script_stack[w->depth], sizeof w->script_stack[0], "%.*s",
                 (int)sizeof w->script_stack[0] - 1, name && name[0] ? name : "Invalid");
    }
    w->depth++;
}

void w_script_pop(gsvm_hks_world *w)
{
    if (w->depth > 0)
        w->depth--;
}

/* ---- natives ---- */

static const char *const base_words[] = {"number", "string", "boolean", "table", "function",
                                         "any", "record", NULL};
enum { W_NUMBER, W_STRING, W_BOOLEAN, W_TABLE, W_FUNCTION, W_ANY, W_RECORD, W_BASE_N };

static const char *shape_name(gsvm_hks_world *w, unsigned t, char *buf, size_t n)
{
    if (t < W_BASE_N)
        return base_words[t];
    snprintf(buf, n, "record of kind %s", w->type_words[t] + 7);
    return buf;
}

static bool shape_ok(gsvm_hks_world *w, hv_thread *L, unsigned t, const hv_value *v)
{
    switch (t) {
    case W_NUMBER: return v->tt == HV_TNUM;
    case W_STRING: return v->tt == HV_TSTR;
    case W_BOOLEAN: return v->tt == HV_TBOOL;
    case W_TABLE: return v->tt == HV_TTAB;
    case W_FUNCTION: return v->tt == HV_TLFN || v->tt == HV_TCFN;
    case W_ANY: return true;
    default: {
        if (v->tt != HV_TTAB)
            return false;
        const hv_value *k = hv_table_getstr(hv_tabv(v), hv_str_cstr(L, "__kind"));
        if (t == W_RECORD)
            return k->tt == HV_TSTR;
        return k->tt == HV_TSTR && strcmp(hv_strv(k)->data, w->type_words[t] + 7) == 0;
    }
    }
}

static int w_native(hv_thread *L, int n)
{
    hv_cfn *self = (hv_cfn *)L->stack[L->base - 1].v.gc;
    gsvm_hks_world *w = ((gsvm_hks_vm *)L->vm->host)->world;
    const char *name = self->name;
    const gsvm_native_decl *d = gsvm_natives_find(&w->natives, name, (uint32_t)n);
    json_t *args = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(args, to_json(L, HV_ARG(L, i)));
    json_t *line = json_pack("{s:s,s:o}", "host", name, "args", args);
    if (!d) {
        w_emit(w, line);
        const gsvm_native_decl *any = gsvm_natives_find_name(&w->natives, name);
        hv_error(L, "%s: called with %d arguments; declared for %u%s", name, n,
                 any ? any->nargs : 0, any && any->varargs ? " or more" : "");
    }
    for (int i = 0; i < n && (uint32_t)i < d->nargs; i++) {
        hv_value *v = HV_ARG(L, i);
        bool optional = (uint32_t)i >= d->min_args;
        if (optional && hv_isnil(v))
            continue;
        if (!shape_ok(w, L, d->arg_types[i], v)) {
            char b[96];
            w_emit(w, line);
            hv_error(L, "%s: argument %d: expected %s, got %s", name, i + 1,
                     shape_name(w, d->arg_types[i], b, sizeof b), hv_typename(v));
        }
    }
    if (d->needs_script_stack && w->depth == 0) {
        w_emit(w, line);
        hv_error(L, "%s: This function should only be called from script code", name);
    }
    if (d->needs_script_stack)
        json_object_set_new(line, "script", json_string(w->script_stack[w->depth > 16 ? 15 : w->depth - 1]));
    /* the answer: a timeline answer line first, else the declaration's */
    json_t *ans = NULL;
    for (uint32_t i = 0; i < w->nanswers; i++) {
        if (strcmp(w->answers[i].native, name) == 0) {
            ans = w->answers[i].value;
            free(w->answers[i].native);
            memmove(&w->answers[i], &w->answers[i + 1], (w->nanswers - i - 1) * sizeof *w->answers);
            w->nanswers--;
            break;
        }
    }
    int nres = 0;
    if (ans || d->answer || d->result >= 0) {
        json_t *v = ans ? ans : d->answer;
        if (v) {
            json_object_set(line, "result", v);
            w_push_json(L, v);
        } else {
            json_object_set_new(line, "result", json_null());
            hv_pushnil(L);
        }
        nres = 1;
    }
    if (ans)
        json_decref(ans);
    w_emit(w, line);
    return nres;
}

/* LithThreadSleep(threadId, seconds): suspends the running script thread. */
static int w_sleep(hv_thread *L, int n)
{
    gsvm_hks_world *w = ((gsvm_hks_vm *)L->vm->host)->world;
    double id = hv_checknum(L, n, 0, "LithThreadSleep");
    double secs = hv_checknum(L, n, 1, "LithThreadSleep");
    w_thread *t = w->current;
    if (!t || L != t->co || L->nny > 0)
        hv_error(L, "LithThreadSleep: not called from a running script thread");
    if ((int)id != t->id)
        hv_error(L, "LithThreadSleep: thread %d is not the running thread (%d)", (int)id, t->id);
    if (secs < 0 || secs != secs)
        secs = 0;
    t->wake_ms = w->now_ms + (uint64_t)(secs * 1000.0 + 0.5);
    t->sleeping = true;
    w_emit(w, json_pack("{s:i,s:I}", "sleep", t->id, "until_ms", (json_int_t)t->wake_ms));
    L->base = L->top; /* yields nothing */
    return -1;
}

/* ---- records ---- */

static int rec_index(hv_thread *L, int n)
{
    gsvm_hks_world *w = ((gsvm_hks_vm *)L->vm->host)->world;
    hv_table *t = hv_checktab(L, n, 0, "record lookup");
    if (n < 2 || HV_ARG(L, 1)->tt != HV_TSTR) {
        hv_pushnil(L);
        return 1;
    }
    const hv_value *kn = hv_table_getstr(t, hv_str_cstr(L, "__lua_name"));
    const char *kind_name = kn->tt == HV_TSTR ? hv_strv(kn)->data : "";
    w_record_kind *k = NULL;
    for (uint32_t i = 0; i < w->nkinds; i++)
        if (strcmp(w->kinds[i].lua_name, kind_name) == 0)
            k = &w->kinds[i];
    const char *name = hv_strv(HV_ARG(L, 1))->data;
    uint32_t h = name_hash(name);
    int64_t lo = 0, hi = k ? (int64_t)k->n - 1 : -1, found = -1;
    int probes = 0;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        probes++;
        if (k->hash[mid] < h)
            lo = mid + 1;
        else if (k->hash[mid] > h)
            hi = mid - 1;
        else {
            /* equal hashes: the neighbours with the same hash, by name */
            int64_t s = mid;
            while (s > 0 && k->hash[s - 1] == h)
                s--;
            for (; s < (int64_t)k->n && k->hash[s] == h; s++)
                if (strcmp(k->names[s], name) == 0)
                    found = s;
            break;
        }
    }
    char full[320];
    snprintf(full, sizeof full, "%s.%s", kind_name, name);
    char hx[16];
    snprintf(hx, sizeof hx, "0x%08x", h);
    w_emit(w, json_pack("{s:s,s:s,s:s,s:i,s:b}", "record", full, "category",
                      k ? k->category : "", "hash", hx, "probes", probes, "found", found >= 0));
    if (found < 0) {
        hv_pushnil(L);
        return 1;
    }
    hv_table *r = hv_table_new(L, 0, 4);
    hv_value rv;
    hv_setgc(&rv, HV_TTAB, r);
    hv_push(L, &rv);
    hv_value v;
    hv_setgc(&v, HV_TSTR, hv_str_cstr(L, kind_name + 2));
    *hv_table_setstr(L, r, hv_str_cstr(L, "__kind")) = v;
    hv_setgc(&v, HV_TSTR, hv_str_cstr(L, full));
    *hv_table_setstr(L, r, hv_str_cstr(L, "__record")) = v;
    hv_setgc(&v, HV_TSTR, hv_str_cstr(L, name));
    *hv_table_setstr(L, r, hv_str_cstr(L, "name")) = v;
    hv_setnum(&v, (double)h);
    *hv_table_setstr(L, r, hv_str_cstr(L, "hash")) = v;
    return 1;
}

typedef struct setup_ud {
    gsvm_hks_world *w;
} setup_ud;

static void do_setup(hv_thread *L, void *ud)
{
    gsvm_hks_world *w = ((setup_ud *)ud)->w;
    hv_value v;
    hv_cfn *f = hv_cfn_new(L, w_sleep, "LithThreadSleep", 0);
    hv_setgc(&v, HV_TCFN, f);
    hv_set_path(L, "LithThreadSleep", &v);
    for (uint32_t i = 0; i < w->natives.count; i++) {
        const char *nm = w->natives.decls[i].name;
        hv_value cur = hv_get_path(L, nm);
        if (cur.tt == HV_TCFN)
            continue; /* an overload: one function serves every declaration */
        f = hv_cfn_new(L, w_native, nm, 0);
        hv_setgc(&v, HV_TCFN, f);
        hv_set_path(L, nm, &v);
    }
    hv_table *mt = hv_table_new(L, 0, 1);
    hv_cfn *ix = hv_cfn_new(L, rec_index, "record lookup", 0);
    hv_setgc(&v, HV_TCFN, ix);
    *hv_table_setstr(L, mt, L->vm->tmname[TM_INDEX]) = v;
    for (uint32_t i = 0; i < w->nkinds; i++) {
        hv_table *t = hv_table_new(L, 0, 1);
        t->meta = mt;
        hv_setgc(&v, HV_TSTR, hv_str_cstr(L, w->kinds[i].lua_name));
        *hv_table_setstr(L, t, hv_str_cstr(L, "__lua_name")) = v;
        hv_setgc(&v, HV_TTAB, t);
        hv_set_path(L, w->kinds[i].lua_name, &v);
    }
}

/* ---- creation from the world file ---- */

static char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

static gsvm_status world_err(gsvm_error *err, const char *file, const char *fmt, const char *a)
{
    return gsvm_error_set(err, GSVM_ERR_INPUT, file, fmt, a);
}

static int hash_order(const void *a, const void *b)
{
    const struct {
        uint32_t h;
        const char *n;
    } *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return strcmp(x->n, y->n);
}

static gsvm_status read_world(gsvm_hks_world *w, json_t *root, const char *file, gsvm_error *err)
{
    if (!json_is_object(root))
        return world_err(err, file, "%s", "the world must be a JSON object");
    json_t *recs = json_object_get(root, "records");
    if (recs) {
        if (!json_is_object(recs))
            return world_err(err, file, "%s", "\"records\" must be an object of kinds");
        w->kinds = calloc(json_object_size(recs) + 1, sizeof *w->kinds);
        const char *kname;
        json_t *kv;
        json_object_foreach(recs, kname, kv) {
            if (strncmp(kname, "DB", 2) != 0 || !kname[2])
                return world_err(err, file, "record kind \"%s\" must be named DB<Kind>", kname);
            json_t *names = json_object_get(kv, "names");
            json_t *cat = json_object_get(kv, "category");
            if (!json_is_array(names) || (cat && !json_is_string(cat)))
                return world_err(err, file,
                                 "record kind \"%s\" needs \"names\" (an array) and a string "
                                 "\"category\"",
                                 kname);
            w_record_kind *k = &w->kinds[w->nkinds++];
            k->lua_name = dupstr(kname);
            k->category = dupstr(cat ? json_string_value(cat) : kname + 2);
            size_t nn = json_array_size(names);
            struct {
                uint32_t h;
                const char *n;
            } *tmp = calloc(nn + 1, sizeof *tmp);
            k->hash = calloc(nn + 1, sizeof *k->hash);
            k->names = calloc(nn + 1, sizeof *k->names);
            if (!tmp || !k->hash || !k->names) {
                free(tmp);
                return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
            }
            for (size_t i = 0; i < nn; i++) {
                json_t *s = json_array_get(names, i);
                if (!json_is_string(s)) {
                    free(tmp);
                    return world_err(err, file, "record names of \"%s\" must be strings", kname);
                }
                tmp[i].n = json_string_value(s);
                tmp[i].h = name_hash(tmp[i].n);
            }
            qsort(tmp, nn, sizeof *tmp, hash_order); /* the category, sorted by name hash */
            for (size_t i = 0; i < nn; i++) {
                k->hash[i] = tmp[i].h;
                k->names[i] = dupstr(tmp[i].n);
            }
            k->n = (uint32_t)nn;
            free(tmp);
        }
    }
    json_t *objs = json_object_get(root, "objects");
    if (objs) {
        if (!json_is_array(objs))
            return world_err(err, file, "%s", "\"objects\" must be an array");
        w->objects = calloc(json_array_size(objs) + 1, sizeof *w->objects);
        size_t i;
        json_t *o;
        json_array_foreach(objs, i, o) {
            json_t *nm = json_object_get(o, "name");
            if (!json_is_string(nm))
                return world_err(err, file, "%s", "every object needs a string \"name\"");
            w_object *ob = &w->objects[w->nobjects++];
            ob->name = dupstr(json_string_value(nm));
            json_t *e = json_object_get(o, "entry");
            json_t *pf = json_object_get(o, "prefab"), *hs = json_object_get(o, "hash");
            if (json_is_string(e)) {
                ob->entry = dupstr(json_string_value(e));
            } else if (json_is_string(pf) && json_is_string(hs)) {
                char b[300];
                snprintf(b, sizeof b, "_%s_SC_Script_%s", json_string_value(pf),
                         json_string_value(hs));
                ob->entry = dupstr(b);
            }
        }
    }
    json_t *binds = json_object_get(root, "ScriptBind");
    if (binds) {
        if (!json_is_array(binds))
            return world_err(err, file, "%s", "\"ScriptBind\" must be an array");
        w->binds = calloc(json_array_size(binds) + 1, sizeof *w->binds);
        size_t i;
        json_t *b;
        json_array_foreach(binds, i, b) {
            json_t *o = json_object_get(b, "object"), *e = json_object_get(b, "event"),
                   *f = json_object_get(b, "function");
            if (!json_is_string(o) || !json_is_string(e) || !json_is_string(f))
                return world_err(err, file, "%s",
                                 "every ScriptBind entry needs \"object\", \"event\" and "
                                 "\"function\" strings");
            w_bind *wb = &w->binds[w->nbinds++];
            wb->object = dupstr(json_string_value(o));
            wb->event = dupstr(json_string_value(e));
            wb->function = dupstr(json_string_value(f));
        }
    }
    json_t *ln = json_object_get(root, "layer");
    w->layer_name = dupstr(json_is_string(ln) ? json_string_value(ln) : "layer");
    return GSVM_OK;
}

gsvm_status gsvm_hks_world_new(const char *world_text, size_t world_len, const char *world_file,
                               const char *natives_text, size_t natives_len,
                               const char *natives_file, const gsvm_hks_vm_options *vo,
                               gsvm_hks_world_emit_fn fn, void *ctx, gsvm_hks_world **out,
                               gsvm_error *err)
{
    *out = NULL;
    gsvm_hks_world *w = calloc(1, sizeof *w);
    if (!w)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, world_file, "out of memory");
    w->emit = fn;
    w->emit_ctx = ctx;
    json_error_t je;
    json_t *root = json_loadb(world_text, world_len, 0, &je);
    if (!root) {
        gsvm_hks_world_free(w);
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, world_file, je.line, je.column,
                                  "invalid JSON: %s", je.text);
    }
    gsvm_status st = read_world(w, root, world_file, err);
    json_decref(root);
    if (st != GSVM_OK) {
        gsvm_hks_world_free(w);
        return st;
    }
    /* type words: the base shapes, then "record:<Kind>" per record kind */
    w->type_words = calloc(W_BASE_N + w->nkinds + 1, sizeof *w->type_words);
    for (int i = 0; i < W_BASE_N; i++)
        w->type_words[i] = dupstr(base_words[i]);
    for (uint32_t i = 0; i < w->nkinds; i++) {
        char b[300];
        snprintf(b, sizeof b, "record:%s", w->kinds[i].lua_name + 2);
        w->type_words[W_BASE_N + i] = dupstr(b);
    }
    if (natives_text) {
        st = gsvm_natives_parse(natives_text, natives_len, natives_file,
                                (gsvm_native_types)w->type_words, &w->natives, err);
        if (st != GSVM_OK) {
            gsvm_hks_world_free(w);
            return st;
        }
        w->have_natives = true;
    }
    st = gsvm_hks_vm_new(vo, &w->h, err);
    if (st != GSVM_OK) {
        gsvm_hks_world_free(w);
        return st;
    }
    w->h->world = w;
    *out = w;
    return GSVM_OK;
}

void gsvm_hks_world_free(gsvm_hks_world *w)
{
    if (!w)
        return;
    gsvm_hks_vm_free(w->h);
    if (w->have_natives)
        gsvm_natives_free(&w->natives);
    if (w->type_words) {
        for (char **p = w->type_words; *p; p++)
            free(*p);
        free(w->type_words);
    }
    for (uint32_t i = 0; i < w->nkinds; i++) {
        free(w->kinds[i].lua_name);
        free(w->kinds[i].category);
        for (uint32_t j = 0; j < w->kinds[i].n; j++)
            free(w->kinds[i].names[j]);
        free(w->kinds[i].names);
        free(w->kinds[i].hash);
    }
    free(w->kinds);
    for (uint32_t i = 0; i < w->nobjects; i++) {
        free(w->objects[i].name);
        free(w->objects[i].entry);
    }
    free(w->objects);
    for (uint32_t i = 0; i < w->nbinds; i++) {
        free(w->binds[i].object);
        free(w->binds[i].event);
        free(w->binds[i].function);
    }
    free(w->binds);
    for (uint32_t i = 0; i < w->nanswers; i++) {
        free(w->answers[i].native);
        json_decref(w->answers[i].value);
    }
    free(w->answers);
    free(w->threads);
    free(w->layer_name);
    free(w);
}

gsvm_hks_vm *gsvm_hks_world_vm(gsvm_hks_world *w)
{
    return w->h;
}

/* ---- faults ---- */

gsvm_status w_report(gsvm_hks_world *w, gsvm_status st, const gsvm_error *e, const char *where,
                     const char *what)
{
    gsvm_hks_fault f;
    json_t *o;
    if (gsvm_hks_vm_fault(w->h, &f)) {
        o = json_pack("{s:s,s:s,s:s,s:I,s:I}", st == GSVM_ERR_LIMIT ? "limit" : "fault",
                      f.message, where, what, "function", f.function, "pc", (json_int_t)f.pc,
                      "line", (json_int_t)f.line);
    } else {
        o = json_pack("{s:s,s:s}", "fault", e->message, where, what);
    }
    w_emit(w, o);
    if (st == GSVM_ERR_LIMIT)
        w->limit_hit = true;
    else
        w->faults++;
    return st;
}

/* ---- install the layer (the reinstall cache) ---- */

bool gsvm_hks_world_cached(const gsvm_hks_world *w, uint32_t script_id)
{
    return w->installed && w->script_id == script_id;
}

gsvm_status gsvm_hks_world_install(gsvm_hks_world *w, gsvm_hks_chunk *c, uint32_t script_id,
                                   gsvm_error *err)
{
    if (!c && !gsvm_hks_world_cached(w, script_id))
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no chunk to install (script id %u)",
                              script_id);
    if (w->installed) {
        /* reinstall[id] is set: reuse the compiled layer, run nothing again */
        gsvm_hks_chunk_free(c);
        w_emit(w, json_pack("{s:s,s:I,s:b}", "reinstall", w->layer_name, "script_id",
                          (json_int_t)w->script_id, "cached", script_id == w->script_id));
        if (script_id != w->script_id)
            return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                                  "one world runs one layer (script id %u, not %u)",
                                  w->script_id, script_id);
        return GSVM_OK;
    }
    setup_ud su = {w};
    if (hv_protect(w->h->L, do_setup, &su) != HV_OK) {
        gsvm_hks_chunk_free(c);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "the VM's memory limit is too small");
    }
    gsvm_status st = gsvm_hks_vm_load(w->h, c, err);
    if (st != GSVM_OK)
        return st == GSVM_ERR_FAULT || st == GSVM_ERR_LIMIT ? w_report(w, st, err, "install", w->layer_name) : st;
    w->installed = true;
    w->script_id = script_id;
    w_emit(w, json_pack("{s:s,s:I,s:b}", "reinstall", w->layer_name, "script_id",
                      (json_int_t)script_id, "cached", 0));
    /* LoadBuffer + Pcall: the main chunk runs with no running-script entry */
    bool done = false;
    st = gsvm_hks_vm_run(w->h, 0, &done, err);
    if (st != GSVM_OK)
        return w_report(w, st, err, "install", w->layer_name);
    hv_value lr = hv_get_path(w->h->L, "loadedresource");
    if (lr.tt != HV_TTAB)
        w_emit(w, json_pack("{s:s}", "warning", "the layer did not set _G.loadedresource"));
    return GSVM_OK;
}
