/* The corpus .bin files the VM tests run over: the 43 of bin/ and the 15
 * of more/bin/ (../shared/corpus/pathologic), in a fixed order, and the
 * events the tests send (with drive.h's default arguments). */
#ifndef GSVM_TEST_PATHO_CORPUS_FILES_H
#define GSVM_TEST_PATHO_CORPUS_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "drive.h"
#include "gsvm/patho_vm.h"
#include "test.h"

#define CORPUS_BIN_FILES 58

/* Loads each file and calls fn(path, program, user) (the program is freed
 * after); a file that does not load counts a failure.  Returns how many
 * files, or -1 (and counts a failure) when a folder cannot be read. */
static inline int corpus_each_bin(const char *shared,
                                  void (*fn)(const char *path, gsvm_patho_program *prog,
                                             void *user),
                                  void *user)
{
    static const char *const dirs[] = {"bin/2005",      "bin/alpha",      "bin/hd",
                                       "more/bin/2005", "more/bin/alpha", "more/bin/hd"};
    int files = 0;
    for (unsigned d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/corpus/pathologic/%s", shared, dirs[d]);
        struct dirent **names;
        int n = scandir(dir, &names, NULL, alphasort);
        if (n < 0) {
            fprintf(stderr, "cannot read %s\n", dir);
            test_failed++;
            return -1;
        }
        for (int i = 0; i < n; i++) {
            size_t len = strlen(names[i]->d_name);
            if (len > 4 && strcmp(names[i]->d_name + len - 4, ".bin") == 0) {
                char path[4400];
                snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
                gsvm_patho_program *prog;
                gsvm_error err;
                if (gsvm_patho_load_file(path, GSVM_PATHO_LAYOUT_AUTO, &prog, &err) != GSVM_OK) {
                    fprintf(stderr, "%s: does not load: %s\n", path, err.message);
                    test_failed++;
                } else {
                    fn(path, prog, user);
                    gsvm_patho_free(prog);
                }
                files++;
            }
            free(names[i]);
        }
        free(names);
    }
    return files;
}

/* The last line a sim run printed (a gsvm_patho_sim_opts line callback). */
typedef struct corpus_last_line {
    char text[512];
} corpus_last_line;

static inline void corpus_keep_last(void *user, const char *line, size_t len)
{
    corpus_last_line *l = user;
    snprintf(l->text, sizeof l->text, "%.*s", (int)len, line);
}

/* Every event the program handles, in table order (duplicates kept). */
static inline uint32_t corpus_events(const gsvm_patho_program *p, const gsvm_patho_event **out,
                                     uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < p->ntasks; t++)
        for (uint32_t e = 0; e < p->tasks[t].nevents && n < max; e++)
            out[n++] = &p->tasks[t].events[e];
    for (uint32_t e = 0; e < p->nevents && n < max; e++)
        out[n++] = &p->events[e];
    return n;
}

#endif
