/* lsl_host.c: a host program that embeds gsvm's Falcon LSL VM (ABI 2).
 *
 *   cc -o lsl_host lsl_host.c $(pkg-config --cflags --libs gsvm)
 *   ./lsl_host
 *
 * It compiles a touch counter, answers its host calls (llOwnerSay, llSay),
 * runs every event in small instruction slices the way a region interleaves
 * scripts, then moves the script: a snapshot taken in one VM is restored in
 * a fresh one, which goes on counting.  Last, a bad program is refused with
 * the file, line and column of the error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"

static const char source[] =
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

/* Every host function the script calls arrives here. */
static gsvm_status host(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                        gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    const char *vm_name = user;
    (void)result;
    (void)err;
    *has_result = false;
    printf("%s: %s(", vm_name, name);
    for (size_t i = 0; i < argc; i++) {
        if (args[i].type == GSVM_LSL_INTEGER)
            printf("%s%d", i ? ", " : "", (int)args[i].integer);
        else
            printf("%s\"%.*s\"", i ? ", " : "", (int)args[i].len, args[i].str);
    }
    printf(")\n");
    return GSVM_OK;
}

/* Dispatches one event and runs it to the end, 8 instructions at a time. */
static int run_event(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_hostval *args, size_t argc)
{
    gsvm_error err;
    if (gsvm_lsl_vm_dispatch(vm, event, args, argc, &err) != GSVM_OK) {
        fprintf(stderr, "dispatch: %s\n", err.message);
        return 1;
    }
    int slices = 0;
    gsvm_lsl_run_status st;
    while ((st = gsvm_lsl_vm_run(vm, 8)) == GSVM_LSL_YIELDED)
        slices++;
    if (st != GSVM_LSL_FINISHED) {
        fprintf(stderr, "fault: %s\n", gsvm_lsl_vm_fault(vm));
        return 1;
    }
    printf("  (%s ran in %d slices)\n", event, slices + 1);
    return 0;
}

int main(void)
{
    gsvm_error err;
    gsvm_lsl_program *prog;
    if (gsvm_lsl_compile(source, strlen(source), "counter.lsl", &prog, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    gsvm_lsl_vm *first, *second;
    if (gsvm_lsl_vm_new(prog, &first, &err) != GSVM_OK)
        return 1;
    gsvm_lsl_vm_set_host(first, host, "first");
    gsvm_lsl_hostval two = {GSVM_LSL_INTEGER, 2, NULL, 0};
    if (run_event(first, "state_entry", NULL, 0) || run_event(first, "touch_start", &two, 1))
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
    printf("snapshot: %zu bytes, restored after %" PRIu64 " instructions\n", len,
           gsvm_lsl_vm_total(second));
    free(snap);
    gsvm_lsl_vm_free(first);
    gsvm_lsl_vm_set_host(second, host, "second");
    gsvm_lsl_hostval one = {GSVM_LSL_INTEGER, 1, NULL, 0};
    if (run_event(second, "touch_start", &one, 1))
        return 1;
    gsvm_lsl_hostval count;
    if (gsvm_lsl_vm_global(second, 0, &count))
        printf("count = %d\n", (int)count.integer);
    gsvm_lsl_vm_free(second);
    gsvm_lsl_program_free(prog);

    /* A bad program is refused, naming where. */
    const char bad[] = "default { state_entry() { llSay(0, nope); } }\n";
    if (gsvm_lsl_compile(bad, strlen(bad), "bad.lsl", &prog, &err) == GSVM_OK)
        return 1;
    char msg[1024];
    gsvm_error_format(&err, msg, sizeof msg);
    printf("refused: %s\n", msg);
    return 0;
}
