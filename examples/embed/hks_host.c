/* hks_host.c: a host program that embeds gsvm's HavokScript VM.
 *
 *   cc -o hks_host hks_host.c $(pkg-config --cflags --libs gsvm)
 *   ./hks_host
 *
 * It compiles Lua source to a HavokScript chunk (the "doubles" target),
 * registers one C native (Game.Damage), runs the chunk's main function in
 * instruction slices, calls a script function from C with arguments, and
 * shows that a runaway script ends at its instruction limit instead of
 * hanging the host. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gsvm/hks.h"

static const char source[] =
    "local hits = 0\n"
    "function on_hit(who, amount)\n"
    "  hits = hits + 1\n"
    "  local left = Game.Damage(who, amount)\n"
    "  print(who .. ' has ' .. left .. ' left after hit ' .. hits)\n"
    "  return left <= 0\n"
    "end\n"
    "local sum = 0\n"
    "for i = 1, 100 do sum = sum + i end\n"
    "print('loaded, sum ' .. sum)\n";

/* Game.Damage(who, amount): the host's health table. */
static gsvm_status damage(void *ctx, gsvm_hks_vm *vm, const gsvm_hks_value *args, int nargs,
                          gsvm_hks_value *results, int max_results, int *nresults,
                          gsvm_error *err)
{
    double *health = ctx;
    (void)vm;
    if (nargs < 2 || args[1].type != GSVM_HKS_V_NUMBER || max_results < 1)
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Game.Damage(who, amount)");
    *health -= args[1].n;
    results[0] = (gsvm_hks_value){.type = GSVM_HKS_V_NUMBER, .n = *health};
    *nresults = 1;
    return GSVM_OK;
}

static void print_line(void *ctx, const char *const *parts, const size_t *lens, int n)
{
    (void)ctx;
    fputs("script: ", stdout);
    for (int i = 0; i < n; i++)
        printf("%s%.*s", i ? "\t" : "", (int)lens[i], parts[i]);
    putchar('\n');
}

static gsvm_hks_vm *new_vm(const char *src, gsvm_hks_limits limits, double *health)
{
    gsvm_error err;
    gsvm_hks_compile_options o;
    gsvm_hks_compile_preset("doubles", &o);
    o.chunkname = "@host.lua";
    o.file = "host.lua";
    gsvm_hks_chunk *chunk;
    if (gsvm_hks_compile(src, strlen(src), &o, &chunk, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return NULL;
    }
    gsvm_hks_native natives[] = {{"Game.Damage", damage, health}};
    gsvm_hks_vm_options vo = {.limits = limits, .natives = natives, .nnatives = 1};
    gsvm_hks_vm *vm;
    if (gsvm_hks_vm_new(&vo, &vm, &err) != GSVM_OK) {
        gsvm_hks_chunk_free(chunk);
        return NULL;
    }
    gsvm_hks_vm_set_print(vm, print_line, NULL);
    if (gsvm_hks_vm_load(vm, chunk, &err) != GSVM_OK) { /* the VM owns the chunk now */
        fprintf(stderr, "load: %s\n", err.message);
        gsvm_hks_vm_free(vm);
        return NULL;
    }
    return vm;
}

int main(void)
{
    gsvm_error err;
    double health = 100;
    gsvm_hks_limits limits = {0};
    gsvm_hks_vm *vm = new_vm(source, limits, &health);
    if (!vm)
        return 1;
    bool done = false;
    int slices = 0;
    while (!done) {
        if (gsvm_hks_vm_run(vm, 50, &done, &err) != GSVM_OK) {
            fprintf(stderr, "run: %s\n", err.message);
            return 1;
        }
        slices++;
    }
    printf("main ran in %d slices of 50 instructions\n", slices);
    for (int i = 0; i < 3; i++) {
        gsvm_hks_value args[2] = {{.type = GSVM_HKS_V_STRING, .s = "guard", .len = 5},
                                  {.type = GSVM_HKS_V_NUMBER, .n = 40}};
        gsvm_hks_value res;
        int nres = 0;
        if (gsvm_hks_vm_call(vm, "on_hit", args, 2, &res, 1, &nres, &err) != GSVM_OK) {
            fprintf(stderr, "call: %s\n", err.message);
            return 1;
        }
        printf("on_hit returned %s\n", nres == 1 && res.type == GSVM_HKS_V_BOOL && res.b ? "true" : "false");
    }
    printf("%" PRIu64 " instructions\n", gsvm_hks_vm_steps(vm));
    gsvm_hks_vm_free(vm);

    /* A script that never ends stops at its limit. */
    limits.max_instructions = 10000;
    vm = new_vm("while true do end\n", limits, &health);
    if (!vm)
        return 1;
    gsvm_status st = gsvm_hks_vm_run(vm, 0, &done, &err);
    printf("runaway script: %s (%s)\n", gsvm_status_name(st), err.message);
    gsvm_hks_vm_free(vm);
    return st == GSVM_ERR_LIMIT ? 0 : 1;
}
