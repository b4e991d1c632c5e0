/* A minimal unit-test harness: CHECK* macros count failures with file:line,
 * and TEST_MAIN prints "N passed, N failed" and sets the exit status. */
#ifndef GSVM_TEST_H
#define GSVM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            test_passed++;                                                           \
        } else {                                                                     \
            test_failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_INT(got, want)                                                                   \
    do {                                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);                               \
        if (g_ == w_) {                                                                        \
            test_passed++;                                                                     \
        } else {                                                                               \
            test_failed++;                                                                     \
            fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
        }                                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                                  \
    do {                                                                                      \
        const char *g_ = (got), *w_ = (want);                                                 \
        if (g_ && w_ && strcmp(g_, w_) == 0) {                                                \
            test_passed++;                                                                    \
        } else {                                                                              \
            test_failed++;                                                                    \
            fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got,  \
                    g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                  \
        }                                                                                     \
    } while (0)

/* The shared/ folder (corpus, seeds, data), or NULL when it is absent.  When it
 * is absent under CI (CI=true) that is a failure, elsewhere a printed skip. */
static inline const char *test_shared_dir(void)
{
    const char *dir = getenv("GSVM_SHARED_DIR");
    FILE *probe = NULL;
    char path[4096];
    if (dir) {
        snprintf(path, sizeof path, "%s/GUIDE.md", dir);
        probe = fopen(path, "r");
    }
    if (probe) {
        fclose(probe);
        return dir;
    }
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0) {
        fprintf(stderr, "shared/ folder not found at %s under CI\n", dir ? dir : "(unset)");
        test_failed++;
    } else {
        printf("skipped: shared/ folder not found at %s\n", dir ? dir : "(unset)");
    }
    return NULL;
}

#define TEST_MAIN_END()                                          \
    do {                                                         \
        printf("%d passed, %d failed\n", test_passed, test_failed); \
        return test_failed ? 1 : 0;                              \
    } while (0)

#endif
