/* The corpus .bin files the VM tests run over: the 43 of bin/ and the 15
 * of more/bin/ (../shared/corpus/pathologic), in a fixed order, and the
 * default arguments the tests send with each handled event. */
#ifndef GSVM_TEST_PATHO_CORPUS_FILES_H
#define GSVM_TEST_PATHO_CORPUS_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "gsvm/patho_vm.h"
#include "test.h"

#define CORPUS_BIN_FILES 58

/* Calls fn(path, user) for each file; returns how many, or -1 (and counts a
 * failure) when a folder cannot be read. */
static inline int corpus_each_bin(const char *shared, void (*fn)(const char *path, void *user),
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
                fn(path, user);
                files++;
            }
            free(names[i]);
        }
        free(names);
    }
    return files;
}

/* Default arguments for an event: zero values, but a non-null object so
 * that handlers get further than their first method call. */
static inline uint32_t corpus_event_args(const gsvm_patho_event *ev, gsvm_patho_value *args)
{
    uint32_t n = ev->nargs < 8 ? ev->nargs : 8;
    for (uint32_t i = 0; i < n; i++) {
        gsvm_patho_value_default(&args[i], ev->arg_types[i]);
        if (args[i].type == GSVM_PATHO_OBJECT)
            args[i].as.object = 1;
    }
    return n;
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
