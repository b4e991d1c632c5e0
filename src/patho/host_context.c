/* Natives resolved by (name, argument count) along a chain of script
 * contexts, the way the game's CStdScriptContext chain does; see
 * gsvm_patho_context in gsvm/patho_vm.h.
 *
 * A resolved native's id packs where it was found: the depth of its context
 * in the chain (high 8 bits) and its index in that context's table (low 23
 * bits), so a call goes straight to it without searching again. */
#include <string.h>

#include "gsvm/patho_vm.h"

#define INDEX_BITS 23u

static const gsvm_patho_context *at_depth(const gsvm_patho_context *c, uint32_t depth)
{
    for (uint32_t d = 0; c && d < depth; d++)
        c = c->parent;
    return c;
}

static int32_t ctx_resolve(void *user, const char *name, uint32_t argc)
{
    const gsvm_patho_context *c = user;
    for (uint32_t depth = 0; c && depth < GSVM_PATHO_MAX_CONTEXT_DEPTH; depth++, c = c->parent)
        for (uint32_t i = 0; i < c->count && i < (1u << INDEX_BITS); i++) {
            const gsvm_patho_native *n = &c->natives[i];
            if (n->name && strcmp(n->name, name) == 0 && (n->argc < 0 || (uint32_t)n->argc == argc))
                return (int32_t)((depth << INDEX_BITS) | i);
        }
    return -1;
}

static gsvm_patho_call_result ctx_call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *call)
{
    const gsvm_patho_context *chain = user;
    if (call->is_method) {
        for (uint32_t d = 0; chain && d < GSVM_PATHO_MAX_CONTEXT_DEPTH; d++, chain = chain->parent)
            if (chain->method)
                return chain->method(chain->user, vm, call);
        return GSVM_PATHO_CALL_DONE; /* no context takes methods: they do nothing */
    }
    const gsvm_patho_context *c = at_depth(chain, (uint32_t)call->native >> INDEX_BITS);
    uint32_t i = (uint32_t)call->native & ((1u << INDEX_BITS) - 1);
    if (!c || i >= c->count || !c->natives[i].fn)
        return GSVM_PATHO_CALL_DONE;
    return c->natives[i].fn(c->user, vm, call);
}

static bool ctx_method_exists(void *user, uint32_t object, const char *name, int32_t argc)
{
    const gsvm_patho_context *c = user;
    for (uint32_t d = 0; c && d < GSVM_PATHO_MAX_CONTEXT_DEPTH; d++, c = c->parent)
        if (c->method_exists)
            return c->method_exists(c->user, object, name, argc);
    return false;
}

gsvm_patho_host gsvm_patho_context_host(const gsvm_patho_context *ctx)
{
    gsvm_patho_host h = {(void *)ctx, ctx_resolve, ctx_call, ctx_method_exists};
    return h;
}
