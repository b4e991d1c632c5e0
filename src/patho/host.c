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

void patho_sim_host_init(patho_sim_host *h, patho_emit_fn emit, void *user)
{
    memset(h, 0, sizeof *h);
    h->emit = emit;
    h->emit_user = user;
    gsvm_buf_init(&h->line);
}

void patho_sim_host_free(patho_sim_host *h) { gsvm_buf_free(&h->line); }

static void emit_line(patho_sim_host *h)
{
    if (h->emit && !h->line.oom)
        h->emit(h->emit_user, (const char *)gsvm_buf_cstr(&h->line), h->line.len);
    h->line.len = 0;
}

static int32_t sim_resolve(void *user, const char *name, uint32_t argc)
{
    (void)user, (void)name, (void)argc;
    return 0; /* this host answers every native */
}

static bool is_number(const gsvm_patho_value *v)
{
    return v->type == GSVM_PATHO_INT || v->type == GSVM_PATHO_FLOAT;
}

static double wake_time(const uint64_t latent[2])
{
    double d;
    memcpy(&d, &latent[0], sizeof d);
    return d;
}

/* The game's group-0 latents (Sleep, Hold) end early when the script calls
 * StopGroup0(); each remembers the host's stop generation when it began
 * (latent[1]) and finishes once that has moved on. */
static gsvm_patho_call_result sim_call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    patho_sim_host *h = user;
    bool sleep = !c->is_method && strcmp(c->name, "Sleep") == 0 && c->argc == 1 &&
                 is_number(c->args[0]);
    bool hold = !c->is_method && strcmp(c->name, "Hold") == 0 && c->argc == 0;
    bool stop = !c->is_method && strcmp(c->name, "StopGroup0") == 0 && c->argc == 0;
    if (c->resuming) {
        if (c->latent[1] != h->stop_gen)
            return GSVM_PATHO_CALL_DONE; /* stopped by StopGroup0 */
        if (sleep && h->now_ms >= wake_time(c->latent))
            return GSVM_PATHO_CALL_DONE;
        return GSVM_PATHO_CALL_YIELD; /* Hold waits until stopped */
    }
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
    if (stop)
        h->stop_gen++;
    if (sleep) {
        const gsvm_patho_value *a = c->args[0];
        double secs = a->type == GSVM_PATHO_INT ? (double)a->as.i : (double)a->as.f;
        if (secs < 0 || secs != secs) {
            snprintf(c->fault, sizeof c->fault, "Negative wait time");
            return GSVM_PATHO_CALL_FAULT;
        }
        /* Like every latent call it yields at least once: Sleep(0) ends
         * on the next frame. */
        double wake = h->now_ms + secs * 1000.0;
        memcpy(&c->latent[0], &wake, sizeof wake);
        c->latent[1] = h->stop_gen;
        return GSVM_PATHO_CALL_YIELD;
    }
    if (hold) {
        c->latent[0] = 0;
        c->latent[1] = h->stop_gen;
        return GSVM_PATHO_CALL_YIELD;
    }
    return GSVM_PATHO_CALL_DONE;
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
        if (adv) {
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
                                  "entry %zu: expected {\"advance_ms\":N} or {\"event\":ID,...}",
                                  i + 1);
        }
    }
    return GSVM_OK;
}

/* Emits the line for how a run stopped; returns the outcome, or -1 to go on. */
static int settle(patho_sim_host *h, gsvm_patho_vm *vm, gsvm_status st)
{
    if (st == GSVM_ERR_FAULT || gsvm_patho_vm_state(vm) == GSVM_PATHO_FAULTED) {
        gsvm_buf *b = &h->line;
        b->len = 0;
        gsvm_buf_puts(b, "{\"fault\":");
        json_text(b, gsvm_patho_vm_fault(vm));
        gsvm_buf_printf(b, ",\"op\":%lld}", (long long)gsvm_patho_vm_fault_op(vm));
        emit_line(h);
        return PATHO_SIM_FAULT;
    }
    if (st == GSVM_ERR_LIMIT) {
        h->line.len = 0;
        gsvm_buf_puts(&h->line, "{\"stopped\":\"instruction limit\"}");
        emit_line(h);
        return PATHO_SIM_LIMIT;
    }
    if (gsvm_patho_vm_state(vm) == GSVM_PATHO_FINISHED)
        return PATHO_SIM_FINISHED;
    return -1;
}

#define STATE_MAGIC "GSPS"

static gsvm_status save_state(const patho_sim_host *h, const gsvm_patho_vm *vm, uint8_t **data,
                              size_t *len, gsvm_error *err)
{
    uint8_t *snap;
    size_t n;
    gsvm_status st = gsvm_patho_vm_snapshot(vm, &snap, &n, err);
    if (st != GSVM_OK)
        return st;
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, STATE_MAGIC, 4);
    gsvm_buf_u32(&b, 1, false);
    gsvm_buf_f64(&b, h->now_ms, false);
    gsvm_buf_u64(&b, h->frame, false);
    gsvm_buf_u64(&b, h->stop_gen, false);
    gsvm_buf_append(&b, snap, n);
    free(snap);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *data = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

static gsvm_status load_state(patho_sim_host *h, const gsvm_patho_program *prog,
                              const gsvm_patho_host *iface, const uint8_t *data, size_t len,
                              gsvm_patho_vm **vm, gsvm_error *err)
{
    gsvm_reader r;
    const uint8_t *magic;
    uint32_t version;
    double now;
    uint64_t frame, stop_gen;
    gsvm_reader_init(&r, data, len, "state", err);
    if (!gsvm_read_bytes(&r, 4, &magic, "magic") || !gsvm_read_u32(&r, &version, "version") ||
        !gsvm_read_f64(&r, &now, "time") || !gsvm_read_u64(&r, &frame, "frame") ||
        !gsvm_read_u64(&r, &stop_gen, "stop generation"))
        return GSVM_ERR_INPUT;
    if (memcmp(magic, STATE_MAGIC, 4) != 0 || version != 1)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, "state", 0,
                                    "not a gsvm patho run state (version 1)");
    if (!isfinite(now) || now < 0)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, "state", 8, "invalid simulation time");
    h->now_ms = now;
    h->frame = frame;
    h->stop_gen = stop_gen;
    gsvm_status st = gsvm_patho_vm_restore(prog, iface, data + r.pos, len - r.pos, vm, err);
    if (st != GSVM_OK && err && err->offset >= 0)
        err->offset += (long long)r.pos; /* an offset in the whole state file */
    return st;
}

gsvm_status patho_sim_run(const gsvm_patho_program *prog, const json_t *timeline,
                          const patho_sim_opts *o, patho_sim_outcome *outcome, gsvm_error *err)
{
    gsvm_status st = patho_timeline_check(timeline, NULL, err);
    if (st != GSVM_OK)
        return st;
    patho_sim_host h;
    patho_sim_host_init(&h, o->emit, o->user);
    gsvm_patho_host iface = patho_sim_host_iface(&h);
    gsvm_patho_vm *vm = NULL;
    gsvm_error run_err;
    int r = -1;
    if (o->resume) {
        st = load_state(&h, prog, &iface, o->resume, o->resume_len, &vm, err);
    } else {
        st = gsvm_patho_vm_new(prog, &iface, &vm, err);
        if (st == GSVM_OK)
            st = gsvm_patho_vm_start(vm, err);
    }
    if (st != GSVM_OK) {
        gsvm_patho_vm_free(vm);
        patho_sim_host_free(&h);
        return st;
    }
    gsvm_patho_vm_set_max_instructions(vm, o->max_insns);
    if (o->resume) {
        /* Carry on where the saved run stopped (a finished or faulted script
         * stays so). */
        r = settle(&h, vm, GSVM_OK);
    } else {
        h.frame = 1;
        r = settle(&h, vm, gsvm_patho_vm_run_frame(vm, &run_err));
    }
    for (size_t i = 0; r < 0 && timeline && i < json_array_size(timeline); i++) {
        const json_t *e = json_array_get(timeline, i);
        const json_t *adv = json_object_get(e, "advance_ms");
        if (adv) {
            h.now_ms += json_number_value(adv);
            h.frame++;
            r = settle(&h, vm, gsvm_patho_vm_run_frame(vm, &run_err));
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
        r = settle(&h, vm, gsvm_patho_vm_send_event(vm, id, vals, n, &res, &run_err));
        for (uint32_t k = 0; k < n; k++)
            gsvm_patho_value_free(&vals[k]);
        free(vals);
        if (o->note && res != GSVM_PATHO_EVENT_HANDLED) {
            char msg[160];
            int len = snprintf(msg, sizeof msg, "timeline entry %zu: event %u not delivered: %s",
                               i + 1, id, gsvm_patho_event_result_name(res));
            o->note(o->user, msg, (size_t)len);
        }
    }
    if (st == GSVM_OK && o->save)
        st = save_state(&h, vm, o->save, o->save_len, err);
    if (st == GSVM_OK)
        *outcome = r < 0 ? PATHO_SIM_WAITING : (patho_sim_outcome)r;
    gsvm_patho_vm_free(vm);
    patho_sim_host_free(&h);
    return st;
}
