/* Fuzz target: the ABI-3 snapshot restorer, against a fixed program using
 * functions, recursion, states, lists, timers and listens.  A snapshot that
 * restores must run (bounded) without crashing and snapshot again; one that
 * does not must leave the VM untouched (it then still runs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"

static const char source[] =
    "integer g = 1; list keep = [\"a\", 2, <1,2,3>]; rotation r; key k = \"00000000-0000-0000-0000-000000000001\";\n"
    "integer f(integer n) { if (n <= 0) return 0; return 1 + f(n - 1); }\n"
    "default {\n"
    "  state_entry() { string s = \"x\"; integer i; for (i = 0; i < 4; i++) { s += (string)f(i); keep += [s, i * 1.5]; }\n"
    "    llSetTimerEvent(1.0); llListen(3, \"\", k, \"\"); llOwnerSay(s); }\n"
    "  timer() { g++; if (g > 2) state two; }\n"
    "  listen(integer c, string n, key id, string m) { llSleep(0.5); llOwnerSay(m); }\n"
    "}\n"
    "state two { state_entry() { vector v = <1,2,3> * r; llOwnerSay((string)v + llList2CSV(keep)); } }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* compiled once: only the snapshot is the input (a VM never changes its
     * program) */
    static gsvm_lsl3_program *p;
    gsvm_error err;
    if (!p && gsvm_lsl3_compile(source, sizeof source - 1, "fuzz.lsl", &p, &err) != GSVM_OK)
        abort();
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(p, &vm, &err) != GSVM_OK)
        abort();
    gsvm_lsl3_vm_start(vm, &err);
    gsvm_lsl3_vm_run(vm, 50);
    uint64_t before = gsvm_lsl3_vm_total(vm);
    if (gsvm_lsl3_vm_restore(vm, data, size, "fuzz", &err) == GSVM_OK) {
        uint8_t *again;
        size_t len;
        if (gsvm_lsl3_vm_snapshot(vm, &again, &len, &err) != GSVM_OK)
            abort();
        if (len != size || memcmp(again, data, size) != 0)
            abort(); /* a snapshot that restores is canonical */
        free(again);
    } else if (gsvm_lsl3_vm_total(vm) != before) {
        abort(); /* a refused snapshot must not change the VM */
    }
    for (int i = 0; i < 4; i++) {
        gsvm_lsl3_vm_run(vm, 20000);
        gsvm_lsl3_vm_advance(vm, 1000);
    }
    gsvm_lsl3_vm_free(vm);
    return 0;
}
