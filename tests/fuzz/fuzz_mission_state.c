/* Fuzz target: reopening a mission from a state file (the SQLite record and
 * every row decoder behind it).  The input is written to a temporary file
 * and opened as --state; a bad file must be refused cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gsvm/mission.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* In memory when /dev/shm is there: the state file is written, opened
     * in WAL mode and removed once per input. */
    char path[64];
    snprintf(path, sizeof path, "%s/gsvm_fuzz_state_XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    static const char src[] =
        "return { on_load = function(c, st) c:set_variable('loads', (st:variable('loads') or 0) + 1) end,\n"
        " on_event_effect_result = function(c, st, ev) c:set_variable('r', ev.outcome) end,\n"
        " on_event_timer_elapsed = function(c, st, ev) c:set_variable('t', ev.timer_name) end,\n"
        " on_event_session_joined = function(c, st, ev) c:set_variable('j', ev.sequence)\n"
        "   local d = c:slot('vault_door') local ok, k = d:applied{channel = 'lock'}\n"
        "   c:set_variable('a', tostring(ok) .. tostring(k and k.value) .. tostring(d:sequences().lock))\n"
        "   local g = c:slot('link'):ghost_link() c:set_variable('g', g and g.progress or -1) end }";
    /* The slots of the vault example, so slot records and waiting reports
     * of its state files are read back and used. */
    static const char world_json[] =
        "{\"slots\": [{\"id\": \"vault_door\", \"type\": 3}, {\"id\": \"link\", \"type\": 7}]}";
    static gsvm_mission_world *w; /* parsed once: only the state file is the input */
    gsvm_error werr;
    if (!w) {
        /* SQLite's allocation statistics take a global mutex on every
         * malloc and free; nothing here reads them. */
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        if (gsvm_mission_world_parse(world_json, sizeof world_json - 1, "w", &w, &werr) != GSVM_OK)
            abort();
    }
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.world = w;
    cfg.state_path = path;
    cfg.activity_id = "fuzz";
    cfg.callback_budget = 100000;
    gsvm_mission *m = NULL;
    gsvm_error err;
    if (gsvm_mission_open(&cfg, src, sizeof src - 1, &m, &err) == GSVM_OK) {
        gsvm_mission_advance(m, 61000, &err);
        gsvm_mission_close(m);
    }
    char aux[80];
    unlink(path);
    snprintf(aux, sizeof aux, "%s-wal", path);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-shm", path);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-journal", path);
    unlink(aux);
    return 0;
}
