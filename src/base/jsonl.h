/* JSON Lines through jansson: every `run` verb reads one JSON object per
 * input line and writes one compact object per output line. */
#ifndef GSVM_BASE_JSONL_H
#define GSVM_BASE_JSONL_H

#include <stdio.h>

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/gsvm.h"

/* Reads a whole JSON Lines file: an array of the objects on its non-blank
 * lines.  A line that is not a JSON object is an error naming file:line:col. */
gsvm_status gsvm_jsonl_load(const char *path, json_t **out, gsvm_error *err);
/* Parses JSON Lines text already in memory (same rules). */
gsvm_status gsvm_jsonl_parse(const char *text, size_t len, const char *name, json_t **out,
                             gsvm_error *err);
/* The same, also giving the 1-based source line of each object: `*lines`
 * (malloc'ed, freed by the caller; NULL when there are no objects) holds
 * json_array_size(*out) entries, so later errors can name FILE:LINE. */
gsvm_status gsvm_jsonl_parse_lines(const char *text, size_t len, const char *name, json_t **out,
                                   long **lines, gsvm_error *err);
gsvm_status gsvm_jsonl_load_lines(const char *path, json_t **out, long **lines, gsvm_error *err);
/* One object at a time, for a reader that acts on each line before the next
 * (a long timeline need not be held in memory): the next non-blank line at or
 * after `*pos` (advanced past it; `*line` counts the lines read, start both at
 * 0), or *out = NULL at the end.  Same rules and errors as above. */
gsvm_status gsvm_jsonl_next(const char *text, size_t len, const char *name, size_t *pos, long *line,
                            json_t **out, gsvm_error *err);
/* Writes `obj` compactly on one line (keys in insertion order) and flushes,
 * so that output interleaves correctly with a host's own.  Steals `obj`. */
void gsvm_jsonl_emit(FILE *out, json_t *obj);

#endif
