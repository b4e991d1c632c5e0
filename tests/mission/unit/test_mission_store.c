/* The SQLite record: everything survives a reopen from the file (variables,
 * timers, phase, revision, sequences, pending requests, queued results,
 * fault), and a process killed with SIGKILL at any instant reopens to its
 * last committed callback and continues through on_load. */
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static char dir[] = "/tmp/gsvm_mission_store_XXXXXX";

static gsvm_mission *open_file(const char *src, const char *db, rec_host *h, gsvm_mission_answer a)
{
    gsvm_mission_config cfg;
    harness_config(&cfg, h);
    h->answer = a;
    cfg.state_path = db;
    gsvm_error err;
    gsvm_mission *m = open_with(src, &cfg, &err);
    if (!m)
        fprintf(stderr, "open %s: %s\n", db, err.message);
    return m;
}

static const char script[] =
    "return {\n"
    " on_start = function(c) c:set_variable('s', 'start') c:start_timer('late', 1000) c:set_phase(3) end,\n"
    " on_load = function(c, st) c:set_variable('loads', (st:variable('loads') or 0) + 1) end,\n"
    " on_event_session_joined = function(c, st) c:set_variable('k', c.lifetime:set{state = 1}.value) end,\n"
    " on_event_effect_result = function(c, st, ev) c:set_variable('r', ev.request_key.value .. ev.outcome) end,\n"
    " on_event_timer_elapsed = function(c, st, ev) c:set_variable('t', ev.timer_name) end,\n"
    " on_event_session_left = function(c, st) c:set_variable('bad', 1) error('left') end }";

static void test_reopen_file(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/a.db", dir);
    rec_host h;
    gsvm_error err;
    gsvm_mission *m = open_file(script, db, &h, GSVM_MISSION_STALL);
    CHECK(m != NULL);
    if (!m)
        return;
    report(m, "session_joined"); /* its request stalls in delivery */
    CHECK_INT(gsvm_mission_pending_requests(m), 1);
    gsvm_mission_advance(m, 500, &err);
    gsvm_mission_close(m);

    /* A new process: the record, the outbox and the clock come back; on_load runs. */
    m = open_file(script, db, &h, GSVM_MISSION_STALL);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR(var_str(m, "s"), "start");
    CHECK_INT(var_int(m, "loads"), 1);
    CHECK_STR(var_str(m, "k"), "1");
    CHECK_INT(gsvm_mission_phase(m), 3);
    CHECK_INT(gsvm_mission_timer_count(m), 1);
    CHECK_INT(gsvm_mission_pending_requests(m), 1);
    CHECK_INT(gsvm_mission_now_ms(m), 500);
    /* The delivery in flight resumes: 2 s after its first try it is refused. */
    gsvm_mission_advance(m, 1500, &err);
    CHECK_STR(var_str(m, "r"), "1refused");
    /* The timer that ran out fires after on_load. */
    gsvm_mission_advance(m, 50, &err);
    CHECK_STR(var_str(m, "t"), "late");
    uint64_t rev = gsvm_mission_revision(m);
    report(m, "session_left"); /* fault */
    CHECK(gsvm_mission_faulted(m));
    gsvm_mission_close(m);

    m = open_file(script, db, &h, GSVM_MISSION_ACCEPT);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(gsvm_mission_faulted(m)); /* stays faulted across reopen */
    CHECK_INT(h.faults, 1);
    CHECK_INT(var_int(m, "loads"), 1); /* no on_load for a faulted record */
    CHECK_INT(var_int(m, "bad"), -999999);
    CHECK_INT(gsvm_mission_revision(m), rev);
    CHECK_INT(gsvm_mission_reload_script(m, NULL, 0, &err), GSVM_OK);
    CHECK(!gsvm_mission_faulted(m));
    CHECK_INT(var_int(m, "loads"), 2);
    /* Request keys stay unique across restores. */
    report(m, "session_joined");
    CHECK_STR(var_str(m, "k"), "2");
    gsvm_mission_close(m);

    /* A file that is not a mission record is refused, not half-loaded. */
    char junk[300];
    snprintf(junk, sizeof junk, "%s/junk.db", dir);
    FILE *f = fopen(junk, "w");
    fputs("this is not sqlite at all, not even close; padding padding padding padding padding", f);
    fclose(f);
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    cfg.state_path = junk;
    CHECK(open_with(script, &cfg, &err) == NULL);
}

/* The child commits callbacks as fast as it can: each sets a = b = n, and
 * writes n to a pipe only after the commit returned. */
static const char counter[] =
    "return {\n"
    " on_start = function(c) c:set_variable('a', 0) c:set_variable('b', 0) end,\n"
    " on_load = function(c, st) c:set_variable('loads', (st:variable('loads') or 0) + 1) end,\n"
    " on_event_session_joined = function(c, st, e)\n"
    "   local n = st:variable('a') + 1 c:set_variable('a', n) c:set_phase(n % 7)\n"
    "   local q = tonumber(e.sequence)\n"
    "   if q <= (st:variable('seq') or 0) then c:set_variable('seq_bad', e.sequence) end\n"
    "   c:set_variable('seq', q)\n"
    "   c:start_timer('t' .. (n % 5), n) c:set_variable('b', n) end }";

static void child(const char *db, int fd)
{
    rec_host h;
    gsvm_mission *m = open_file(counter, db, &h, GSVM_MISSION_ACCEPT);
    if (!m)
        _exit(2);
    for (;;) {
        report(m, "session_joined");
        long long n = var_int(m, "a");
        if (write(fd, &n, sizeof n) != (ssize_t)sizeof n)
            _exit(3);
    }
}

/* Kills a child mid-open (no wait) or mid-run (after some reported commits
 * plus a delay), then reopens and checks the record. */
static void test_kill9(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/kill.db", dir);
    long long last_reported = -1, last_loads = -1;
    /* wait_reports < 0: kill at once, possibly while the child creates the
     * file or runs on_start. */
    static const struct {
        int wait_reports, delay_us;
    } rounds[] = {{-1, 0}, {-1, 300}, {5, 3000}, {5, 17000}, {1, 1000}, {5, 40000}, {-1, 2000}, {5, 9000}, {3, 23000}};
    for (size_t round = 0; round < sizeof rounds / sizeof rounds[0]; round++) {
        int p[2];
        if (pipe(p) != 0)
            return;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            child(db, p[1]);
        }
        close(p[1]);
        long long n, seen = -1;
        int got = 0;
        while (got < rounds[round].wait_reports && read(p[0], &n, sizeof n) == (ssize_t)sizeof n) {
            seen = n;
            got++;
        }
        struct timespec ts = {0, rounds[round].delay_us * 1000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        while (read(p[0], &n, sizeof n) == (ssize_t)sizeof n)
            seen = n;
        close(p[0]);
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        /* Reopen: at least the last reported commit and at most one more
         * (the one whose report the kill cut off), a == b (never half a
         * callback), the phase of the same commit, and on_load ran. */
        rec_host h;
        gsvm_mission *m = open_file(counter, db, &h, GSVM_MISSION_ACCEPT);
        CHECK(m != NULL);
        if (!m)
            return;
        long long a = var_int(m, "a"), b = var_int(m, "b"), loads = var_int(m, "loads");
        CHECK(a >= seen);
        if (seen >= 0)
            CHECK(a <= seen + 1);
        CHECK(a >= last_reported);
        CHECK_INT(a, b);
        CHECK_INT(gsvm_mission_phase(m), a % 7);
        /* The event sequence is part of the record: it continues. */
        CHECK_STR(var_str(m, "seq_bad"), "(none)");
        if (loads == -999999) {
            /* Killed before on_start committed: this open started it afresh. */
            CHECK(a == 0 && last_loads < 1);
            loads = 0;
        } else {
            CHECK(loads > last_loads); /* this open ran on_load */
        }
        last_reported = a;
        last_loads = loads;
        gsvm_mission_close(m);
    }
    printf("kill -9 rounds done, last committed counter %lld\n", last_reported);
}

/* Reports that wait in the input queue (a delivery holds them back) are
 * part of the record: the child acknowledges each report once
 * gsvm_mission_report returned, is killed, and the reopened mission delivers
 * every acknowledged report, in order, with the event sequence going on. */
static const char waiting[] =
    "return {\n"
    " on_start = function(c) c.lifetime:set{state = 1} end,\n"
    " on_event_session_joined = function(c, st, e)\n"
    "   local n = (st:variable('n') or 0) + 1 c:set_variable('n', n)\n"
    "   if e.i ~= n then c:set_variable('order_bad', e.i) end\n"
    "   local q = tonumber(e.sequence)\n"
    "   if q <= (st:variable('seq') or 0) then c:set_variable('seq_bad', e.sequence) end\n"
    "   c:set_variable('seq', q) end }";

#define WAITING_REPORTS 40

static void report_i(gsvm_mission *m, long long i)
{
    gsvm_error err;
    gsvm_mission_field f = {"i", {GSVM_MV_INT, false, i, 0, NULL, 0}};
    if (gsvm_mission_report(m, "session_joined", &f, 1, &err) != GSVM_OK)
        fprintf(stderr, "report: %s\n", err.message);
}

static void waiting_child(const char *db, int fd)
{
    rec_host h;
    /* The host never commits the on_start request: its delivery lasts 2 s of
     * server time, and the clock does not move here, so every report waits. */
    gsvm_mission *m = open_file(waiting, db, &h, GSVM_MISSION_STALL);
    if (!m)
        _exit(2);
    for (long long i = 1; i <= WAITING_REPORTS; i++) {
        report_i(m, i);
        if (write(fd, &i, sizeof i) != (ssize_t)sizeof i)
            _exit(3);
    }
    for (;;)
        pause();
}

static void test_kill9_waiting_reports(void)
{
    /* Kill after this many acknowledged reports plus a delay; -1: at once. */
    static const struct {
        int acks, delay_us;
    } rounds[] = {{-1, 0}, {1, 0}, {3, 300}, {12, 0}, {25, 150}, {WAITING_REPORTS, 0}};
    for (size_t round = 0; round < sizeof rounds / sizeof rounds[0]; round++) {
        char db[300];
        snprintf(db, sizeof db, "%s/waiting%zu.db", dir, round);
        int p[2];
        if (pipe(p) != 0)
            return;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            waiting_child(db, p[1]);
        }
        close(p[1]);
        long long n, acked = 0;
        while (acked < rounds[round].acks && read(p[0], &n, sizeof n) == (ssize_t)sizeof n)
            acked = n;
        struct timespec ts = {0, rounds[round].delay_us * 1000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        while (read(p[0], &n, sizeof n) == (ssize_t)sizeof n)
            acked = n;
        close(p[0]);
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        rec_host h;
        gsvm_mission *m = open_file(waiting, db, &h, GSVM_MISSION_ACCEPT);
        CHECK(m != NULL);
        if (!m)
            return;
        size_t kept = gsvm_mission_waiting_reports(m);
        printf("round %zu: %lld reports acknowledged, %zu kept\n", round, acked, kept);
        /* Every acknowledged report is kept; at most the one in progress more. */
        CHECK((long long)kept >= acked);
        CHECK((long long)kept <= acked + 1);
        CHECK_INT(var_int(m, "n"), -999999); /* none delivered yet */
        /* The stalled delivery resumes and is refused 2 s later; then the
         * reports run in order, numbered from 1. */
        gsvm_error err;
        if (acked > 0) /* the delivery in flight was recorded before the first report */
            CHECK_INT(gsvm_mission_pending_requests(m), 1);
        gsvm_mission_advance(m, 2000, &err);
        CHECK_INT(gsvm_mission_pending_requests(m), 0);
        CHECK_INT(gsvm_mission_waiting_reports(m), 0);
        long long delivered = kept ? var_int(m, "n") : 0;
        CHECK_INT(delivered, (long long)kept);
        /* ... and the next report continues the numbering. */
        report_i(m, delivered + 1);
        CHECK_INT(var_int(m, "n"), delivered + 1);
        CHECK_STR(var_str(m, "order_bad"), "(none)");
        CHECK_STR(var_str(m, "seq_bad"), "(none)");
        CHECK(!gsvm_mission_faulted(m));
        gsvm_mission_close(m);
    }
    printf("kill -9 with waiting reports done\n");
}

/* A record written before the event sequence, the waiting-report queue,
 * slot records and facts existed (the first format's tables) opens, keeps
 * its contents, and gains the new columns and tables. */
static void test_old_format(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/old.db", dir);
    sqlite3 *s;
    CHECK_INT(sqlite3_open(db, &s), SQLITE_OK);
    static const char old_schema[] =
        "CREATE TABLE meta(id INTEGER PRIMARY KEY CHECK(id=1), format INTEGER,"
        " started INTEGER, faulted INTEGER, fault TEXT, complete INTEGER, wipe_active INTEGER,"
        " wipe_key INTEGER, phase INTEGER, revision INTEGER, attempt INTEGER, next_timer_seq INTEGER,"
        " next_key INTEGER, mission_seq INTEGER, clock INTEGER, dlv_active INTEGER, dlv_t0 INTEGER,"
        " dlv_answer INTEGER);"
        "INSERT INTO meta VALUES(1, 1, 1, 0, '', 0, 0, 0, 4, 7, 1, 3, 2, 5, 1000, 0, 0, 0);"
        "CREATE TABLE variables(name BLOB PRIMARY KEY, type INTEGER, value) WITHOUT ROWID;"
        "INSERT INTO variables VALUES(CAST('kept' AS BLOB), 2, 41);"
        "CREATE TABLE timers(name TEXT PRIMARY KEY, deadline INTEGER, seq INTEGER) WITHOUT ROWID;"
        "CREATE TABLE requests(key INTEGER PRIMARY KEY, attempt INTEGER, body TEXT);"
        "CREATE TABLE events(id INTEGER PRIMARY KEY AUTOINCREMENT, attempt INTEGER, body TEXT);";
    CHECK_INT(sqlite3_exec(s, old_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    static const char src[] =
        "return { on_load = function(c, st) c:set_variable('kept', st:variable('kept') + 1) end,\n"
        " on_event_session_joined = function(c, st, e) c:set_variable('seq', e.sequence) end }";
    for (int round = 0; round < 2; round++) {
        rec_host h;
        gsvm_mission *m = open_file(src, db, &h, GSVM_MISSION_ACCEPT);
        CHECK(m != NULL);
        if (!m)
            return;
        CHECK_INT(var_int(m, "kept"), 42 + round);
        CHECK_INT(gsvm_mission_phase(m), 4);
        report(m, "session_joined");
        CHECK_STR(var_str(m, "seq"), round == 0 ? "1" : "2");
        gsvm_mission_close(m);
    }
}

/* Without a state file a reopen keeps the record in memory instead of
 * reading it back: run the same reports, ticks and reopens against an
 * in-memory mission and a file-backed one, and after each step both hold
 * the same record (variables, timers, phase, revision, attempt, clock,
 * requests waiting, reports waiting) and told the host the same things. */
static void dump_var(void *ud, const char *name, const gsvm_mission_value *v)
{
    char *out = ud;
    size_t n = strlen(out);
    snprintf(out + n, 4096 - n, "%s=%d:%lld:%.17g:%.*s;", name, (int)v->type, (long long)v->i, v->n,
             (int)v->len, v->s ? v->s : "");
}

static void dump_record(gsvm_mission *m, char *out)
{
    out[0] = 0;
    gsvm_mission_foreach_variable(m, dump_var, out);
    size_t n = strlen(out);
    snprintf(out + n, 4096 - n, "|phase %u rev %llu att %llu now %llu req %zu wait %zu fault %s|",
             gsvm_mission_phase(m), (unsigned long long)gsvm_mission_revision(m),
             (unsigned long long)gsvm_mission_attempt(m), (unsigned long long)gsvm_mission_now_ms(m),
             gsvm_mission_pending_requests(m), gsvm_mission_waiting_reports(m), gsvm_mission_fault_text(m));
    for (size_t i = 0; i < gsvm_mission_timer_count(m); i++) {
        const char *name;
        uint64_t d, q;
        if (gsvm_mission_timer_at(m, i, &name, &d, &q)) {
            n = strlen(out);
            snprintf(out + n, 4096 - n, "%s@%llu#%llu;", name, (unsigned long long)d, (unsigned long long)q);
        }
    }
}

static void test_memory_reopen(void)
{
    static const char src[] =
        "return {\n"
        " on_start = function(c) c:set_variable('n', 0) c:start_timer('tick', 100) end,\n"
        " on_load = function(c, st) c:set_variable('loads', (st:variable('loads') or 0) + 1) end,\n"
        " on_event_timer_elapsed = function(c, st, ev) c:set_variable('t', ev.sequence) c:start_timer('tick', 300) end,\n"
        " on_event_session_joined = function(c, st, ev)\n"
        "   c:set_variable('n', st:variable('n') + 1) c:set_variable('seq', ev.sequence)\n"
        "   if st:variable('n') % 3 == 0 then c.lifetime:set{state = 1} end end,\n"
        " on_event_effect_result = function(c, st, ev) c:set_variable('r', ev.outcome) c:set_phase(st.phase + 1) end }";
    char db[300];
    snprintf(db, sizeof db, "%s/twin.db", dir);
    rec_host hm, hf;
    gsvm_mission_config cm, cf;
    harness_config(&cm, &hm);
    harness_config(&cf, &hf);
    hm.answer = hf.answer = GSVM_MISSION_STALL; /* deliveries wait 2 s: reports queue behind them */
    cf.state_path = db;
    gsvm_error err;
    gsvm_mission *mm = open_with(src, &cm, &err), *mf = open_with(src, &cf, &err);
    CHECK(mm && mf);
    if (!mm || !mf) {
        gsvm_mission_close(mm);
        gsvm_mission_close(mf);
        return;
    }
    char a[4096], b[4096];
    for (int step = 0; step < 40; step++) {
        gsvm_mission *both[2] = {mm, mf};
        for (int k = 0; k < 2; k++) {
            gsvm_mission *m = both[k];
            switch (step % 5) {
            case 0:
            case 1: report(m, "session_joined"); break;
            case 2: gsvm_mission_advance(m, 450, &err); break;
            case 3: CHECK_INT(gsvm_mission_reopen(m, &err), GSVM_OK); break;
            default: report(m, "session_joined"); gsvm_mission_advance(m, 1200, &err); break;
            }
        }
        dump_record(mm, a);
        dump_record(mf, b);
        if (strcmp(a, b) != 0)
            fprintf(stderr, "step %d:\n memory %s\n file   %s\n", step, a, b);
        CHECK_STR(a, b);
        CHECK_STR(hm.log, hf.log);
    }
    CHECK(var_int(mm, "loads") == 8);
    CHECK(strstr(hm.log, "res ") != NULL); /* deliveries finished (refused) along the way */
    gsvm_mission_close(mm);
    gsvm_mission_close(mf);
    printf("memory reopen done\n");
}

/* What a state file holds before the record: a 0-byte file (made by
 * `touch` or mkstemp ahead of time) is an empty SQLite database, so it
 * opens as a fresh record, as a missing file does; a truncated, corrupt or
 * newer-format file is refused with an error naming the file, and the file
 * is left as it was. */
static void refused(const char *db, const char *what, const char *want)
{
    rec_host h;
    gsvm_mission_config cfg;
    harness_config(&cfg, &h);
    cfg.state_path = db;
    gsvm_error err;
    gsvm_mission *m = open_with(script, &cfg, &err);
    CHECK(m == NULL);
    if (m) {
        fprintf(stderr, "%s: opened\n", what);
        gsvm_mission_close(m);
        return;
    }
    CHECK(err.status == GSVM_ERR_IO || err.status == GSVM_ERR_INPUT);
    CHECK_STR(err.file, db);
    if (!strstr(err.message, want))
        fprintf(stderr, "%s: message '%s' lacks '%s'\n", what, err.message, want);
    CHECK(strstr(err.message, want) != NULL);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_state_files(void)
{
    char db[300], bad[320];
    snprintf(db, sizeof db, "%s/empty.db", dir);
    FILE *f = fopen(db, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fclose(f);
    rec_host h;
    gsvm_mission *m = open_file(script, db, &h, GSVM_MISSION_ACCEPT);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR(var_str(m, "s"), "start"); /* fresh: on_start ran */
    CHECK_INT(gsvm_mission_phase(m), 3);
    report(m, "session_joined");
    gsvm_mission_close(m);
    m = open_file(script, db, &h, GSVM_MISSION_ACCEPT);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_INT(var_int(m, "loads"), 1); /* the record came back: on_load ran */
    CHECK_INT(gsvm_mission_phase(m), 3);
    gsvm_mission_close(m);

    /* The record above, cut short at a few places. */
    long size = file_size(db);
    CHECK(size > 8192);
    FILE *in = fopen(db, "rb");
    char *bytes = malloc((size_t)size);
    CHECK(in && bytes && fread(bytes, 1, (size_t)size, in) == (size_t)size);
    if (in)
        fclose(in);
    const long cuts[] = {1, 50, 99, 100, 4096, size / 2, size - 4096};
    for (size_t i = 0; bytes && i < sizeof cuts / sizeof cuts[0]; i++) {
        snprintf(bad, sizeof bad, "%s/cut%zu.db", dir, i);
        FILE *o = fopen(bad, "wb");
        CHECK(o != NULL);
        if (!o)
            continue;
        fwrite(bytes, 1, (size_t)cuts[i], o);
        fclose(o);
        refused(bad, "truncated", "");
        CHECK_INT(file_size(bad), cuts[i]); /* untouched */
    }
    /* Garbage of the size of a record. */
    snprintf(bad, sizeof bad, "%s/garbage.db", dir);
    FILE *o = fopen(bad, "wb");
    CHECK(o != NULL);
    for (long i = 0; o && i < size; i++)
        fputc((int)((i * 7919) % 251), o);
    if (o)
        fclose(o);
    refused(bad, "garbage", "not a mission state file");
    /* A record of a newer format than this build knows. */
    snprintf(bad, sizeof bad, "%s/newer.db", dir);
    o = fopen(bad, "wb");
    if (o && bytes) {
        fwrite(bytes, 1, (size_t)size, o);
        fclose(o);
    }
    sqlite3 *s;
    CHECK_INT(sqlite3_open(bad, &s), SQLITE_OK);
    CHECK_INT(sqlite3_exec(s, "PRAGMA user_version=99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    refused(bad, "newer", "format 99 is newer");
    /* Another program's database: refused, and no mission table is added. */
    snprintf(bad, sizeof bad, "%s/foreign.db", dir);
    CHECK_INT(sqlite3_open(bad, &s), SQLITE_OK);
    CHECK_INT(sqlite3_exec(s, "CREATE TABLE scores(player TEXT, points INTEGER)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s);
    refused(bad, "foreign", "has tables but no mission record");
    CHECK_INT(sqlite3_open(bad, &s), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    CHECK_INT(sqlite3_prepare_v2(s, "SELECT count(*) FROM sqlite_master", -1, &q, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(q), SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(q, 0), 1);
    sqlite3_finalize(q);
    sqlite3_close(s);
    free(bytes);
    printf("state files done\n");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    test_reopen_file();
    test_kill9();
    test_kill9_waiting_reports();
    test_old_format();
    test_state_files();
    test_memory_reopen();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
    TEST_MAIN_END();
}
