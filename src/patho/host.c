/* The simulation host behind `gsvm patho run`; see host.h. */
#include "patho/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/reader.h"
#include "patho/value.h"

/* ---- JSON forms of values ------------------------------------------------ */

static void json_float(gsvm_buf *b, float f)
{
    char tmp[64];
    if (isnan(f) || isinf(f)) {
        gsvm_buf_puts(b, "null"); /* JSON has no NaN or infinity */
        return;
    }
    patho_format_float(f, tmp, sizeof tmp);
    gsvm_buf_puts(b, tmp);
}

static void json_text(gsvm_buf *b, const char *utf8)
{
    json_t *s = json_string(utf8);
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    gsvm_buf_puts(b, text ? text : "\"\"");
    free(text);
    json_decref(s);
}

void patho_value_json(gsvm_buf *b, const gsvm_patho_value *v)
{
    switch (v->type) {
    case GSVM_PATHO_BOOL: gsvm_buf_puts(b, v->as.b ? "true" : "false"); break;
    case GSVM_PATHO_INT: gsvm_buf_printf(b, "%d", (int)v->as.i); break;
    case GSVM_PATHO_FLOAT: json_float(b, v->as.f); break;
    case GSVM_PATHO_STRING: {
        char *s = gsvm_patho_string_to_utf8(v, NULL);
        json_text(b, s ? s : "");
        free(s);
        break;
    }
    case GSVM_PATHO_OBJECT: gsvm_buf_printf(b, "{\"object\":%u}", (unsigned)v->as.object); break;
    default:
        gsvm_buf_puts(b, "{\"cvector\":[");
        for (int i = 0; i < 3; i++) {
            if (i)
                gsvm_buf_putc(b, ',');
            json_float(b, v->as.v[i]);
        }
        gsvm_buf_puts(b, "]}");
        break;
    }
}

bool patho_value_from_json(const json_t *j, gsvm_patho_value *out)
{
    if (json_is_boolean(j)) {
        *out = gsvm_patho_bool(json_is_true(j));
        return true;
    }
    if (json_is_integer(j)) {
        json_int_t i = json_integer_value(j);
        if (i < INT32_MIN || i > (json_int_t)UINT32_MAX)
            return false;
        *out = gsvm_patho_int((int32_t)(uint32_t)i);
        return true;
    }
    if (json_is_real(j)) {
        *out = gsvm_patho_float((float)json_real_value(j));
        return true;
    }
    if (json_is_string(j))
        return gsvm_patho_string_utf8(out, json_string_value(j), json_string_length(j)) == GSVM_OK;
    if (json_is_object(j) && json_object_size(j) == 1) {
        const json_t *o = json_object_get(j, "object");
        if (o && json_is_integer(o) && json_integer_value(o) >= 0 &&
            json_integer_value(o) <= (json_int_t)UINT32_MAX) {
            *out = gsvm_patho_object((uint32_t)json_integer_value(o));
            return true;
        }
        const json_t *v = json_object_get(j, "cvector");
        if (v && json_is_array(v) && json_array_size(v) == 3) {
            float c[3];
            for (size_t i = 0; i < 3; i++) {
                const json_t *x = json_array_get(v, i);
                if (!json_is_number(x))
                    return false;
                c[i] = (float)json_number_value(x);
            }
            *out = gsvm_patho_cvector(c[0], c[1], c[2]);
            return true;
        }
    }
    return false;
}

/* ---- the host --------------------------------------------------------------- */

void patho_sim_host_init(patho_sim_host *h, const gsvm_patho_natives *natives, bool lenient,
                         patho_emit_fn emit, void *user)
{
    memset(h, 0, sizeof *h);
    h->natives = natives;
    h->lenient = lenient;
    h->emit = emit;
    h->emit_user = user;
    gsvm_buf_init(&h->line);
}

void patho_sim_host_free(patho_sim_host *h)
{
    free(h->resolved);
    h->resolved = NULL;
    h->nresolved = h->cap = 0;
    gsvm_buf_free(&h->line);
}

static void emit_line(patho_sim_host *h)
{
    if (h->emit && !h->line.oom)
        h->emit(h->emit_user, (const char *)gsvm_buf_cstr(&h->line), h->line.len);
    h->line.len = 0;
}

/* An id per (declaration, name, argc): the VM calls resolve once per import
 * (again when a snapshot is restored), so the same pair gets its old id. */
static int32_t sim_resolve(void *user, const char *name, uint32_t argc)
{
    patho_sim_host *h = user;
    patho_sim_native n;
    memset(&n, 0, sizeof n);
    if (h->natives && gsvm_patho_natives_lookup(h->natives, name, argc, &n.info))
        n.answer = patho_natives_answer(h->natives, name, argc);
    else if (!h->lenient)
        return -1;
    for (uint32_t i = 0; i < h->nresolved; i++)
        if (h->resolved[i].info.name == n.info.name && h->resolved[i].info.line == n.info.line &&
            h->resolved[i].info.file == n.info.file)
            return (int32_t)i;
    if (h->nresolved >= INT32_MAX)
        return -1;
    if (h->nresolved == h->cap) {
        uint32_t ncap = h->cap ? h->cap * 2 : 16;
        patho_sim_native *g = realloc(h->resolved, ncap * sizeof *g);
        if (!g)
            return -1;
        h->resolved = g;
        h->cap = ncap;
    }
    h->resolved[h->nresolved] = n;
    return (int32_t)h->nresolved++;
}

/* Does an argument fit its declared type?  Bool, int and float convert into
 * each other as the VM's assignments do; "any" takes everything. */
static bool fits(const gsvm_patho_value *v, uint8_t declared)
{
    if (declared == GSVM_PATHO_TYPE_ANY || v->type == declared)
        return true;
    bool num = v->type <= GSVM_PATHO_FLOAT, want_num = declared <= GSVM_PATHO_FLOAT;
    return num && want_num;
}

static void print_call(patho_sim_host *h, const gsvm_patho_call *c)
{
    gsvm_buf *b = &h->line;
    b->len = 0;
    gsvm_buf_puts(b, "{\"host\":");
    json_text(b, c->name);
    gsvm_buf_puts(b, ",\"args\":[");
    for (uint32_t i = 0; i < c->argc; i++) {
        if (i)
            gsvm_buf_putc(b, ',');
        patho_value_json(b, c->args[i]);
    }
    gsvm_buf_putc(b, ']');
    if (c->is_method)
        gsvm_buf_printf(b, ",\"object\":%u", (unsigned)c->object);
    gsvm_buf_putc(b, '}');
    emit_line(h);
}

static gsvm_patho_call_result sim_call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    patho_sim_host *h = user;
    const patho_sim_native *n =
        !c->is_method && c->native >= 0 && (uint32_t)c->native < h->nresolved
            ? &h->resolved[c->native]
            : NULL;
    gsvm_patho_wait wait = n && n->info.name ? n->info.wait : GSVM_PATHO_WAIT_NONE;
    int out = n && n->info.name ? n->info.out : -1;
    if (c->resuming)
        return gsvm_patho_clock_wait(&h->clock, wait, out, c);
    print_call(h, c);
    if (n && n->info.name) {
        for (uint32_t i = 0; i < c->argc && i < n->info.nargs; i++)
            if (!fits(c->args[i], n->info.arg_types[i])) {
                snprintf(c->fault, sizeof c->fault,
                         "Type mismatch in argument %u of '%s': %s, declared %s at %s:%ld:%ld",
                         i + 1, c->name, gsvm_patho_type_name(c->args[i]->type),
                         gsvm_patho_type_name(n->info.arg_types[i]), n->info.file, n->info.line,
                         n->info.column);
                return GSVM_PATHO_CALL_FAULT;
            }
        if (n->answer && out >= 0 && (uint32_t)out < c->argc && wait == GSVM_PATHO_WAIT_NONE) {
            gsvm_patho_value v;
            if (!patho_value_from_json(n->answer, &v)) {
                snprintf(c->fault, sizeof c->fault, "the answer declared for '%s' at %s:%ld:%ld "
                         "has no script type", c->name, n->info.file, n->info.line,
                         n->info.column);
                return GSVM_PATHO_CALL_FAULT;
            }
            char msg[160];
            gsvm_status st = gsvm_patho_value_assign(c->args[out], &v, msg, sizeof msg);
            gsvm_patho_value_free(&v);
            if (st != GSVM_OK) {
                snprintf(c->fault, sizeof c->fault, "the answer declared for '%s' at %s:%ld:%ld: %s",
                         c->name, n->info.file, n->info.line, n->info.column, msg);
                return GSVM_PATHO_CALL_FAULT;
            }
        }
    }
    if (!c->is_method && strcmp(c->name, "StopGroup0") == 0 && c->argc == 0)
        gsvm_patho_clock_stop_group0(&h->clock);
    return gsvm_patho_clock_wait(&h->clock, wait, out, c);
}

static bool sim_method_exists(void *user, uint32_t object, const char *name, int32_t argc)
{
    (void)user, (void)name, (void)argc;
    return object != 0;
}

gsvm_patho_host patho_sim_host_iface(patho_sim_host *h)
{
    gsvm_patho_host host = {h, sim_resolve, sim_call, sim_method_exists};
    return host;
}

/* ---- the timeline ------------------------------------------------------------- */

gsvm_status patho_timeline_check(const json_t *timeline, const char *file, gsvm_error *err)
{
    if (!timeline)
        return GSVM_OK;
    if (!json_is_array(timeline))
        return gsvm_error_set(err, GSVM_ERR_INPUT, file, "the timeline is not a list");
    for (size_t i = 0; i < json_array_size(timeline); i++) {
        const json_t *e = json_array_get(timeline, i);
        const json_t *adv = json_object_get(e, "advance_ms");
        const json_t *ev = json_object_get(e, "event");
        const json_t *anim = json_object_get(e, "anim_end");
        if (anim) {
            if (!json_is_true(anim))
                return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                      "entry %zu: anim_end must be true", i + 1);
        } else if (adv) {
            if (!json_is_number(adv) || json_number_value(adv) < 0 ||
                !isfinite(json_number_value(adv)))
                return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                      "entry %zu: advance_ms must be a number >= 0", i + 1);
        } else if (ev) {
            if (!json_is_integer(ev) || json_integer_value(ev) < INT32_MIN ||
                json_integer_value(ev) > (json_int_t)UINT32_MAX)
                return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                      "entry %zu: event must be an integer event id", i + 1);
            const json_t *args = json_object_get(e, "args");
            if (args && !json_is_array(args))
                return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                      "entry %zu: args must be a list", i + 1);
            for (size_t k = 0; k < json_array_size(args); k++) {
                gsvm_patho_value v;
                if (!patho_value_from_json(json_array_get(args, k), &v))
                    return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                          "entry %zu: argument %zu has no script type (use a "
                                          "number, true/false, a string, {\"object\":N} or "
                                          "{\"cvector\":[x,y,z]})",
                                          i + 1, k + 1);
                gsvm_patho_value_free(&v);
            }
        } else {
            return gsvm_error_set(err, GSVM_ERR_INPUT, file,
                                  "entry %zu: expected {\"advance_ms\":N}, {\"event\":ID,...} "
                                  "or {\"anim_end\":true}",
                                  i + 1);
        }
    }
    return GSVM_OK;
}

/* ---- the simulation (gsvm/patho_host.h) ---------------------------------------- */

struct gsvm_patho_sim {
    const gsvm_patho_program *prog;
    patho_sim_host h;
    gsvm_patho_natives *own_natives; /* when the options named none */
    gsvm_patho_vm *vm;
    uint64_t frame_cap, total_cap;
    uint64_t counted;  /* instructions counted against total_cap */
    gsvm_patho_sim_outcome outcome;
};

static gsvm_status sim_alloc(const gsvm_patho_program *prog, const char *file,
                             const gsvm_patho_sim_opts *o, gsvm_patho_sim **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    gsvm_patho_sim *s = calloc(1, sizeof *s);
    if (!s)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    s->prog = prog;
    s->frame_cap = o->frame_instructions ? o->frame_instructions
                                         : GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS;
    s->total_cap = o->max_instructions;
    const gsvm_patho_natives *nat = o->natives;
    if (!nat) {
        gsvm_status st = gsvm_patho_natives_new(true, &s->own_natives, err);
        if (st != GSVM_OK) {
            free(s);
            return st;
        }
        nat = s->own_natives;
    }
    gsvm_status st = gsvm_patho_natives_check(nat, prog, file, err);
    if (st != GSVM_OK) {
        gsvm_patho_natives_free(s->own_natives);
        free(s);
        return st;
    }
    patho_sim_host_init(&s->h, nat, false, o->emit, o->user);
    *out = s;
    return GSVM_OK;
}

void gsvm_patho_sim_free(gsvm_patho_sim *s)
{
    if (!s)
        return;
    gsvm_patho_vm_free(s->vm);
    patho_sim_host_free(&s->h);
    gsvm_patho_natives_free(s->own_natives);
    free(s);
}

gsvm_status gsvm_patho_sim_new(const gsvm_patho_program *prog, const char *file,
                               const gsvm_patho_sim_opts *o, gsvm_patho_sim **out,
                               gsvm_error *err)
{
    gsvm_patho_sim *s;
    gsvm_status st = sim_alloc(prog, file, o, &s, err);
    if (st != GSVM_OK)
        return st;
    gsvm_patho_host iface = patho_sim_host_iface(&s->h);
    st = gsvm_patho_vm_new(prog, &iface, &s->vm, err);
    if (st == GSVM_OK)
        st = gsvm_patho_vm_start(s->vm, err);
    if (st != GSVM_OK) {
        gsvm_patho_sim_free(s);
        return st;
    }
    *out = s;
    return GSVM_OK;
}

/* Emits the line for how a step ended and records the outcome. */
static gsvm_patho_sim_outcome settle(gsvm_patho_sim *s, gsvm_status st, bool total)
{
    patho_sim_host *h = &s->h;
    if (st == GSVM_ERR_FAULT || gsvm_patho_vm_state(s->vm) == GSVM_PATHO_FAULTED) {
        gsvm_buf *b = &h->line;
        b->len = 0;
        gsvm_buf_puts(b, "{\"fault\":");
        json_text(b, gsvm_patho_vm_fault(s->vm));
        gsvm_buf_printf(b, ",\"op\":%lld}", (long long)gsvm_patho_vm_fault_op(s->vm));
        emit_line(h);
        return s->outcome = GSVM_PATHO_SIM_FAULT;
    }
    if (st == GSVM_ERR_LIMIT) {
        h->line.len = 0;
        if (total)
            gsvm_buf_printf(&h->line, "{\"stopped\":\"instruction limit\",\"executed\":%llu}",
                            (unsigned long long)s->counted);
        else
            gsvm_buf_puts(&h->line, "{\"stopped\":\"instruction limit\"}");
        emit_line(h);
        return s->outcome = GSVM_PATHO_SIM_LIMIT;
    }
    if (gsvm_patho_vm_state(s->vm) == GSVM_PATHO_FINISHED)
        return s->outcome = GSVM_PATHO_SIM_FINISHED;
    return s->outcome = GSVM_PATHO_SIM_RUNNING;
}

/* Sets the VM's cap for one step: the frame cap, or what is left of the
 * total when that is less.  False when the total is used up. */
static bool set_budget(gsvm_patho_sim *s, bool *total)
{
    uint64_t cap = s->frame_cap;
    *total = false;
    if (s->total_cap) {
        if (s->counted >= s->total_cap)
            return false;
        if (s->total_cap - s->counted <= cap) {
            cap = s->total_cap - s->counted;
            *total = true;
        }
    }
    gsvm_patho_vm_set_max_instructions(s->vm, cap);
    return true;
}

typedef enum step_kind { STEP_FRAME, STEP_EVENT } step_kind;

static gsvm_patho_sim_outcome step(gsvm_patho_sim *s, step_kind k, uint32_t id,
                                   const gsvm_patho_value *args, uint32_t nargs,
                                   gsvm_patho_event_result *res)
{
    if (res)
        *res = GSVM_PATHO_EVENT_NOT_RUNNING;
    if (s->outcome != GSVM_PATHO_SIM_RUNNING)
        return s->outcome;
    bool total;
    if (!set_budget(s, &total))
        return settle(s, GSVM_ERR_LIMIT, true);
    uint64_t before = gsvm_patho_vm_instructions(s->vm);
    gsvm_error err;
    gsvm_status st = k == STEP_FRAME
                         ? gsvm_patho_vm_run_frame(s->vm, &err)
                         : gsvm_patho_vm_send_event(s->vm, id, args, nargs, res, &err);
    s->counted += gsvm_patho_vm_instructions(s->vm) - before;
    return settle(s, st, total);
}

gsvm_patho_sim_outcome gsvm_patho_sim_start(gsvm_patho_sim *s)
{
    s->h.clock.frame = 1;
    return step(s, STEP_FRAME, 0, NULL, 0, NULL);
}

gsvm_patho_sim_outcome gsvm_patho_sim_advance(gsvm_patho_sim *s, double ms)
{
    if (s->outcome == GSVM_PATHO_SIM_RUNNING)
        gsvm_patho_clock_frame(&s->h.clock, ms);
    return step(s, STEP_FRAME, 0, NULL, 0, NULL);
}

gsvm_patho_sim_outcome gsvm_patho_sim_event(gsvm_patho_sim *s, uint32_t id,
                                            const gsvm_patho_value *args, uint32_t nargs,
                                            gsvm_patho_event_result *result)
{
    gsvm_patho_event_result r;
    gsvm_patho_sim_outcome o = step(s, STEP_EVENT, id, args, nargs, &r);
    if (result)
        *result = r;
    return o;
}

void gsvm_patho_sim_anim_end(gsvm_patho_sim *s) { gsvm_patho_clock_anim_end(&s->h.clock); }

gsvm_patho_sim_outcome gsvm_patho_sim_outcome_of(const gsvm_patho_sim *s) { return s->outcome; }

gsvm_patho_vm *gsvm_patho_sim_vm(gsvm_patho_sim *s) { return s->vm; }

const gsvm_patho_clock *gsvm_patho_sim_clock(const gsvm_patho_sim *s) { return &s->h.clock; }

#define STATE_MAGIC "GSPS"

gsvm_status gsvm_patho_sim_save(const gsvm_patho_sim *s, uint8_t **data, size_t *len,
                                gsvm_error *err)
{
    uint8_t *snap;
    size_t n;
    gsvm_status st = gsvm_patho_vm_snapshot(s->vm, &snap, &n, err);
    if (st != GSVM_OK)
        return st;
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, STATE_MAGIC, 4);
    gsvm_buf_u32(&b, 2, false);
    gsvm_buf_f64(&b, s->h.clock.now_ms, false);
    gsvm_buf_u64(&b, s->h.clock.frame, false);
    gsvm_buf_u64(&b, s->h.clock.stop_gen, false);
    gsvm_buf_u64(&b, s->h.clock.anim_gen, false);
    gsvm_buf_u64(&b, s->counted, false);
    gsvm_buf_append(&b, snap, n);
    free(snap);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *data = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

gsvm_status gsvm_patho_sim_resume(const gsvm_patho_program *prog, const char *file,
                                  const gsvm_patho_sim_opts *o, const void *state, size_t len,
                                  gsvm_patho_sim **out, gsvm_error *err)
{
    gsvm_patho_sim *s;
    gsvm_status st = sim_alloc(prog, file, o, &s, err);
    if (st != GSVM_OK)
        return st;
    gsvm_reader r;
    const uint8_t *magic;
    uint32_t version = 0;
    double now = 0;
    uint64_t frame = 0, stop_gen = 0, anim_gen = 0, counted = 0;
    gsvm_reader_init(&r, state, len, "state", err);
    bool ok = gsvm_read_bytes(&r, 4, &magic, "magic") && gsvm_read_u32(&r, &version, "version");
    if (ok && (memcmp(magic, STATE_MAGIC, 4) != 0 || (version != 1 && version != 2))) {
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, "state", 0,
                             "not a gsvm patho run state (version 1 or 2)");
        ok = false;
    }
    ok = ok && gsvm_read_f64(&r, &now, "time") && gsvm_read_u64(&r, &frame, "frame") &&
         gsvm_read_u64(&r, &stop_gen, "stop generation");
    if (ok && version == 2)
        ok = gsvm_read_u64(&r, &anim_gen, "animation ends") &&
             gsvm_read_u64(&r, &counted, "instructions counted");
    if (ok && (!isfinite(now) || now < 0)) {
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, "state", 8, "invalid simulation time");
        ok = false;
    }
    if (!ok) {
        gsvm_patho_sim_free(s);
        return GSVM_ERR_INPUT;
    }
    s->h.clock.now_ms = now;
    s->h.clock.frame = frame;
    s->h.clock.stop_gen = stop_gen;
    s->h.clock.anim_gen = anim_gen;
    s->counted = counted;
    gsvm_patho_host iface = patho_sim_host_iface(&s->h);
    st = gsvm_patho_vm_restore(prog, &iface, (const uint8_t *)state + r.pos, len - r.pos, &s->vm,
                               err);
    if (st != GSVM_OK) {
        if (err && err->offset >= 0)
            err->offset += (long long)r.pos; /* an offset in the whole state file */
        gsvm_patho_sim_free(s);
        return st;
    }
    /* Carry on where the saved run stopped (a finished or faulted script
     * stays so, silently: its last line was printed by the earlier run). */
    gsvm_patho_state vs = gsvm_patho_vm_state(s->vm);
    s->outcome = vs == GSVM_PATHO_FINISHED  ? GSVM_PATHO_SIM_FINISHED
                 : vs == GSVM_PATHO_FAULTED ? GSVM_PATHO_SIM_FAULT
                                            : GSVM_PATHO_SIM_RUNNING;
    *out = s;
    return GSVM_OK;
}

/* ---- the timeline driver ------------------------------------------------------ */

static patho_sim_outcome outcome_of(gsvm_patho_sim_outcome o)
{
    switch (o) {
    case GSVM_PATHO_SIM_FINISHED: return PATHO_SIM_FINISHED;
    case GSVM_PATHO_SIM_FAULT: return PATHO_SIM_FAULT;
    case GSVM_PATHO_SIM_LIMIT: return PATHO_SIM_LIMIT;
    default: return PATHO_SIM_WAITING;
    }
}

gsvm_status patho_sim_run(const gsvm_patho_program *prog, const json_t *timeline,
                          const patho_sim_opts *o, patho_sim_outcome *outcome, gsvm_error *err)
{
    gsvm_status st = patho_timeline_check(timeline, NULL, err);
    if (st != GSVM_OK)
        return st;
    gsvm_patho_sim *s = NULL;
    st = o->resume ? gsvm_patho_sim_resume(prog, o->file, &o->sim, o->resume, o->resume_len, &s, err)
                   : gsvm_patho_sim_new(prog, o->file, &o->sim, &s, err);
    if (st != GSVM_OK)
        return st;
    gsvm_patho_sim_outcome r = o->resume ? s->outcome : gsvm_patho_sim_start(s);
    for (size_t i = 0; r == GSVM_PATHO_SIM_RUNNING && timeline && i < json_array_size(timeline);
         i++) {
        const json_t *e = json_array_get(timeline, i);
        const json_t *adv = json_object_get(e, "advance_ms");
        if (json_object_get(e, "anim_end")) {
            gsvm_patho_sim_anim_end(s);
            continue;
        }
        if (adv) {
            r = gsvm_patho_sim_advance(s, json_number_value(adv));
            continue;
        }
        const json_t *args = json_object_get(e, "args");
        uint32_t n = (uint32_t)json_array_size(args);
        gsvm_patho_value *vals = calloc(n ? n : 1, sizeof *vals);
        if (!vals) {
            st = gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
            break;
        }
        for (uint32_t k = 0; k < n; k++)
            patho_value_from_json(json_array_get(args, k), &vals[k]);
        gsvm_patho_event_result res;
        uint32_t id = (uint32_t)json_integer_value(json_object_get(e, "event"));
        r = gsvm_patho_sim_event(s, id, vals, n, &res);
        for (uint32_t k = 0; k < n; k++)
            gsvm_patho_value_free(&vals[k]);
        free(vals);
        if (o->note && res != GSVM_PATHO_EVENT_HANDLED) {
            char msg[160];
            int len = snprintf(msg, sizeof msg, "timeline entry %zu: event %u not delivered: %s",
                               i + 1, id, gsvm_patho_event_result_name(res));
            o->note(o->sim.user, msg, (size_t)len);
        }
    }
    if (st == GSVM_OK && o->save)
        st = gsvm_patho_sim_save(s, o->save, o->save_len, err);
    if (st == GSVM_OK)
        *outcome = outcome_of(r);
    gsvm_patho_sim_free(s);
    return st;
}
