/* A driver that replays a fuzz target without libFuzzer.
 *
 * usage: replay_fuzz_X SEEDS_FILE
 * SEEDS_FILE lists seed files or directories, one per line, relative to the
 * source directory; "$SHARED/" at the start of a line means the shared/
 * folder (GSVM_SHARED_DIR), and such lines are skipped when it is absent.
 * Every seed is fed whole, then as a fixed number of deterministic mutations
 * (bit flips, byte sets, truncations, splices), so the run is repeatable. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static long runs;
static int mutations_per_seed = 64;

static void feed(const uint8_t *data, size_t size)
{
    /* Copy into an exact-size allocation so ASan catches any over-read. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        exit(1);
    memcpy(copy, data, size);
    LLVMFuzzerTestOneInput(copy, size);
    free(copy);
    runs++;
}

static void mutate_and_feed(const uint8_t *data, size_t size)
{
    feed(data, size);
    uint8_t *m = malloc(size + 16);
    if (!m)
        exit(1);
    for (int i = 0; i < mutations_per_seed; i++) {
        memcpy(m, data, size);
        size_t n = size;
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = (size_t)(rng() % n);
            switch (rng() % 5) {
            case 0: m[at] ^= (uint8_t)(1u << (rng() % 8)); break;
            case 1: m[at] = (uint8_t)rng(); break;
            case 2: m[at] = (uint8_t)(rng() % 2 ? 0xFF : 0x00); break;
            case 3: n = at; break; /* truncate */
            case 4: { /* copy a run of bytes over another place */
                size_t from = (size_t)(rng() % n), len = 1 + (size_t)(rng() % 8);
                if (from + len <= n && at + len <= n)
                    memmove(m + at, m + from, len);
                break;
            }
            }
        }
        feed(m, n);
    }
    free(m);
}

static void feed_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: cannot stat %s\n", path);
        exit(1);
    }
    if (S_ISDIR(st.st_mode)) {
        struct dirent **names;
        int n = scandir(path, &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            if (names[i]->d_name[0] != '.') {
                char sub[4096];
                snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
                feed_path(sub);
            }
            free(names[i]);
        }
        free(names);
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        exit(1);
    }
    uint8_t *data = malloc((size_t)st.st_size + 1);
    size_t size = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    mutate_and_feed(data, size);
    free(data);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SEEDS_FILE\n", argv[0]);
        return 2;
    }
    const char *env = getenv("GSVM_REPLAY_MUTATIONS");
    if (env)
        mutations_per_seed = atoi(env);
    const char *shared = getenv("GSVM_SHARED_DIR");
    FILE *list = fopen(argv[1], "r");
    if (!list) {
        fprintf(stderr, "replay: cannot open %s\n", argv[1]);
        return 1;
    }
    char line[4096];
    int skipped = 0;
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char path[8192];
        if (strncmp(line, "$SHARED/", 8) == 0) {
            struct stat st;
            if (!shared || stat(shared, &st) != 0) {
                skipped++;
                continue;
            }
            snprintf(path, sizeof path, "%s/%s", shared, line + 8);
        } else {
            snprintf(path, sizeof path, "%s", line);
        }
        feed_path(path);
    }
    fclose(list);
    if (skipped)
        printf("skipped %d seed paths: shared/ folder not found\n", skipped);
    printf("%ld passed, 0 failed\n", runs);
    return 0;
}
