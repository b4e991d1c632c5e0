/* Fuzz target: the restorer of the per-script scheduler state (sched.h).
 * A state that loads must save back to the same bytes, keep working (time
 * advancing, chat heard, events popped) and release exactly what it charged;
 * one that does not load must leave the scheduler empty and the heap clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/sched.h"

static void require(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lsl_heap heap;
    lsl_heap_init(&heap, LSL_DEFAULT_MEMORY_LIMIT);
    lsl_sched s;
    lsl_sched_init(&s, &heap, 0);
    gsvm_error err;
    gsvm_status st = lsl_sched_load(&s, data, size, &err);
    if (st != GSVM_OK) {
        require(s.count == 0 && s.nlistens == 0);
        require(heap.used == 0 && heap.extra == 0);
        lsl_sched_free(&s);
        return 0;
    }
    gsvm_buf out;
    gsvm_buf_init(&out);
    require(lsl_sched_save(&s, &out, &err) == GSVM_OK);
    require(out.len == size && memcmp(out.data, data, size) == 0);
    gsvm_buf_free(&out);

    /* keep using it */
    uint64_t at;
    if (lsl_sched_next_deadline(&s, &at) && at > s.now_ms && at - s.now_ms < (UINT64_C(1) << 40))
        lsl_sched_advance(&s, at - s.now_ms, NULL, &err);
    lsl_sched_advance(&s, 12345, NULL, &err);
    for (unsigned i = 0; i < s.nlistens && i < 8; i++) {
        const lsl_listen *l = &s.listens[i];
        lsl_sched_hear(&s, l->channel, l->name ? l->name : "", l->name ? l->name_len : 0,
                       l->key ? l->key : "", l->key ? 36 : 0, l->msg ? l->msg : "",
                       l->msg ? l->msg_len : 0, NULL, NULL, &err);
    }
    lsl_sched_event ev;
    while (lsl_sched_pop(&s, &ev))
        lsl_sched_event_release(&ev);
    require(heap.extra == 0 && heap.used == 0);
    lsl_sched_state_change(&s);
    lsl_sched_reset(&s);
    lsl_sched_free(&s);
    return 0;
}
