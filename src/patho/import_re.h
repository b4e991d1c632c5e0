/* The listing syntax of the community disassembler, as templates
 * (import_re_match.c) and the matchers the importer (import_re.c) uses for
 * them and for its directives. */
#ifndef GSVM_PATHO_IMPORT_RE_H
#define GSVM_PATHO_IMPORT_RE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One instruction form: its pattern (letters in import_re_match.c), the
 * opcode, and PERM: per operand letter of the op (isa.def order) the index
 * of the capture that fills it, or '-' for zero. */
typedef struct tmpl {
    const char *pattern;
    int op;
    const char *perm;
} tmpl;
extern const tmpl re_templates[];
extern const size_t re_ntemplates;

#define MAX_CAPS 8

typedef struct capture {
    int64_t v;
    int task;          /* -1 when not a variable */
    const char *s;     /* %q, %n, %a, %y: the text */
    size_t n;
} capture;

const char *re_skip_spaces(const char *s, const char *end);
/* Each advances *ps past what it matched, and leaves it when it fails. */
bool re_match_uint(const char **ps, const char *end, int64_t *out, bool allow_sign);
bool re_match_lit(const char **ps, const char *end, const char *lit);
bool re_match_ref(const char **ps, const char *end, capture *c, int want);
/* Matches the whole of [s, end) against template `pat`: its captures. */
bool re_match(const char *pat, const char *s, const char *end, capture *caps, int *ncaps);

#endif
