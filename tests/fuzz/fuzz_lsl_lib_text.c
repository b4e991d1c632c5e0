/* Fuzz target: the LSL native library's readers of script-supplied text --
 * casts from string, JSON (llJson*), CSV, llParseString2List, Base64,
 * llUnescapeURL, index arithmetic -- and the JSON reader of event arguments.
 *
 * The input is split at 0x01 bytes into up to four fields used as string
 * (and, cast, integer) arguments.  Everything runs on a 64 KiB heap so the
 * Stack-Heap Collision paths are exercised too; at the end every value is
 * released and the heap must be back at zero. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/builtins.h"
#include "lsl/value.h"

#define MAX_KEEP 1024

typedef struct fz {
    lsl_heap heap;
    lsl_lib_state state;
    gsvm_error err;
    lsl_call_ctx ctx;
    lsl_value keep[MAX_KEEP];
    size_t nkeep;
} fz;

static lsl_value hold(fz *f, lsl_value v)
{
    if (f->nkeep < MAX_KEEP)
        f->keep[f->nkeep++] = v;
    else
        lsl_value_release(&v);
    return v;
}

static lsl_value str(fz *f, const char *s, size_t n)
{
    lsl_value v;
    if (lsl_string_new(&f->heap, LSL_TYPE_STRING, s, n, &v, &f->err))
        v = lsl_empty(LSL_TYPE_STRING);
    return hold(f, v);
}

static lsl_value cstr(fz *f, const char *s) { return str(f, s, strlen(s)); }

/* The builtins by name, looked up once per call site: the lookup is a
 * search with a string compare per entry, which under libFuzzer's compare
 * hooks cost more than the calls themselves. */
static const lsl_builtin *builtin(const char *name)
{
    static struct {
        const char *name;
        const lsl_builtin *b;
    } cache[128];
    static size_t n;
    for (size_t i = 0; i < n; i++)
        if (cache[i].name == name) /* the same string literal */
            return cache[i].b;
    const lsl_builtin *b = lsl_builtin_by_name(name, strlen(name));
    if (!b)
        abort();
    if (n < sizeof cache / sizeof cache[0]) {
        cache[n].name = name;
        cache[n++].b = b;
    }
    return b;
}

/* Calls a builtin by name; a failed call gives an empty value of its type. */
static lsl_value call(fz *f, const char *name, int n, const lsl_value *args)
{
    const lsl_builtin *b = builtin(name);
    lsl_value ret;
    gsvm_status st = lsl_builtin_call(b, &f->ctx, args, (size_t)n, &ret);
    if (st != GSVM_OK && st != GSVM_ERR_FAULT && st != GSVM_ERR_LIMIT)
        abort(); /* argument types are right: nothing else may fail */
    return hold(f, ret);
}

static lsl_value cast(fz *f, lsl_value v, lsl_type to)
{
    lsl_value out;
    if (lsl_value_cast(&f->heap, &v, to, &out, &f->err))
        return lsl_empty(to);
    return hold(f, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fz f; /* reset below; static only to keep the stack small */
    memset(&f, 0, sizeof f);
    lsl_heap_init(&f.heap, LSL_DEFAULT_MEMORY_LIMIT);
    lsl_lib_state_init(&f.state, size);
    f.ctx = (lsl_call_ctx){&f.heap, &f.state, &f.err};

    const char *text = (const char *)data;
    lsl_value fld[4];
    size_t start = 0;
    int nf = 0;
    for (size_t i = 0; i <= size && nf < 4; i++)
        if (i == size || data[i] == 0x01) {
            fld[nf++] = str(&f, text + start, i - start);
            start = i + 1;
        }
    while (nf < 4)
        fld[nf++] = cstr(&f, "");

    /* casts and their texts */
    for (int k = 0; k < 2; k++) {
        lsl_type to[] = {LSL_TYPE_INTEGER, LSL_TYPE_FLOAT, LSL_TYPE_VECTOR, LSL_TYPE_ROTATION, LSL_TYPE_KEY};
        for (size_t t = 0; t < sizeof to / sizeof to[0]; t++) {
            lsl_value c = cast(&f, fld[k], to[t]);
            cast(&f, c, LSL_TYPE_STRING);
            (void)lsl_value_truthy(&c);
        }
    }
    lsl_value i1 = cast(&f, fld[1], LSL_TYPE_INTEGER), i2 = cast(&f, fld[2], LSL_TYPE_INTEGER),
              i3 = cast(&f, fld[3], LSL_TYPE_INTEGER);

    /* strings */
    call(&f, "llGetSubString", 3, (lsl_value[]){fld[0], i1, i2});
    call(&f, "llDeleteSubString", 3, (lsl_value[]){fld[0], i1, i2});
    call(&f, "llInsertString", 3, (lsl_value[]){fld[0], i1, fld[2]});
    call(&f, "llReplaceSubString", 4, (lsl_value[]){fld[0], fld[1], fld[2], i3});
    call(&f, "llSubStringIndex", 2, (lsl_value[]){fld[0], fld[1]});
    call(&f, "llToUpper", 1, fld);
    call(&f, "llToLower", 1, fld);
    call(&f, "llStringTrim", 2, (lsl_value[]){fld[0], i1});
    call(&f, "llOrd", 2, (lsl_value[]){fld[0], i1});
    call(&f, "llChar", 1, (lsl_value[]){i1});
    call(&f, "llStringLength", 1, fld);
    lsl_value esc = call(&f, "llEscapeURL", 1, fld);
    call(&f, "llUnescapeURL", 1, fld);
    call(&f, "llUnescapeURL", 1, &esc);

    /* codecs */
    call(&f, "llBase64ToString", 1, fld);
    call(&f, "llBase64ToInteger", 1, fld);
    call(&f, "llXorBase64", 2, fld);
    call(&f, "llXorBase64StringsCorrect", 2, fld);
    call(&f, "llXorBase64Strings", 2, fld);
    call(&f, "llStringToBase64", 1, fld);
    call(&f, "llMD5String", 2, (lsl_value[]){fld[0], i1});

    /* lists from text */
    lsl_value csv0 = call(&f, "llCSV2List", 1, fld);
    lsl_value csv1 = call(&f, "llCSV2List", 1, &fld[1]);
    lsl_value csv2 = call(&f, "llCSV2List", 1, &fld[2]);
    lsl_value parsed = call(&f, "llParseString2List", 3, (lsl_value[]){fld[0], csv1, csv2});
    call(&f, "llParseStringKeepNulls", 3, (lsl_value[]){fld[0], csv1, csv2});
    /* a mixed list: the strings, their casts */
    lsl_value mixed = lsl_empty(LSL_TYPE_LIST);
    for (size_t i = 0; i < lsl_list_len(&parsed) && i < 64; i++) {
        const lsl_value *e = &lsl_list_items(&parsed)[i];
        lsl_type to = (lsl_type)(1 + i % 6);
        lsl_value c = to == LSL_TYPE_STRING ? *e : cast(&f, *e, to), next;
        if (lsl_list_append(&f.heap, &mixed, &c, false, &next, &f.err) == GSVM_OK) {
            lsl_value_release(&mixed);
            mixed = next;
        }
    }
    hold(&f, mixed);
    call(&f, "llListSort", 3, (lsl_value[]){mixed, i1, i2});
    call(&f, "llListSortStrided", 4, (lsl_value[]){mixed, i1, i2, i3});
    call(&f, "llListRandomize", 2, (lsl_value[]){mixed, i1});
    call(&f, "llList2CSV", 1, &mixed);
    call(&f, "llDumpList2String", 2, (lsl_value[]){mixed, fld[1]});
    call(&f, "llListStatistics", 2, (lsl_value[]){i1, mixed});
    call(&f, "llListFindList", 2, (lsl_value[]){mixed, csv1});
    call(&f, "llListFindListNext", 3, (lsl_value[]){csv0, csv1, i2});
    call(&f, "llList2List", 3, (lsl_value[]){mixed, i1, i2});
    call(&f, "llDeleteSubList", 3, (lsl_value[]){mixed, i1, i2});
    call(&f, "llList2ListStrided", 4, (lsl_value[]){mixed, i1, i2, i3});
    call(&f, "llList2ListSlice", 5, (lsl_value[]){mixed, i1, i2, i3, i1});
    call(&f, "llListInsertList", 3, (lsl_value[]){mixed, csv1, i1});
    call(&f, "llListReplaceList", 4, (lsl_value[]){mixed, csv1, i1, i2});
    call(&f, "llList2String", 2, (lsl_value[]){mixed, i1});
    call(&f, "llList2Integer", 2, (lsl_value[]){mixed, i1});
    call(&f, "llList2Float", 2, (lsl_value[]){mixed, i2});
    call(&f, "llList2Key", 2, (lsl_value[]){mixed, i3});

    /* JSON */
    lsl_value specs = lsl_empty(LSL_TYPE_LIST);
    for (size_t i = 0; i < lsl_list_len(&csv1) && i < 16; i++) {
        const lsl_value *e = &lsl_list_items(&csv1)[i];
        const char *s = lsl_str_data(e);
        lsl_value spec = (s[0] >= '0' && s[0] <= '9') || s[0] == '-' ? cast(&f, *e, LSL_TYPE_INTEGER) : *e, next;
        if (lsl_list_append(&f.heap, &specs, &spec, false, &next, &f.err) == GSVM_OK) {
            lsl_value_release(&specs);
            specs = next;
        }
    }
    hold(&f, specs);
    call(&f, "llJson2List", 1, fld);
    call(&f, "llJsonGetValue", 2, (lsl_value[]){fld[0], specs});
    call(&f, "llJsonValueType", 2, (lsl_value[]){fld[0], specs});
    lsl_value set = call(&f, "llJsonSetValue", 3, (lsl_value[]){fld[0], specs, fld[2]});
    call(&f, "llJson2List", 1, &set);
    lsl_value arr = cstr(&f, "\xef\xb7\x92"), obj = cstr(&f, "\xef\xb7\x91");
    call(&f, "llList2Json", 2, (lsl_value[]){arr, mixed});
    call(&f, "llList2Json", 2, (lsl_value[]){obj, csv2});

    /* operators over pairs of the values made so far: every operator on
     * each value with itself and with three partners the input picks (all
     * 16 x 16 pairs cost ~5000 mostly refused operations per input, each
     * formatting its error message; refused pairs are skipped but for the
     * first value's) */
    size_t nv = f.nkeep < 16 ? f.nkeep : 16;
    for (size_t x = 0; x < nv; x++) {
        for (size_t k = 0; k < 4; k++) {
            size_t y = k == 0 || size == 0 ? x : (x + data[(x * 4 + k) % size]) % nv;
            for (int o = LSL_OP_ADD; o <= LSL_OP_OR; o++) {
                /* a refusal depends on the two types only (its message is
                 * all it does): the first value's pairs take that path */
                if (x > 0 && lsl_op_result_type((lsl_op)o, f.keep[x].type, f.keep[y].type) ==
                                 LSL_TYPE_VOID)
                    continue;
                lsl_value r;
                if (lsl_value_binop(&f.heap, (lsl_op)o, &f.keep[x], &f.keep[y], &r, &f.err) == GSVM_OK)
                    lsl_value_release(&r);
            }
        }
        for (int o = LSL_UOP_NEG; o <= LSL_UOP_BITNOT; o++) {
            lsl_value r;
            if (lsl_value_unop((lsl_unop)o, &f.keep[x], &r, &f.err) == GSVM_OK)
                lsl_value_release(&r);
        }
        lsl_value copy;
        if (lsl_value_copy_to(&f.heap, &f.keep[x], &copy, &f.err) == GSVM_OK)
            lsl_value_release(&copy);
    }

    /* event arguments from JSON */
    json_error_t je;
    json_t *j = json_loadb(text, size, JSON_DECODE_ANY, &je);
    if (j) {
        for (int t = LSL_TYPE_INTEGER; t <= LSL_TYPE_LIST; t++) {
            lsl_value v;
            if (lsl_value_from_json(&f.heap, j, (lsl_type)t, &v, &f.err) == GSVM_OK) {
                json_t *back = lsl_value_to_json(&v);
                json_decref(back);
                lsl_value_release(&v);
            }
        }
        json_decref(j);
    }

    for (size_t i = 0; i < f.nkeep; i++)
        lsl_value_release(&f.keep[i]);
    if (f.heap.used != 0)
        abort(); /* accounting must balance */
    return 0;
}
