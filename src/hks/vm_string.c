/* Interned strings: one object per distinct byte string, so equality and
 * table lookups by string compare pointers.  The hash is Lua 5.1's (length
 * seed, at most 32 sampled bytes), which also makes pairs() visit string
 * keys in the order stock Lua 5.1 does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/vm.h"

static uint32_t str_hash(const char *s, size_t l)
{
    uint32_t h = (uint32_t)l;
    size_t step = (l >> 5) + 1;
    for (size_t l1 = l; l1 >= step; l1 -= step)
        h = h ^ ((h << 5) + (h >> 2) + (unsigned char)s[l1 - 1]);
    return h;
}

void hv_strtab_resize(hv_thread *L, uint32_t n)
{
    hv_vm *vm = L->vm;
    hv_str **nt = hv_alloc(L, NULL, 0, n * sizeof *nt);
    memset(nt, 0, n * sizeof *nt);
    for (uint32_t i = 0; i < vm->strsize; i++) {
        hv_str *s = vm->strt[i];
        while (s) {
            hv_str *next = s->hnext;
            uint32_t h = s->hash & (n - 1);
            s->hnext = nt[h];
            nt[h] = s;
            s = next;
        }
    }
    hv_free(vm, vm->strt, vm->strsize * sizeof *vm->strt);
    vm->strt = nt;
    vm->strsize = n;
}

hv_str *hv_str_new(hv_thread *L, const char *s, size_t len)
{
    hv_vm *vm = L->vm;
    if (len > vm->lim.max_string)
        hv_error(L, "string length %zu exceeds the limit of %u bytes", len, vm->lim.max_string);
    uint32_t h = str_hash(s, len);
    for (hv_str *o = vm->strt[h & (vm->strsize - 1)]; o; o = o->hnext)
        if (o->len == len && o->hash == h && memcmp(o->data, s, len) == 0)
            return o;
    if (vm->nstr >= vm->strsize && vm->strsize < (1u << 30))
        hv_strtab_resize(L, vm->strsize * 2);
    hv_str *o = (hv_str *)hv_newobj(L, HV_TSTR, sizeof(hv_str) + len + 1);
    o->hash = h;
    o->len = (uint32_t)len;
    memcpy(o->data, s, len);
    o->data[len] = 0;
    uint32_t b = h & (vm->strsize - 1);
    o->hnext = vm->strt[b];
    vm->strt[b] = o;
    vm->nstr++;
    return o;
}

hv_str *hv_str_cstr(hv_thread *L, const char *s)
{
    return hv_str_new(L, s, strlen(s));
}

void hv_str_remove(hv_vm *vm, hv_str *s)
{
    hv_str **pp = &vm->strt[s->hash & (vm->strsize - 1)];
    while (*pp && *pp != s)
        pp = &(*pp)->hnext;
    if (*pp) {
        *pp = s->hnext;
        vm->nstr--;
    }
}

/* Lua 5.1's LUAI_NUMFFORMAT.  A float32 VM formats the float's exact value
 * the same way, so integers below 2^24 print as stock Lua prints them. */
int hv_num2str(hv_vm *vm, double n, char *buf)
{
    (void)vm;
    /* integers below 1e14 print as their digits under "%.14g": written
     * here without printf (most numbers a script turns into text are
     * counters and indices); -0 and everything else go to snprintf */
    if (n == 0 && !signbit(n)) {
        buf[0] = '0';
        buf[1] = 0;
        return 1;
    }
    if (n > -1e14 && n < 1e14 && n != 0) {
        int64_t k = (int64_t)n;
        if ((double)k == n) {
            char tmp[24];
            int len = 0;
            uint64_t u = k < 0 ? (uint64_t)-k : (uint64_t)k;
            do {
                tmp[len++] = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            int at = 0;
            if (k < 0)
                buf[at++] = '-';
            while (len)
                buf[at++] = tmp[--len];
            buf[at] = 0;
            return at;
        }
    }
    return snprintf(buf, 32, "%.14g", n);
}

hv_str *hv_tostr_num(hv_thread *L, double n)
{
    char b[40];
    int k = hv_num2str(L->vm, n, b);
    return hv_str_new(L, b, (size_t)k);
}

/* Lua 5.1's conversion: strtod (which reads hex too), surrounding spaces
 * allowed, nothing else after the number. */
bool hv_str2num(const char *s, size_t len, double *out)
{
    char tmp[64];
    char *copy = tmp;
    if (len >= sizeof tmp) {
        copy = malloc(len + 1);
        if (!copy)
            return false;
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    bool ok = false;
    if (strlen(copy) == len) { /* an embedded NUL ends nothing: not a number */
        char *end;
        double d = strtod(copy, &end);
        if (end != copy) {
            if (*end == 'x' || *end == 'X')
                d = (double)strtoul(copy, &end, 16);
            while (*end == ' ' || (*end >= '\t' && *end <= '\r'))
                end++;
            if (*end == 0) {
                *out = d;
                ok = true;
            }
        }
    }
    if (copy != tmp)
        free(copy);
    return ok;
}

void hv_pushlstr(hv_thread *L, const char *s, size_t n)
{
    hv_str *o = hv_str_new(L, s, n);
    hv_pushstr(L, o);
}

void hv_pushcstr(hv_thread *L, const char *s)
{
    hv_pushlstr(L, s, strlen(s));
}

void hv_buf_init(hv_thread *L, hv_buf *b)
{
    b->p = NULL;
    b->n = b->cap = 0;
    b->prev = L->vm->bufs;
    L->vm->bufs = b;
}

void hv_buf_unwind(hv_vm *vm, hv_buf *to)
{
    while (vm->bufs && vm->bufs != to) {
        hv_buf *b = vm->bufs;
        vm->bufs = b->prev;
        free(b->p);
        b->p = NULL;
    }
}

char *hv_bytes_reserve(hv_thread *L, char **p, size_t *cap, size_t need, size_t first)
{
    if (need > *cap) {
        size_t nc = *cap ? *cap * 2 : first;
        while (nc < need)
            nc *= 2;
        char *np = realloc(*p, nc);
        if (!np)
            hv_throw(L, HV_ERRMEM);
        *p = np;
        *cap = nc;
    }
    return *p;
}

void hv_buf_add(hv_thread *L, hv_buf *b, const char *s, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > L->vm->lim.max_string)
        hv_error(L, "string length exceeds the limit of %u bytes", L->vm->lim.max_string);
    hv_bytes_reserve(L, &b->p, &b->cap, b->n + n, 64);
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

/* Closes the newest buffer (buffers close in the reverse order of opening). */
void hv_buf_free(hv_thread *L, hv_buf *b)
{
    hv_buf_unwind(L->vm, b);
    L->vm->bufs = b->prev;
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}
