/* Posting events to an ABI-3 VM: the tail both ways of posting share (a
 * chat line goes through the listens, state_entry/exit are never queued,
 * anything else joins the queue), and the typed way (gsvm_lsl_item
 * arguments, no JSON: what a host posting many events a frame uses). */
#include <stdio.h>
#include <string.h>

#include "lsl/builtins.h"
#include "lsl/hostcall.h"
#include "lsl/prog3.h"

gsvm_status fal3_post_values(gsvm_lsl3_vm *vm, const lsl_event_def *ed, lsl_value *vals, size_t n,
                             uint32_t tag, bool *queued, gsvm_error *err)
{
    lsl_sched *s = &vm->sched;
    unsigned before = s->count, head = s->head;
    gsvm_status st;
    if (ed->index == LSL_SCHED_EV_LISTEN)
        /* chat reaches the script only through a matching open listen */
        st = lsl_sched_hear(s, vals[0].u.i, lsl_str_data(&vals[1]), lsl_str_len(&vals[1]), lsl_str_data(&vals[2]),
                            lsl_str_len(&vals[2]), lsl_str_data(&vals[3]), lsl_str_len(&vals[3]), NULL, queued,
                            err);
    else if (ed->index == LSL_SCHED_EV_STATE_ENTRY || ed->index == LSL_SCHED_EV_STATE_EXIT)
        st = GSVM_OK; /* never queued: the VM runs them around state changes */
    else
        st = lsl_sched_push(s, ed->index, vals, n, queued, err);
    /* a new entry is the newest one (nothing is popped by posting) */
    if (tag && st == GSVM_OK && *queued && s->count == before + 1 && s->head == head)
        s->queue[(s->head + s->count - 1) % LSL_SCHED_QUEUE_MAX].tag = tag;
    for (size_t k = 0; k < n; k++)
        lsl_value_release(&vals[k]);
    return st;
}

/* Does an item of type `have` fill a parameter of type `want`?  A string
 * fills a key and the reverse, as in JSON posting. */
static bool item_fits(gsvm_lsl_vtype have, lsl_type want)
{
    if (want == LSL_TYPE_STRING || want == LSL_TYPE_KEY)
        return have == GSVM_LSL_T_STRING || have == GSVM_LSL_T_KEY;
    return (lsl_type)have == want;
}

gsvm_status gsvm_lsl3_vm_post_items(gsvm_lsl3_vm *vm, const char *event, const gsvm_lsl_item *args, size_t argc,
                                    uint32_t tag, bool *queued, gsvm_error *err)
{
    *queued = false;
    const lsl_event_def *ed = lsl_event_by_name(event, strlen(event));
    if (!ed)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "'%s' is not an LSL event", event);
    if (argc != ed->nargs)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s takes %u arguments, not %zu", event, ed->nargs, argc);
    lsl_value vals[LSL_MAX_ARGS];
    for (size_t i = 0; i < argc; i++) {
        lsl_type want = lsl_type_from_letter(ed->argtypes[i]);
        gsvm_status st = item_fits(args[i].type, want)
                             ? lsl_value_of_item(vm->hp, &args[i], want, &vals[i], err)
                             : gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s argument %zu must be %s, not type %d",
                                              event, i + 1, lsl_type_name(want), (int)args[i].type);
        if (st != GSVM_OK) {
            for (size_t k = 0; k < i; k++)
                lsl_value_release(&vals[k]);
            return st;
        }
    }
    return fal3_post_values(vm, ed, vals, argc, tag, queued, err);
}
