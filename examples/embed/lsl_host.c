/* lsl_host.c: a host program that embeds gsvm's Falcon LSL VM.
 *
 *   cc -o lsl_host lsl_host.c $(pkg-config --cflags --libs gsvm)
 *   ./lsl_host
 *
 * It compiles a touch counter, answers its host calls (llOwnerSay, llSay)
 * through typed callbacks, posts touches as typed events (no JSON), runs
 * them in small instruction slices the way a region interleaves scripts,
 * then moves the script: a snapshot taken in one VM is restored in a fresh
 * one, which goes on counting.  A script with a timer needs ABI 3; the same
 * calls run it.  Last, a bad program is refused with the file, line and
 * column of the error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"

static const char counter[] =
    "integer count = 0;\n"
    "default\n"
    "{\n"
    "    state_entry() { llOwnerSay(\"ready\"); }\n"
    "    touch_start(integer n)\n"
    "    {\n"
    "        count = count + n;\n"
    "        llSay(0, \"touched \" + (string)count + \" time(s)\");\n"
    "    }\n"
    "}\n";

static const char ticker[] =
    "integer ticks;\n"
    "default\n"
    "{\n"
    "    state_entry() { llSetTimerEvent(0.5); }\n"
    "    timer() { if (++ticks == 3) llSetTimerEvent(0); llOwnerSay(\"tick \" + (string)ticks); }\n"
    "}\n";

/* llOwnerSay and llSay, one callback: the VM's user pointer names the VM,
 * the typed accessors read the arguments. */
static gsvm_status say(void *fn_user, void *vm_user, gsvm_lsl_call *call, gsvm_error *err)
{
    (void)fn_user;
    (void)err;
    size_t argc = gsvm_lsl_call_argc(call), len;
    const char *text = gsvm_lsl_arg_str(call, argc - 1, &len);
    printf("%s: %s(", (const char *)vm_user, gsvm_lsl_call_name(call));
    if (argc == 2)
        printf("%d, ", (int)gsvm_lsl_arg_int(call, 0));
    printf("\"%.*s\")\n", (int)len, text);
    return GSVM_OK;
}

/* Runs what the script has to do, 8 instructions at a time. */
static int run_slices(gsvm_lsl_vm *vm, const char *what)
{
    int slices = 1;
    gsvm_lsl_run_status st;
    while ((st = gsvm_lsl_vm_run(vm, 8)) == GSVM_LSL_YIELDED)
        slices++;
    if (st == GSVM_LSL_ERROR) {
        fprintf(stderr, "fault: %s\n", gsvm_lsl_vm_fault(vm));
        return 1;
    }
    printf("  (%s ran in %d slices)\n", what, slices);
    return 0;
}

/* Posts touch_start(n) as a typed event and runs it. */
static int touch(gsvm_lsl_vm *vm, int32_t n)
{
    gsvm_error err;
    bool queued;
    gsvm_lsl_item arg = {.type = GSVM_LSL_T_INTEGER, .i = n};
    if (gsvm_lsl_vm_post_items(vm, "touch_start", &arg, 1, 0, &queued, &err) != GSVM_OK) {
        fprintf(stderr, "post: %s\n", err.message);
        return 1;
    }
    return run_slices(vm, "touch_start");
}

static gsvm_lsl_program *compile(const char *src, const char *file)
{
    gsvm_error err;
    gsvm_lsl_program *prog;
    gsvm_lsl_compile_opts opts = {.abi = 0}; /* ABI 2 when the script fits it, else 3 */
    if (gsvm_lsl_compile_with(src, strlen(src), file, &opts, &prog, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return NULL;
    }
    printf("%s: ABI %d\n", file, gsvm_lsl_program_abi(prog));
    return prog;
}

int main(void)
{
    gsvm_error err;
    gsvm_lsl_hosts *hosts;
    if (gsvm_lsl_hosts_new(&hosts, &err) != GSVM_OK || gsvm_lsl_hosts_add(hosts, "llOwnerSay", say, NULL, &err) ||
        gsvm_lsl_hosts_add(hosts, "llSay", say, NULL, &err))
        return 1;
    gsvm_lsl_program *prog = compile(counter, "counter.lsl");
    gsvm_lsl_vm *first, *second;
    if (!prog || gsvm_lsl_vm_new(prog, &first, &err) != GSVM_OK)
        return 1;
    gsvm_lsl_vm_set_hosts(first, hosts, "first");
    if (gsvm_lsl_vm_start(first, &err) != GSVM_OK || run_slices(first, "state_entry") || touch(first, 2))
        return 1;

    /* Move the script: snapshot, restore into a fresh VM, continue there. */
    uint8_t *snap;
    size_t len;
    if (gsvm_lsl_vm_snapshot(first, &snap, &len, &err) != GSVM_OK ||
        gsvm_lsl_vm_new(prog, &second, &err) != GSVM_OK ||
        gsvm_lsl_vm_restore(second, snap, len, "snapshot", &err) != GSVM_OK) {
        fprintf(stderr, "snapshot: %s\n", err.message);
        return 1;
    }
    printf("snapshot: %zu bytes, restored after %" PRIu64 " instructions\n", len, gsvm_lsl_vm_total(second));
    free(snap);
    gsvm_lsl_vm_free(first);
    gsvm_lsl_vm_set_hosts(second, hosts, "second");
    if (touch(second, 1))
        return 1;
    gsvm_lsl_vm_free(second);
    gsvm_lsl_program_release(prog);

    /* A timer needs ABI 3: the same calls, and the host moves the clock. */
    if (!(prog = compile(ticker, "ticker.lsl")) || gsvm_lsl_vm_new(prog, &first, &err) != GSVM_OK)
        return 1;
    gsvm_lsl_program_release(prog); /* the VM holds its own reference */
    gsvm_lsl_vm_set_hosts(first, hosts, "ticker");
    if (gsvm_lsl_vm_start(first, &err) != GSVM_OK || run_slices(first, "state_entry"))
        return 1;
    uint64_t at;
    while (gsvm_lsl_vm_next_deadline(first, &at)) {
        gsvm_lsl_vm_advance(first, at - gsvm_lsl_vm_now_ms(first));
        printf("at %" PRIu64 " ms:\n", gsvm_lsl_vm_now_ms(first));
        if (run_slices(first, "timer"))
            return 1;
    }
    gsvm_lsl_vm_free(first);
    gsvm_lsl_hosts_free(hosts);

    /* A bad program is refused, naming where. */
    const char bad[] = "default { state_entry() { llSay(0, nope); } }\n";
    if (gsvm_lsl_compile_with(bad, strlen(bad), "bad.lsl", NULL, &prog, &err) == GSVM_OK)
        return 1;
    char msg[1024];
    gsvm_error_format(&err, msg, sizeof msg);
    printf("refused: %s\n", msg);
    return 0;
}
