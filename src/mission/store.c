/* The durable mission record in SQLite.
 *
 * One row of `meta` holds the scalars (phase, revision, attempt, sequences,
 * fault, the delivery in flight, the clock); `variables`, `timers`,
 * `requests` (the outbox) and `events` (queued runtime events such as
 * effect_result) hold the rest.  Every committed callback is one SQL
 * transaction that writes only what the callback changed, in WAL mode, so a
 * process killed at any instant reopens to the last committed callback.
 * synchronous=NORMAL survives a killed process (the WAL is in the OS);
 * durable_fsync selects FULL, which also survives a power loss.
 *
 * A mission without a state file has no store at all (m->store is NULL and
 * every write below is a no-op): its committed record is the one in memory,
 * which a reopen keeps (runtime.c, start).  Mirroring it into an in-memory
 * SQLite database cost half of a timer callback and a schema per mission
 * opened, and bought nothing a reopen needs. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

enum {
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_META,
    Q_VAR_PUT,
    Q_VAR_DEL,
    Q_TIMER_CLEAR,
    Q_TIMER_PUT,
    Q_TIMER_DEL,
    Q_REQ_PUT,
    Q_REQ_DEL,
    Q_EV_PUT,
    Q_EV_DEL,
    Q_REQ_DROP,
    Q_EV_DROP,
    Q_SLOT_PUT,
    Q_SLOT_CLEAR,
    Q_FACT_PUT,
    Q_FACT_DROP,
    Q_COUNT
};

static const char *const sql_text[Q_COUNT] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_META] = "UPDATE meta SET started=?1, faulted=?2, fault=?3, complete=?4, wipe_active=?5,"
               " wipe_key=?6, phase=?7, revision=?8, attempt=?9, next_timer_seq=?10, next_key=?11,"
               " mission_seq=?12, clock=?13, dlv_active=?14, dlv_t0=?15, dlv_answer=?16, event_seq=?17,"
               " dlv_stage=?18, dlv_stage_t=?19 WHERE id=1",
    /* Upserts update the row in place (INSERT OR REPLACE deletes it and
     * inserts it again: a tenth of a timer callback's commit). */
    [Q_VAR_PUT] = "INSERT INTO variables(name, type, value) VALUES(?1, ?2, ?3)"
                  " ON CONFLICT(name) DO UPDATE SET type=excluded.type, value=excluded.value",
    [Q_VAR_DEL] = "DELETE FROM variables WHERE name=?1",
    [Q_TIMER_CLEAR] = "DELETE FROM timers",
    [Q_TIMER_PUT] = "INSERT INTO timers(name, deadline, seq) VALUES(?1, ?2, ?3)"
                    " ON CONFLICT(name) DO UPDATE SET deadline=excluded.deadline, seq=excluded.seq",
    [Q_TIMER_DEL] = "DELETE FROM timers WHERE name=?1",
    [Q_REQ_PUT] = "INSERT OR REPLACE INTO requests(key, attempt, body) VALUES(?1, ?2, ?3)",
    [Q_REQ_DEL] = "DELETE FROM requests WHERE key=?1",
    [Q_EV_PUT] = "INSERT INTO events(attempt, body, queue) VALUES(?1, ?2, ?3)",
    [Q_EV_DEL] = "DELETE FROM events WHERE id=?1",
    [Q_REQ_DROP] = "DELETE FROM requests WHERE attempt<?1",
    [Q_EV_DROP] = "DELETE FROM events WHERE attempt<?1",
    [Q_SLOT_PUT] = "INSERT OR REPLACE INTO slots(row, gl_known, gl_generation, gl_progress, gl_active,"
                   " req_position, req_power, req_lock, rep_known, rep_position, rep_power, rep_lock)"
                   " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [Q_SLOT_CLEAR] = "DELETE FROM slots",
    [Q_FACT_PUT] = "INSERT OR REPLACE INTO facts(name, value) VALUES(?1, ?2)",
    /* A new attempt forgets first reports and squad populations. */
    [Q_FACT_DROP] = "DELETE FROM facts WHERE name GLOB 'first:*' OR name GLOB 'squad:*'",
};

struct mstore {
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    char name[256];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(id INTEGER PRIMARY KEY CHECK(id=1), format INTEGER,"
    " started INTEGER, faulted INTEGER, fault TEXT, complete INTEGER, wipe_active INTEGER,"
    " wipe_key INTEGER, phase INTEGER, revision INTEGER, attempt INTEGER, next_timer_seq INTEGER,"
    " next_key INTEGER, mission_seq INTEGER, clock INTEGER, dlv_active INTEGER, dlv_t0 INTEGER,"
    " dlv_answer INTEGER, event_seq INTEGER NOT NULL DEFAULT 0, dlv_stage INTEGER NOT NULL DEFAULT 0,"
    " dlv_stage_t INTEGER NOT NULL DEFAULT 0);"
    /* The columns of the first format only: a file written before the
     * later columns existed gets them from `upgrades` below. */
    "INSERT OR IGNORE INTO meta(id, format, started, faulted, fault, complete, wipe_active, wipe_key,"
    " phase, revision, attempt, next_timer_seq, next_key, mission_seq, clock, dlv_active, dlv_t0,"
    " dlv_answer) VALUES(1, 1, 0, 0, '', 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0);"
    "CREATE TABLE IF NOT EXISTS variables(name BLOB PRIMARY KEY, type INTEGER, value) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS timers(name TEXT PRIMARY KEY, deadline INTEGER, seq INTEGER) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS requests(key INTEGER PRIMARY KEY, attempt INTEGER, body TEXT);"
    "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY AUTOINCREMENT, attempt INTEGER, body TEXT,"
    " queue INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS slots(row INTEGER PRIMARY KEY, gl_known INTEGER, gl_generation INTEGER,"
    " gl_progress REAL, gl_active INTEGER, req_position INTEGER, req_power INTEGER, req_lock INTEGER,"
    " rep_known INTEGER, rep_position INTEGER, rep_power INTEGER, rep_lock INTEGER);"
    "CREATE TABLE IF NOT EXISTS facts(name TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;";

/* Columns added after the first files were written: a record made by an
 * older build gains them with their defaults (an error only means the column
 * is already there). */
static const char *const upgrades[] = {
    "ALTER TABLE meta ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE events ADD COLUMN queue INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE meta ADD COLUMN dlv_stage INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE meta ADD COLUMN dlv_stage_t INTEGER NOT NULL DEFAULT 0",
};

static gsvm_status db_error(mstore *s, gsvm_error *err, const char *what)
{
    return gsvm_error_set(err, GSVM_ERR_IO, s->name, "state store: %s: %s", what,
                          sqlite3_errmsg(s->db));
}

/* PRAGMA user_version of a file this build set up (schema and upgrades
 * applied); 0 for a new file or one written before the version was set. */
#define STORE_VERSION 1
#define STORE_VERSION_TEXT "1"

static int read_version(mstore *s, int *version)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *version = sqlite3_column_int(q, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    return rc;
}

/* Creates the schema of a new file, or brings an older record's up to this
 * build's, as one transaction: a file is either set up or untouched (a
 * process killed halfway leaves nothing to finish), and the statements
 * share one commit instead of one each.  A database that has tables but no
 * `meta` is someone else's: *foreign is set and nothing is written to it. */
static int set_up(mstore *s, bool *foreign)
{
    int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *q;
    rc = sqlite3_prepare_v2(s->db, "SELECT count(*), count(CASE WHEN name = 'meta' THEN 1 END)"
                                   " FROM sqlite_master WHERE type = 'table'", -1, &q, NULL);
    int tables = 0, meta = 0;
    if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        tables = sqlite3_column_int(q, 0);
        meta = sqlite3_column_int(q, 1);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_OK)
        return rc;
    if (tables > 0 && meta == 0) {
        *foreign = true;
        return SQLITE_OK;
    }
    rc = sqlite3_exec(s->db, schema, NULL, NULL, NULL);
    /* A new file has every column already. */
    for (size_t i = 0; tables > 0 && rc == SQLITE_OK && i < sizeof upgrades / sizeof upgrades[0]; i++)
        sqlite3_exec(s->db, upgrades[i], NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, "PRAGMA user_version=" STORE_VERSION_TEXT, NULL, NULL, NULL);
    /* On an error the caller closes the connection, which rolls back (and
     * keeps sqlite3_errmsg for the message, which a ROLLBACK here would
     * clear). */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

void ms_store_close(mstore *s)
{
    if (!s)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(s->q[i]);
    sqlite3_close(s->db);
    free(s);
}

/* A state file is new (missing or 0 bytes: a host may make it ahead of
 * time) or begins with SQLite's 100-byte header.  SQLite itself takes a
 * file shorter than a page with any bytes as an empty database and writes
 * a fresh record over it; a mission refuses it instead. */
static gsvm_status check_header(const char *path, gsvm_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return GSVM_OK; /* missing (created), or SQLite tells why it cannot open it */
    unsigned char head[100];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n == 0 || (n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0))
        return GSVM_OK;
    return gsvm_error_set(err, GSVM_ERR_INPUT, path,
                          "state store is corrupt: %s (not a mission state file?)",
                          n < sizeof head ? "shorter than SQLite's 100-byte header (truncated?)"
                                          : "no SQLite header");
}

gsvm_status ms_store_open(mstore **out, const char *path, bool fsync_full, gsvm_error *err)
{
    gsvm_status hst = check_header(path, err);
    if (hst != GSVM_OK)
        return hst;
    mstore *s = calloc(1, sizeof *s);
    if (!s)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, path, "out of memory");
    snprintf(s->name, sizeof s->name, "%s", path);
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        gsvm_status st = gsvm_error_set(err, GSVM_ERR_IO, s->name, "cannot open the state store: %s",
                                        s->db ? sqlite3_errmsg(s->db) : "out of memory");
        ms_store_close(s);
        return st;
    }
    sqlite3_busy_timeout(s->db, 2000);
    /* One process owns a mission record: an exclusive lock spares the file
     * locking calls of every transaction (and WAL needs no shared memory). */
    char pragmas[256];
    /* In WAL mode with synchronous=NORMAL a commit does not wait for the
     * disk; only checkpoints do.  Checkpointing every 4096 pages instead of
     * SQLite's 1000 keeps that wait off most commits (the WAL stays under
     * about 16 MiB). */
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;"
             " PRAGMA wal_autocheckpoint=4096;",
             fsync_full ? "FULL" : "NORMAL");
    int erc = sqlite3_exec(s->db, pragmas, NULL, NULL, NULL);
    int version = 0;
    if (erc == SQLITE_OK)
        erc = read_version(s, &version);
    /* A file this build already set up skips the schema: parsing its
     * statements and failing the upgrades was most of opening a record. */
    if (erc == SQLITE_OK && version != STORE_VERSION) {
        if (version > STORE_VERSION) {
            gsvm_status st = gsvm_error_set(err, GSVM_ERR_INPUT, s->name,
                                            "state store: format %d is newer than this build's (%d)",
                                            version, STORE_VERSION);
            ms_store_close(s);
            return st;
        }
        bool foreign = false;
        erc = set_up(s, &foreign);
        if (foreign) {
            gsvm_status st = gsvm_error_set(err, GSVM_ERR_INPUT, s->name,
                                            "state store: an SQLite database of something else"
                                            " (it has tables but no mission record)");
            ms_store_close(s);
            return st;
        }
    }
    if ((erc & 0xff) == SQLITE_BUSY || (erc & 0xff) == SQLITE_LOCKED) {
        gsvm_status st = gsvm_error_set(err, GSVM_ERR_IO, s->name,
                                        "state store: another process holds this mission record open"
                                        " (one process owns a record at a time)");
        ms_store_close(s);
        return st;
    }
    if (erc != SQLITE_OK) {
        gsvm_status st = db_error(s, err, "cannot prepare the schema (not a mission state file?)");
        ms_store_close(s);
        return st;
    }
    *out = s;
    return GSVM_OK;
}

/* Statement `q`, prepared on its first use (a record that is refused, or
 * a run that never writes a kind of row, prepares no more than it needs);
 * NULL when it cannot be prepared (sqlite3_errmsg says why; binding to NULL
 * is a harmless misuse, and step() then fails). */
static sqlite3_stmt *stmt(mstore *s, int q)
{
    if (!s->q[q] && sqlite3_prepare_v3(s->db, sql_text[q], -1, SQLITE_PREPARE_PERSISTENT, &s->q[q], NULL) != SQLITE_OK) {
        sqlite3_finalize(s->q[q]);
        s->q[q] = NULL;
    }
    return s->q[q];
}

static int step(mstore *s, int q)
{
    sqlite3_stmt *st = stmt(s, q);
    if (!st)
        return SQLITE_ERROR;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

/* Starts a write transaction. */
static bool begin(mstore *s)
{
    return step(s, Q_BEGIN) == SQLITE_DONE;
}

static bool bind_meta(mstore *s, gsvm_mission *m)
{
    sqlite3_stmt *q = stmt(s, Q_META);
    const mrecord *r = &m->rec;
    sqlite3_bind_int(q, 1, r->started);
    sqlite3_bind_int(q, 2, r->faulted);
    sqlite3_bind_text(q, 3, r->fault, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, r->complete);
    sqlite3_bind_int(q, 5, r->wipe_active);
    sqlite3_bind_int64(q, 6, (sqlite3_int64)r->wipe_key);
    sqlite3_bind_int64(q, 7, r->phase);
    sqlite3_bind_int64(q, 8, (sqlite3_int64)r->revision);
    sqlite3_bind_int64(q, 9, (sqlite3_int64)r->attempt);
    sqlite3_bind_int64(q, 10, (sqlite3_int64)r->next_timer_seq);
    sqlite3_bind_int64(q, 11, (sqlite3_int64)r->next_key);

    sqlite3_bind_int64(q, 13, (sqlite3_int64)r->clock);
    sqlite3_bind_int(q, 14, m->dlv.active);
    sqlite3_bind_int64(q, 15, (sqlite3_int64)m->dlv.t0);
    sqlite3_bind_int(q, 16, m->dlv.answer);
    sqlite3_bind_int(q, 18, m->dlv.stage);
    sqlite3_bind_int64(q, 19, (sqlite3_int64)m->dlv.stage_t);
    /* Never below a block reserved ahead (see seq_stored), except on close. */
    uint64_t seq = r->event_seq;
    if (!m->seq_exact) {
        if (m->seq_reserve > seq)
            seq = m->seq_reserve;
        if (m->seq_stored > seq)
            seq = m->seq_stored;
    }
    sqlite3_bind_int64(q, 17, (sqlite3_int64)seq);
    /* mission_sequence moves with the events' sequence: the same block. */
    sqlite3_bind_int64(q, 12, (sqlite3_int64)(r->mission_seq + (seq - r->event_seq)));
    if (step(s, Q_META) != SQLITE_DONE)
        return false;
    m->seq_stored = seq;
    return true;
}

static bool put_var(mstore *s, const mvar *v)
{
    sqlite3_stmt *q = stmt(s, Q_VAR_PUT);
    sqlite3_bind_blob(q, 1, v->name, v->nlen, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, v->v.type);
    switch (v->v.type) {
    case GSVM_MV_BOOL: sqlite3_bind_int(q, 3, v->v.b); break;
    case GSVM_MV_INT: sqlite3_bind_int64(q, 3, v->v.i); break;
    case GSVM_MV_NUM: sqlite3_bind_double(q, 3, v->v.n); break;
    default: sqlite3_bind_blob(q, 3, v->v.s, v->v.len, SQLITE_STATIC); break;
    }
    return step(s, Q_VAR_PUT) == SQLITE_DONE;
}

static bool put_timer(mstore *s, const mtimer *t)
{
    sqlite3_stmt *q = stmt(s, Q_TIMER_PUT);
    sqlite3_bind_text(q, 1, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)t->deadline);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)t->seq);
    return step(s, Q_TIMER_PUT) == SQLITE_DONE;
}

static bool put_timers(mstore *s, const mtimers *t)
{
    if (step(s, Q_TIMER_CLEAR) != SQLITE_DONE)
        return false;
    for (int i = 0; i < t->n; i++)
        if (!put_timer(s, &t->t[i]))
            return false;
    return true;
}

/* Writes what changed from `old` to `now` (both sorted by name): a timer
 * callback removes its timer and often starts it again, and rewriting the
 * whole table was two thirds of such a commit. */
static bool put_timer_changes(mstore *s, const mtimers *old, const mtimers *now)
{
    int i = 0, j = 0;
    while (i < old->n || j < now->n) {
        int c = i >= old->n ? 1 : j >= now->n ? -1 : strcmp(old->t[i].name, now->t[j].name);
        bool ok = true;
        if (c < 0) {
            sqlite3_bind_text(stmt(s, Q_TIMER_DEL), 1, old->t[i++].name, -1, SQLITE_STATIC);
            ok = step(s, Q_TIMER_DEL) == SQLITE_DONE;
        } else if (c > 0) {
            ok = put_timer(s, &now->t[j++]);
        } else {
            const mtimer *a = &old->t[i++], *b = &now->t[j++];
            if (a->deadline != b->deadline || a->seq != b->seq)
                ok = put_timer(s, b);
        }
        if (!ok)
            return false;
    }
    return true;
}

static bool put_event(mstore *s, mevent *e)
{
    char *body = ms_mevent_encode(e);
    if (!body)
        return false;
    sqlite3_stmt *q = stmt(s, Q_EV_PUT);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)e->attempt);
    sqlite3_bind_text(q, 2, body, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, e->input);
    bool ok = step(s, Q_EV_PUT) == SQLITE_DONE;
    free(body);
    if (ok)
        e->db_id = sqlite3_last_insert_rowid(s->db);
    return ok;
}

static gsvm_status finish(mstore *s, bool ok, gsvm_error *err, const char *what);

static bool put_slot(mstore *s, const gsvm_mission *m, int row)
{
    if (!m->slotrec || row < 1 || row > m->world->nslots)
        return true;
    const mslotrec *r = &m->slotrec[row - 1];
    sqlite3_stmt *q = stmt(s, Q_SLOT_PUT);
    sqlite3_bind_int(q, 1, row);
    sqlite3_bind_int(q, 2, r->gl_known);
    sqlite3_bind_int64(q, 3, r->gl_generation);
    sqlite3_bind_double(q, 4, r->gl_progress);
    sqlite3_bind_int(q, 5, r->gl_active);
    int known = 0;
    for (int c = 0; c < CH_COUNT; c++) {
        sqlite3_bind_int64(q, 6 + c, (sqlite3_int64)r->req_key[c]);
        sqlite3_bind_int64(q, 10 + c, (sqlite3_int64)r->rep_seq[c]);
        known |= r->rep_known[c] << c;
    }
    sqlite3_bind_int(q, 9, known);
    return step(s, Q_SLOT_PUT) == SQLITE_DONE;
}

/* Every slot record again (a new attempt cleared the device records). */
static bool put_all_slots(mstore *s, const gsvm_mission *m)
{
    if (step(s, Q_SLOT_CLEAR) != SQLITE_DONE)
        return false;
    for (int row = 1; m->slotrec && row <= m->world->nslots; row++) {
        const mslotrec *r = &m->slotrec[row - 1];
        bool any = r->gl_known;
        for (int c = 0; c < CH_COUNT; c++)
            any = any || r->req_key[c] || r->rep_known[c];
        if (any && !put_slot(s, m, row))
            return false;
    }
    return true;
}

gsvm_status ms_store_put_facts(mstore *s, const char *const *names, const int64_t *values, int n,
                               gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        sqlite3_bind_text(stmt(s, Q_FACT_PUT), 1, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt(s, Q_FACT_PUT), 2, values[i]);
        ok = step(s, Q_FACT_PUT) == SQLITE_DONE;
    }
    return finish(s, ok, err, "cannot record what a report told");
}

gsvm_status ms_store_put_slot(mstore *s, gsvm_mission *m, int row, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    return finish(s, put_slot(s, m, row), err, "cannot record a slot report");
}

static bool del_id(mstore *s, int q, int64_t id)
{
    sqlite3_bind_int64(stmt(s, q), 1, id);
    return step(s, q) == SQLITE_DONE;
}

static gsvm_status finish(mstore *s, bool ok, gsvm_error *err, const char *what)
{
    if (ok && step(s, Q_COMMIT) == SQLITE_DONE)
        return GSVM_OK;
    gsvm_status st = db_error(s, err, what);
    step(s, Q_ROLLBACK);
    return st;
}

gsvm_status ms_store_commit(mstore *s, gsvm_mission *m, mevent **new_events, int n_new_events,
                         int64_t consumed_event, const int *slot_rows, int n_slot_rows,
                         gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin a commit");
    mtxn *t = &m->txn;
    bool ok = bind_meta(s, m);
    for (uint32_t i = 0; ok && i < t->overlay.cap; i++) {
        mvar *o = t->overlay.slots[i];
        if (!o)
            continue;
        if (o->deleted) {
            sqlite3_bind_blob(stmt(s, Q_VAR_DEL), 1, o->name, o->nlen, SQLITE_STATIC);
            ok = step(s, Q_VAR_DEL) == SQLITE_DONE;
        } else {
            ok = put_var(s, o);
        }
    }
    if (ok && t->timers_copied)
        ok = put_timer_changes(s, &m->rec.timers, &t->timers);
    for (int i = 0; ok && i < t->nreqs; i++) {
        char *body = ms_mreq_encode(t->reqs[i]);
        if (!body) {
            ok = false;
            break;
        }
        sqlite3_stmt *q = stmt(s, Q_REQ_PUT);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)t->reqs[i]->key);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)t->reqs[i]->attempt);
        sqlite3_bind_text(q, 3, body, -1, SQLITE_STATIC);
        ok = step(s, Q_REQ_PUT) == SQLITE_DONE;
        free(body);
    }
    for (int i = 0; ok && i < n_new_events; i++)
        ok = put_event(s, new_events[i]);
    if (ok && consumed_event)
        ok = del_id(s, Q_EV_DEL, consumed_event);
    for (int i = 0; ok && i < n_slot_rows; i++)
        ok = put_slot(s, m, slot_rows[i]);
    return finish(s, ok, err, "cannot commit");
}

gsvm_status ms_store_finish_request(mstore *s, gsvm_mission *m, uint64_t key, mevent *ev,
                                 gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    bool ok = del_id(s, Q_REQ_DEL, (int64_t)key) && bind_meta(s, m);
    if (ok && ev)
        ok = put_event(s, ev);
    return finish(s, ok, err, "cannot record a delivery");
}

gsvm_status ms_store_save_meta(mstore *s, gsvm_mission *m, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    return finish(s, bind_meta(s, m), err, "cannot save the record");
}

gsvm_status ms_store_drop_attempt(mstore *s, gsvm_mission *m, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    bool ok = bind_meta(s, m) && put_timers(s, &m->rec.timers) && put_all_slots(s, m) &&
              step(s, Q_FACT_DROP) == SQLITE_DONE;
    if (ok) {
        sqlite3_bind_int64(stmt(s, Q_REQ_DROP), 1, (sqlite3_int64)m->rec.attempt);
        ok = step(s, Q_REQ_DROP) == SQLITE_DONE;
    }
    if (ok) {
        sqlite3_bind_int64(stmt(s, Q_EV_DROP), 1, (sqlite3_int64)m->rec.attempt);
        ok = step(s, Q_EV_DROP) == SQLITE_DONE;
    }
    return finish(s, ok, err, "cannot start a new attempt");
}

/* One statement outside a transaction (its own transaction). */
static gsvm_status single(mstore *s, bool ok, gsvm_error *err, const char *what)
{
    return ok ? GSVM_OK : db_error(s, err, what);
}

gsvm_status ms_store_delete_event(mstore *s, int64_t id, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    return single(s, del_id(s, Q_EV_DEL, id), err, "cannot delete an event");
}

gsvm_status ms_store_add_event(mstore *s, mevent *e, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    return single(s, put_event(s, e), err, "cannot queue an event");
}

gsvm_status ms_store_add_inputs(mstore *s, mevent *first, gsvm_error *err)
{
    if (!s)
        return GSVM_OK; /* no state file: the record is the one in memory */
    if (!begin(s))
        return db_error(s, err, "cannot begin");
    bool ok = true;
    for (mevent *e = first; e && ok; e = e->next)
        if (!e->db_id)
            ok = put_event(s, e);
    if (!ok)
        for (mevent *e = first; e; e = e->next)
            e->db_id = 0; /* rolled back */
    return finish(s, ok, err, "cannot keep a client report");
}

static gsvm_status corrupt(mstore *s, gsvm_error *err, const char *what)
{
    return gsvm_error_set(err, GSVM_ERR_INPUT, s->name, "state store is corrupt: %s", what);
}

/* Reads the whole record into `m` (record, outbox, queued events). */
gsvm_status ms_store_load(mstore *s, gsvm_mission *m, gsvm_error *err)
{
    sqlite3_stmt *q;
    gsvm_status st = GSVM_OK;
    mrecord *r = &m->rec;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT format, started, faulted, fault, complete, wipe_active, wipe_key,"
                           " phase, revision, attempt, next_timer_seq, next_key, mission_seq, clock,"
                           " dlv_active, dlv_t0, dlv_answer, event_seq, dlv_stage, dlv_stage_t FROM meta WHERE id=1",
                           -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the record");
    if (sqlite3_step(q) != SQLITE_ROW || sqlite3_column_int(q, 0) != 1) {
        sqlite3_finalize(q);
        return corrupt(s, err, "no record of format 1");
    }
    r->started = sqlite3_column_int(q, 1) != 0;
    r->faulted = sqlite3_column_int(q, 2) != 0;
    const unsigned char *fault = sqlite3_column_text(q, 3);
    snprintf(r->fault, sizeof r->fault, "%s", fault ? (const char *)fault : "");
    r->complete = sqlite3_column_int(q, 4) != 0;
    r->wipe_active = sqlite3_column_int(q, 5) != 0;
    r->wipe_key = (uint64_t)sqlite3_column_int64(q, 6);
    int64_t phase = sqlite3_column_int64(q, 7);
    r->revision = (uint64_t)sqlite3_column_int64(q, 8);
    r->attempt = (uint64_t)sqlite3_column_int64(q, 9);
    r->next_timer_seq = (uint64_t)sqlite3_column_int64(q, 10);
    r->next_key = (uint64_t)sqlite3_column_int64(q, 11);
    r->mission_seq = (uint64_t)sqlite3_column_int64(q, 12);
    r->clock = (uint64_t)sqlite3_column_int64(q, 13);
    m->dlv.active = sqlite3_column_int(q, 14) != 0;
    m->dlv.t0 = (uint64_t)sqlite3_column_int64(q, 15);
    m->dlv.answer = sqlite3_column_int(q, 16);
    r->event_seq = (uint64_t)sqlite3_column_int64(q, 17);
    m->seq_stored = r->event_seq;
    m->dlv.stage = sqlite3_column_int(q, 18);
    m->dlv.stage_t = (uint64_t)sqlite3_column_int64(q, 19);
    sqlite3_finalize(q);
    if (phase < 0 || phase > (int64_t)UINT32_MAX || r->attempt < 1 || r->next_key < 1 ||
        m->dlv.answer < 0 || m->dlv.answer > GSVM_MISSION_DEFER || m->dlv.stage < 0 || m->dlv.stage > 2)
        return corrupt(s, err, "record values out of range");
    r->phase = (uint32_t)phase;

    if (sqlite3_prepare_v2(s->db, "SELECT name, type, value FROM variables", -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the variables");
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        const void *name = sqlite3_column_blob(q, 0);
        size_t nlen = (size_t)sqlite3_column_bytes(q, 0);
        int type = sqlite3_column_int(q, 1);
        if (!name || !ms_name_ok(name, nlen) || r->vars.count >= m->cfg.max_variables) {
            st = corrupt(s, err, "bad variable");
            break;
        }
        mvar *v = calloc(1, sizeof *v);
        if (!v) {
            st = gsvm_error_set(err, GSVM_ERR_NOMEM, s->name, "out of memory");
            break;
        }
        memcpy(v->name, name, nlen);
        v->nlen = (uint8_t)nlen;
        v->v.type = (uint8_t)type;
        switch (type) {
        case GSVM_MV_BOOL: v->v.b = sqlite3_column_int(q, 2) != 0; break;
        case GSVM_MV_INT: v->v.i = sqlite3_column_int64(q, 2); break;
        case GSVM_MV_NUM: v->v.n = sqlite3_column_double(q, 2); break;
        case GSVM_MV_STR: {
            const void *b = sqlite3_column_blob(q, 2);
            size_t bl = (size_t)sqlite3_column_bytes(q, 2);
            if (bl > GSVM_MISSION_MAX_STRING) {
                st = corrupt(s, err, "variable string too long");
                break;
            }
            if (bl)
                memcpy(v->v.s, b, bl);
            v->v.len = (uint8_t)bl;
            break;
        }
        default: st = corrupt(s, err, "bad variable type");
        }
        if (st != GSVM_OK || ms_vmap_get(&r->vars, v->name, v->nlen) || !ms_vmap_put(&r->vars, v)) {
            free(v);
            if (st == GSVM_OK)
                st = corrupt(s, err, "duplicate variable");
        }
    }
    sqlite3_finalize(q);
    if (st != GSVM_OK)
        return st;

    if (sqlite3_prepare_v2(s->db, "SELECT name, deadline, seq FROM timers ORDER BY name", -1, &q,
                           NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the timers");
    r->timers.n = 0;
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0);
        if (!name || !ms_name_ok(name, strlen(name)) ||
            !ms_timers_set(&r->timers, name, (uint64_t)sqlite3_column_int64(q, 1),
                        (uint64_t)sqlite3_column_int64(q, 2)))
            st = corrupt(s, err, "bad timer");
    }
    sqlite3_finalize(q);
    if (st != GSVM_OK)
        return st;

    if (sqlite3_prepare_v2(s->db, "SELECT body FROM requests ORDER BY key", -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the requests");
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        const char *body = (const char *)sqlite3_column_text(q, 0);
        mreq *rq = body ? ms_mreq_decode(body, (size_t)sqlite3_column_bytes(q, 0), err) : NULL;
        if (!rq) {
            st = corrupt(s, err, "bad request record");
            break;
        }
        if (m->nout == m->capout) {
            int nc = m->capout ? m->capout * 2 : 16;
            mreq **n = realloc(m->outbox, (size_t)nc * sizeof *n);
            if (!n) {
                ms_mreq_free(rq);
                st = gsvm_error_set(err, GSVM_ERR_NOMEM, s->name, "out of memory");
                break;
            }
            m->outbox = n;
            m->capout = nc;
        }
        m->outbox[m->nout++] = rq;
    }
    sqlite3_finalize(q);
    if (st != GSVM_OK)
        return st;

    if (sqlite3_prepare_v2(s->db,
                           "SELECT row, gl_known, gl_generation, gl_progress, gl_active, req_position,"
                           " req_power, req_lock, rep_known, rep_position, rep_power, rep_lock FROM slots",
                           -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the slot records");
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        int64_t row = sqlite3_column_int64(q, 0);
        double progress = sqlite3_column_double(q, 3);
        int known = sqlite3_column_int(q, 8);
        if (row < 1 || progress != progress || known < 0 || known > 7) {
            st = corrupt(s, err, "bad slot record");
            break;
        }
        if (!m->slotrec || row > m->world->nslots)
            continue; /* a slot the current world no longer has */
        mslotrec *r = &m->slotrec[row - 1];
        r->gl_known = sqlite3_column_int(q, 1) != 0;
        r->gl_generation = sqlite3_column_int64(q, 2);
        r->gl_progress = progress;
        r->gl_active = sqlite3_column_int(q, 4) != 0;
        for (int c = 0; c < CH_COUNT; c++) {
            r->req_key[c] = (uint64_t)sqlite3_column_int64(q, 5 + c);
            r->rep_known[c] = (known >> c) & 1;
            r->rep_seq[c] = (uint64_t)sqlite3_column_int64(q, 9 + c);
        }
    }
    sqlite3_finalize(q);
    if (st != GSVM_OK)
        return st;

    if (sqlite3_prepare_v2(s->db, "SELECT name, value FROM facts", -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the reported facts");
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0);
        if (!name || !ms_fact_restore(m, name, sqlite3_column_int64(q, 1)))
            st = corrupt(s, err, "bad reported fact");
    }
    sqlite3_finalize(q);
    if (st != GSVM_OK)
        return st;

    if (sqlite3_prepare_v2(s->db, "SELECT id, body, queue FROM events ORDER BY id", -1, &q, NULL) != SQLITE_OK)
        return db_error(s, err, "cannot read the events");
    while (st == GSVM_OK && sqlite3_step(q) == SQLITE_ROW) {
        const char *body = (const char *)sqlite3_column_text(q, 1);
        mevent *e = body ? ms_mevent_decode(body, (size_t)sqlite3_column_bytes(q, 1)) : NULL;
        if (!e) {
            st = corrupt(s, err, "bad event record");
            break;
        }
        e->db_id = sqlite3_column_int64(q, 0);
        /* Client reports that waited in the input queue come back to it. */
        e->input = sqlite3_column_int(q, 2) != 0;
        ms_mqueue_push(e->input ? &m->inputs : &m->events, e);
    }
    sqlite3_finalize(q);
    if (!m->nout)
        m->dlv.active = false;
    return st;
}
