/* Finding a mission's script: the file stem rule of the runtime (as its code
 * does it, not as the docs draw it) and the activities fallback. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mission/internal.h"

gsvm_status gsvm_mission_file_stem(const char *internal_name, const char *display_name,
                                   char *out, size_t out_size, gsvm_error *err)
{
    const char *name = internal_name && internal_name[0] ? internal_name : display_name;
    if (!name)
        name = "";
    char stem[GSVM_MISSION_MAX_STEM + 2];
    size_t n = 0;
    bool pending_sep = false, too_long = false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        unsigned char c = *p;
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum) {
            pending_sep = n > 0; /* runs become one '_', only between kept characters */
            continue;
        }
        size_t need = (pending_sep ? 1 : 0) + 1;
        if (n + need > GSVM_MISSION_MAX_STEM) {
            too_long = true;
            break;
        }
        if (pending_sep)
            stem[n++] = '_';
        pending_sep = false;
        stem[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    stem[n] = 0;
    if (n == 0) {
        strcpy(stem, "unnamed");
        n = 7;
    }
    if (!too_long && stem[0] >= '0' && stem[0] <= '9') {
        if (n + 1 > GSVM_MISSION_MAX_STEM)
            too_long = true;
        else {
            memmove(stem + 1, stem, n + 1);
            stem[0] = '_';
            n++;
        }
    }
    if (too_long)
        return gsvm_error_set(err, GSVM_ERR_INPUT, name, "file_error: the script file stem is 120 characters or more");
    if (n + 1 > out_size)
        return gsvm_error_set(err, GSVM_ERR_USAGE, name, "stem buffer too small");
    memcpy(out, stem, n + 1);
    return GSVM_OK;
}

/* 1: read; 0: missing; -1: error (err set). */
static int read_script(const char *path, char **text, size_t *len, gsvm_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        gsvm_error_set(err, GSVM_ERR_IO, path, "file_error: %s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        gsvm_error_set(err, GSVM_ERR_IO, path, "file_error: not a regular file");
        return -1;
    }
    if (st.st_size <= 0 || st.st_size > (off_t)GSVM_MISSION_MAX_SOURCE) {
        gsvm_error_set(err, GSVM_ERR_INPUT, path, "source_too_large: a script is 1 to %u bytes",
                       GSVM_MISSION_MAX_SOURCE);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        gsvm_error_set(err, GSVM_ERR_IO, path, "file_error: %s", strerror(errno));
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!buf || got != (size_t)st.st_size) {
        free(buf);
        gsvm_error_set(err, GSVM_ERR_IO, path, "file_error: short read");
        return -1;
    }
    buf[got] = 0;
    *text = buf;
    *len = got;
    return 1;
}

gsvm_status gsvm_mission_read_script(const char *path, char **text, size_t *len, gsvm_error *err)
{
    gsvm_error_clear(err);
    *text = NULL;
    *len = 0;
    if (strcmp(path, "-") != 0) {
        int rc = read_script(path, text, len, err);
        if (rc == 0)
            return gsvm_error_set(err, GSVM_ERR_IO, path, "cannot open: %s", strerror(ENOENT));
        return rc < 0 ? err->status : GSVM_OK;
    }
    /* Standard input: at most one byte past the limit is read. */
    char *buf = malloc(GSVM_MISSION_MAX_SOURCE + 2);
    if (!buf)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, path, "out of memory");
    size_t got = fread(buf, 1, GSVM_MISSION_MAX_SOURCE + 1, stdin);
    if (got == 0 || got > GSVM_MISSION_MAX_SOURCE) {
        free(buf);
        return gsvm_error_set(err, GSVM_ERR_INPUT, path, "source_too_large: a script is 1 to %u bytes",
                              GSVM_MISSION_MAX_SOURCE);
    }
    buf[got] = 0;
    *text = buf;
    *len = got;
    return GSVM_OK;
}

gsvm_status gsvm_mission_find_script(const char *root, const char *internal_name,
                                     const char *display_name, uint32_t activity_index,
                                     uint32_t definition_hash, char **text, size_t *len,
                                     char *path_out, size_t path_size, gsvm_error *err)
{
    char stem[GSVM_MISSION_MAX_STEM + 2];
    gsvm_status st = gsvm_mission_file_stem(internal_name, display_name, stem, sizeof stem, err);
    if (st != GSVM_OK)
        return st;
    char path[2048];
    snprintf(path, sizeof path, "%s/scripts/%s/%s.lua", root, stem, stem);
    int rc = read_script(path, text, len, err);
    if (rc == 0) {
        /* Only a missing file falls back; a read or size error does not. */
        snprintf(path, sizeof path, "%s/scripts/activities/a_%04u_%08x.lua", root,
                 (unsigned)activity_index, (unsigned)definition_hash);
        rc = read_script(path, text, len, err);
        if (rc == 0)
            return gsvm_error_set(err, GSVM_ERR_INPUT, root, "no_script: neither scripts/%s/%s.lua nor %s exists",
                                  stem, stem, path + strlen(root) + 1);
    }
    if (rc < 0)
        return err->status;
    snprintf(path_out, path_size, "%s", path);
    return GSVM_OK;
}
