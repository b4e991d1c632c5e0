/* The host-settable allocator, both ABIs: everything a VM holds goes
 * through it.  The allocator here is an arena of its own (it never touches
 * the C heap), so "every byte" is checked directly: while a VM holds
 * strings, globals, a stack, a queue and listens, the C heap holds no more
 * than before the VM existed, the arena's live bytes account for the VM,
 * and after free the arena is back to zero; the same for a region of
 * scripts, its own tables included.  A failing allocator at each
 * call count is refused cleanly (no crash, nothing left). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_BY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_BY_ASAN 1
#endif
#endif
#ifdef HEAP_BY_ASAN
/* sanitizer/allocator_interface.h's, from the ASan runtime (the header is
 * not always installed) */
size_t __sanitizer_get_current_allocated_bytes(void);
#else
#include <malloc.h>
#endif

#include "gsvm/lsl.h"
#include "gsvm/lsl_region.h"
#include "test.h"

/* Bytes the C heap holds now. */
static size_t c_heap(void)
{
#ifdef HEAP_BY_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#endif
}

/* A bump arena with a size header per block; freed blocks are only
 * counted.  fail_after > 0 makes the allocation after that many fail. */
typedef struct arena {
    _Alignas(16) uint8_t mem[8u << 20];
    size_t top, live, blocks, calls, fail_after;
} arena;

static void *arena_realloc(void *user, void *ptr, size_t size)
{
    arena *a = user;
    size_t *h = ptr ? (size_t *)ptr - 2 : NULL;
    if (size == 0) {
        if (h) {
            a->live -= h[0];
            a->blocks--;
        }
        return NULL;
    }
    if (a->fail_after && ++a->calls > a->fail_after)
        return NULL;
    size_t need = (size + 2 * sizeof(size_t) + 15) & ~(size_t)15;
    if (a->top + need > sizeof a->mem)
        return NULL;
    size_t *n = (size_t *)(a->mem + a->top);
    a->top += need;
    n[0] = size;
    if (h) {
        memcpy(n + 2, ptr, h[0] < size ? h[0] : size);
        a->live -= h[0];
        a->blocks--;
    }
    a->live += size;
    a->blocks++;
    return n + 2;
}

static arena A; /* static: 8 MB is no stack object */

static void arena_reset(size_t fail_after)
{
    A.top = A.live = A.blocks = A.calls = 0;
    A.fail_after = fail_after;
}

static gsvm_status quiet_host(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                              gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    (void)user, (void)name, (void)args, (void)argc, (void)result, (void)err;
    *has_result = false;
    return GSVM_OK;
}

static const char ABI2_SRC[] = "string s = \"seed\";\ninteger n;\n"
                               "default { state_entry() { integer i = 0; while (i < 200) { i = i + 1; "
                               "s = s + \"0123456789\"; } llOwnerSay(s); }\n"
                               " touch_start(integer d) { n = n + d; s = s + (string)n; llSay(0, s); } }\n";

static void test_abi2(void)
{
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_compile(ABI2_SRC, strlen(ABI2_SRC), "a2.lsl", &p, &err), GSVM_OK);
    if (!p)
        fprintf(stderr, "%s\n", err.message);
    if (!p)
        return;
    arena_reset(0);
    size_t before = c_heap();
    gsvm_lsl_vm *vm = NULL;
    CHECK_INT(gsvm_lsl_vm_new_alloc(p, arena_realloc, &A, &vm, &err), GSVM_OK);
    gsvm_lsl_vm_set_host(vm, quiet_host, NULL);
    CHECK_INT(gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(vm, 1u << 20), GSVM_LSL_FINISHED);
    gsvm_lsl_hostval one = {GSVM_LSL_INTEGER, 1, NULL, 0};
    CHECK_INT(gsvm_lsl_vm_dispatch(vm, "touch_start", &one, 1, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(vm, 5), GSVM_LSL_YIELDED); /* mid-handler: a stack in use */
    /* the VM holds a 2 KB string, globals, locals and a stack: all in the arena */
    CHECK(A.live > 2000);
    CHECK_INT(c_heap(), before);
    /* a restored VM too */
    uint8_t *snap;
    size_t len;
    CHECK_INT(gsvm_lsl_vm_snapshot(vm, &snap, &len, &err), GSVM_OK);
    size_t live1 = A.live;
    gsvm_lsl_vm *vm2 = NULL;
    CHECK_INT(gsvm_lsl_vm_new_alloc(p, arena_realloc, &A, &vm2, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_restore(vm2, snap, len, "snap", &err), GSVM_OK);
    free(snap);
    /* the snapshot's bytes are the C library's, and glibc's count of them
     * (mallinfo2) may keep a freed block's: count afresh from here */
    before = c_heap();
    CHECK(A.live > live1 + 2000);
    gsvm_lsl_vm_free(vm);
    gsvm_lsl_vm_set_host(vm2, quiet_host, NULL);
    CHECK_INT(gsvm_lsl_vm_run(vm2, 1u << 20), GSVM_LSL_FINISHED);
    CHECK_INT(c_heap(), before);
    gsvm_lsl_vm_free(vm2);
    CHECK_INT(A.live, 0);
    CHECK_INT(A.blocks, 0);
    /* an allocator failing at every step: refused or faulted, never a crash,
     * and nothing left behind */
    for (size_t k = 1; k < 40; k++) {
        arena_reset(k);
        gsvm_lsl_vm *f = NULL;
        if (gsvm_lsl_vm_new_alloc(p, arena_realloc, &A, &f, &err) == GSVM_OK) {
            gsvm_lsl_vm_set_host(f, quiet_host, NULL);
            if (gsvm_lsl_vm_dispatch(f, "state_entry", NULL, 0, &err) == GSVM_OK)
                gsvm_lsl_vm_run(f, 1u << 20);
            gsvm_lsl_vm_free(f);
        }
        CHECK_INT(A.live, 0);
    }
    gsvm_lsl_program_free(p);
}

static const char ABI3_SRC[] =
    "list l; string s; key k = \"7c1e2a44-0000-4000-8000-00000000a11c\"; vector v = <1, 2, 3>;\n"
    "default { state_entry() { integer i; for (i = 0; i < 100; i++) { l += [i, (string)i, v]; s += \"ab\"; }\n"
    " llListen(5, \"\", NULL_KEY, \"\"); llSetTimerEvent(5.0); }\n"
    " listen(integer c, string n, key id, string m) { l += [m]; } timer() { s += \"t\"; } }\n";

static void test_abi3(void)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl3_compile(ABI3_SRC, strlen(ABI3_SRC), "a3.lsl", &p, &err), GSVM_OK);
    if (!p)
        return;
    /* the program's own lazily built dispatch code is the shared program's
     * (the C library's): built here first, by a throwaway VM */
    gsvm_lsl3_vm *warm = NULL;
    CHECK_INT(gsvm_lsl3_vm_new(p, &warm, &err), GSVM_OK);
    gsvm_lsl3_vm_start(warm, &err);
    gsvm_lsl3_vm_run(warm, 1u << 20);
    gsvm_lsl3_vm_free(warm);
    arena_reset(0);
    json_t *args = json_pack("[i,s,s,s]", 5, "Bob", "7c1e2a44-0000-4000-8000-0000000000b0", "hello");
    size_t before = c_heap();
    gsvm_lsl3_vm *vm = NULL;
    CHECK_INT(gsvm_lsl3_vm_new_alloc(p, arena_realloc, &A, &vm, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_start(vm, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1u << 20), GSVM_LSL_FINISHED);
    bool queued = false;
    CHECK_INT(gsvm_lsl3_vm_post(vm, "listen", args, &queued, &err), GSVM_OK);
    CHECK(queued);
    /* a list of 300 elements, a string, a listen, a timer, a queued event */
    CHECK(A.live > 3000);
    CHECK_INT(c_heap(), before);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1u << 20), GSVM_LSL_FINISHED);
    CHECK_INT(c_heap(), before);
    gsvm_lsl3_vm_free(vm);
    CHECK_INT(A.live, 0);
    CHECK_INT(A.blocks, 0);
    json_decref(args);
    gsvm_lsl3_program_free(p);
}

/* A region with the host's allocator: its own tables (objects, prims,
 * scripts, the program store, the timer heap, the run queue, the listen
 * index) as well as its scripts' VMs are the arena's; the C heap does not
 * grow while 40 scripts start, set timers, open listens and hear chat. */
static void test_region(void)
{
    gsvm_lsl_compile_opts co = {.abi = 3};
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_compile_with(ABI3_SRC, strlen(ABI3_SRC), "a3.lsl", &co, &p, &err), GSVM_OK);
    if (!p)
        return;
    gsvm_lsl_vm *warm = NULL; /* the program's dispatch code, built once (C library) */
    CHECK_INT(gsvm_lsl_vm_new(p, &warm, &err), GSVM_OK);
    gsvm_lsl_vm_start(warm, &err);
    gsvm_lsl_vm_run(warm, 1u << 20);
    gsvm_lsl_vm_free(warm);
    arena_reset(0);
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.alloc = arena_realloc;
    o.alloc_user = &A;
    gsvm_lsl_region *r = NULL;
    CHECK_INT(gsvm_lsl_region_new(&o, &r, &err), GSVM_OK);
    if (!r)
        return;
    size_t before = c_heap(), fixed = A.live;
    CHECK(fixed > 0); /* the region itself */
    for (int i = 0; i < 40; i++) {
        char id[16];
        snprintf(id, sizeof id, "box%d", i);
        float pos[3] = {(float)i, 10, 20};
        uint32_t prim;
        CHECK_INT(gsvm_lsl_region_add_object(r, id, "7c1e2a44-0000-4000-8000-0000000000b0", NULL, pos, &prim, &err),
                  GSVM_OK);
        CHECK_INT(gsvm_lsl_region_add_script(r, prim, "a3.lsl", p, &err), GSVM_OK);
    }
    float here[3] = {20, 10, 20};
    CHECK_INT(gsvm_lsl_region_advance(r, 1000, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_region_chat(r, 5, "Bob", "7c1e2a44-0000-4000-8000-0000000000b1", here, 100, "hi", &err),
              GSVM_OK);
    CHECK_INT(gsvm_lsl_region_advance(r, 6000, &err), GSVM_OK);
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(r, &st);
    CHECK_INT(st.scripts, 40);
    CHECK_INT(st.timers_fired, 40);
    CHECK(A.live > fixed + 40 * 3000);
    CHECK_INT(c_heap(), before);
    gsvm_lsl_region_free(r);
    CHECK_INT(A.live, 0);
    CHECK_INT(A.blocks, 0);
    /* an allocator failing at every step: each call succeeds or fails
     * cleanly, and freeing the region leaves nothing behind */
    for (size_t k = 1; k < 120; k++) {
        arena_reset(k);
        if (gsvm_lsl_region_new(&o, &r, &err) != GSVM_OK) {
            CHECK_INT(A.live, 0);
            continue;
        }
        for (int i = 0; i < 4; i++) {
            char id[16];
            snprintf(id, sizeof id, "box%d", i);
            float pos[3] = {(float)i, 10, 20};
            uint32_t prim;
            if (gsvm_lsl_region_add_object(r, id, "7c1e2a44-0000-4000-8000-0000000000b0", NULL, pos, &prim, &err) ==
                GSVM_OK)
                gsvm_lsl_region_add_script(r, prim, "a3.lsl", p, &err);
        }
        gsvm_lsl_region_advance(r, 1000, &err);
        gsvm_lsl_region_chat(r, 5, "Bob", "7c1e2a44-0000-4000-8000-0000000000b1", here, 100, "hi", &err);
        gsvm_lsl_region_advance(r, 6000, &err);
        gsvm_lsl_region_free(r);
        CHECK_INT(A.live, 0);
    }
    gsvm_lsl_program_release(p);
}

int main(void)
{
    test_abi2();
    test_abi3();
    test_region();
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
