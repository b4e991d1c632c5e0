/* The compiler's entry point: target presets, the chunk header, and the
 * clean-up that leaves nothing behind when a compile fails. */
#include <stdlib.h>
#include <string.h>

#include "hks/compile_parse.h"
#include "hks/internal.h"

bool gsvm_hks_compile_preset(const char *target, gsvm_hks_compile_options *o)
{
    static const struct {
        const char *name;
        bool be;
        uint8_t number_size, format, flags;
        gsvm_hks_profile profile;
        gsvm_hks_hash_form hash;
    } presets[] = {
        {"sekiro", true, 4, 14, 0x03, GSVM_HKS_PROFILE_BASE, GSVM_HKS_HASH_NONE},
        {"sow", false, 4, 14, 0x03, GSVM_HKS_PROFILE_BASE, GSVM_HKS_HASH_NONE},
        {"ghosts", false, 4, 14, 0x03, GSVM_HKS_PROFILE_GHOSTS, GSVM_HKS_HASH_NONE},
        {"doubles", true, 8, 14, 0x0b, GSVM_HKS_PROFILE_BASE, GSVM_HKS_HASH_NONE},
        {"bo2", false, 4, 13, 0x00, GSVM_HKS_PROFILE_BASE, GSVM_HKS_HASH_T6},
        {"bo3", false, 4, 14, 0x00, GSVM_HKS_PROFILE_BO3, GSVM_HKS_HASH_T7},
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].name, target) == 0) {
            memset(o, 0, sizeof *o);
            o->big_endian = presets[i].be;
            o->size_size = 8;
            o->number_size = presets[i].number_size;
            o->format = presets[i].format;
            o->build_flags = presets[i].flags;
            o->profile = presets[i].profile;
            o->hash = presets[i].hash;
            o->debug = GSVM_HKS_DEBUG_FULL;
            o->no_arg_table = presets[i].hash != GSVM_HKS_HASH_NONE;
            return true;
        }
    return false;
}

static void free_compiler(hc_compiler *C)
{
    /* the functions still open when an error stopped the compile */
    while (C->fs) {
        hc_func *fs = C->fs;
        C->fs = fs->prev;
        if (fs->f) {
            hks_proto_free(fs->f);
            free(fs->f);
        }
        hc_func_release(fs);
    }
    for (hc_func *fs = C->spare; fs; fs = fs->prev)
        hc_func_release(fs);
    hc_arena_free(C);
    free(C->strtab);
    free(C->sbuf);
    for (int i = 0; i < C->nsdefs; i++)
        free(C->sdefs[i].slots);
    free(C->sdefs);
    free(C->sorder);
}

gsvm_status gsvm_hks_compile(const char *source, size_t len, const gsvm_hks_compile_options *o,
                             gsvm_hks_chunk **out, gsvm_error *err)
{
    *out = NULL;
    if (!o || (o->size_size != 4 && o->size_size != 8) ||
        (o->number_size != 4 && o->number_size != 8) || (o->format != 13 && o->format != 14) ||
        o->profile == GSVM_HKS_PROFILE_AUTO)
        return gsvm_error_set(err, GSVM_ERR_USAGE, o ? o->file : NULL,
                              "compile options: size_t 4 or 8, number 4 or 8, format 13 or 14, "
                              "and a profile (base, bo3, ghosts) are required");
    hc_compiler *C = calloc(1, sizeof *C);
    gsvm_hks_chunk *c = calloc(1, sizeof *c);
    if (!C || !c) {
        free(C);
        free(c);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, o->file, "out of memory");
    }
    C->src = source;
    C->end = source + len;
    C->file = o->file ? o->file : "?";
    C->o = *o;
    C->bitops = o->profile == GSVM_HKS_PROFILE_BO3;
    C->ghosts_delete = o->profile == GSVM_HKS_PROFILE_GHOSTS;
    C->structs = (o->build_flags & 2) != 0;
    C->memo = (o->build_flags & 1) != 0;
    C->hash_debug = o->hash != GSVM_HKS_HASH_NONE;
    C->chunk = c;
    C->err = err;
    c->version = 0x51;
    c->format = o->format;
    c->endian = o->big_endian ? 0 : 1;
    c->size_int = 4;
    c->size_size = o->size_size;
    c->size_instr = 4;
    c->size_number = o->number_size;
    c->integral = 0;
    c->build_flags = o->build_flags;
    c->referenced = 0;
    c->profile = o->profile;
    c->debug_hash = o->format == 14 && o->hash != GSVM_HKS_HASH_NONE;
    c->has_structs = C->structs;
    c->struct_marker = 1;
    c->struct_layout = GSVM_HKS_STRUCTS_PLAIN;
    if (setjmp(C->fail)) {
        free_compiler(C);
        free(C);
        gsvm_hks_chunk_free(c);
        return err ? err->status : GSVM_ERR_INPUT;
    }
    c->ntypes = 13;
    c->types = hc_alloc(C, 13 * sizeof *c->types);
    for (uint32_t i = 0; i < 13; i++) {
        c->types[i].id = i;
        c->types[i].len = (uint32_t)strlen(hks_std_types[i]) + 1;
        c->types[i].name = hc_alloc(C, c->types[i].len + 1u);
        memcpy(c->types[i].name, hks_std_types[i], c->types[i].len);
    }
    hc_parse_chunk(C);
    hc_write_structs(C);
    if (C->hash_debug)
        hc_assign_hashes(&c->main, o->chunkname ? o->chunkname : "=?",
                         o->hash == GSVM_HKS_HASH_T6 ? 2 : 1);
    free_compiler(C);
    free(C);
    *out = c;
    return GSVM_OK;
}
