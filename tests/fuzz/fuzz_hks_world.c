/* Fuzz target: the HavokScript world-layer runtime's readers of outside
 * text — the world file (records, objects, ScriptBind) and the natives
 * declarations it names (gsvm_hks_world_new) — then a short run of the
 * example layer (examples/hks/layer/keep.lua, read from the source
 * directory) in that world: install, StartupCommands, events, time.
 *
 * The input is the world text, optionally followed by a NUL byte and the
 * natives text.  Whatever is refused must leave nothing behind; whatever
 * loads must run within its limits and free cleanly. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

static uint8_t *layer; /* the compiled layer chunk, made once */
static size_t layer_len;

static void load_layer(void)
{
    FILE *f = fopen("examples/hks/layer/keep.lua", "rb");
    if (!f)
        abort(); /* run from the source directory */
    static char src[1 << 16];
    size_t n = fread(src, 1, sizeof src, f);
    fclose(f);
    gsvm_hks_compile_options o;
    gsvm_hks_compile_preset("doubles", &o);
    o.chunkname = "@keep.lua";
    o.file = "keep.lua";
    gsvm_hks_chunk *c;
    gsvm_error err;
    if (gsvm_hks_compile(src, n, &o, &c, &err) != GSVM_OK ||
        gsvm_hks_chunk_dump(c, &layer, &layer_len, &err) != GSVM_OK)
        abort();
    gsvm_hks_chunk_free(c);
}

static void emit(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!layer)
        load_layer();
    const char *world = (const char *)data;
    const uint8_t *nul = memchr(data, 0, size);
    size_t world_len = nul ? (size_t)(nul - data) : size;
    const char *natives = nul ? (const char *)nul + 1 : NULL;
    size_t natives_len = nul ? size - world_len - 1 : 0;
    gsvm_hks_vm_options vo;
    memset(&vo, 0, sizeof vo);
    vo.limits.max_instructions = 200000;
    vo.limits.max_memory = 16u << 20;
    gsvm_hks_world *w = NULL;
    gsvm_error err;
    if (gsvm_hks_world_new(world, world_len, "fuzz.world.json", natives, natives_len, "fuzz.natives.json",
                           &vo, emit, NULL, &w, &err) != GSVM_OK)
        return 0;
    gsvm_hks_chunk *c;
    if (gsvm_hks_chunk_load(layer, layer_len, NULL, "keep.hksc", &c, &err) == GSVM_OK &&
        gsvm_hks_world_install(w, c, 1, &err) == GSVM_OK && gsvm_hks_world_start(w, &err) == GSVM_OK) {
        json_t *args = json_pack("[i]", 12);
        gsvm_hks_world_advance(w, 1000, &err);
        gsvm_hks_world_event(w, "Guard01", "OnDamaged", args, &err);
        gsvm_hks_world_event(w, NULL, "OnTaunt", NULL, &err);
        json_t *answer = json_real(2.5);
        gsvm_hks_world_answer(w, "Clock.Now", answer, &err); /* takes its own reference */
        json_decref(answer);
        gsvm_hks_world_advance(w, 3000, &err);
        json_decref(args);
    }
    gsvm_hks_world_free(w);
    return 0;
}
