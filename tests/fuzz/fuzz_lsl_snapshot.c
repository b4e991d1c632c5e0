/* Fuzz target: the HWZS snapshot restorer, against a fixed program (the
 * touch counter of examples/lsl).  A snapshot that restores must snapshot
 * back to the same bytes and run without crashing; one that does not must
 * leave the VM exactly as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"
#include "lsl_quiet_host.h"

static const char source[] =
    "// The document's canonical example: a touch counter kept in a persistent\n"
    "// global, reported with llSay on every touch.\n"
    "integer count = 0;\n"
    "string greeting = \"Touch me\";\n"
    "\n"
    "default\n"
    "{\n"
    "    state_entry()\n"
    "    {\n"
    "        llOwnerSay(greeting + \"!\");\n"
    "    }\n"
    "\n"
    "    touch_start(integer total_number)\n"
    "    {\n"
    "        count = count + 1;\n"
    "        llSay(0, \"Touched \" + (string)count + \" time(s) by \" + (string)total_number);\n"
    "    }\n"
    "}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* compiled once: only the snapshot is the input (a VM never changes its
     * program) */
    static gsvm_lsl_program *p;
    gsvm_error err;
    if (!p && gsvm_lsl_compile(source, sizeof source - 1, "touch.lsl", &p, &err) != GSVM_OK)
        abort();
    gsvm_lsl_vm *vm;
    if (gsvm_lsl_vm_new(p, &vm, &err) != GSVM_OK)
        abort();
    gsvm_lsl_vm_set_host(vm, quiet_host, NULL);
    gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
    gsvm_lsl_vm_run(vm, 3);
    uint8_t *before, *after;
    size_t before_len, after_len;
    if (gsvm_lsl_vm_snapshot(vm, &before, &before_len, &err) != GSVM_OK)
        abort();
    if (gsvm_lsl_vm_restore(vm, data, size, "fuzz.snap", &err) == GSVM_OK) {
        if (gsvm_lsl_vm_snapshot(vm, &after, &after_len, &err) != GSVM_OK)
            abort();
        if (after_len != size || memcmp(after, data, size) != 0)
            abort(); /* the layout has one encoding per state */
        free(after);
        gsvm_lsl_vm_run(vm, 10000);
    } else {
        if (err.offset < 0 || (size_t)err.offset > size)
            abort();
        if (gsvm_lsl_vm_snapshot(vm, &after, &after_len, &err) != GSVM_OK)
            abort();
        if (after_len != before_len || memcmp(after, before, after_len) != 0)
            abort(); /* never half-restored */
        free(after);
    }
    free(before);
    gsvm_lsl_vm_free(vm);
    return 0;
}
