/* The per-script event, time and listen machinery of Falcon's ABI 3: what a
 * Second Life simulator keeps for each running script besides its code and
 * variables, as a building block: a VM or a host running many scripts owns
 * one `lsl_sched` per script and calls into it; the scheduler never runs
 * code itself.  The ABI-3 VM (vm3.c) keeps all of this in one lsl_sched and
 * has no other queue, timer or listen code; tests/lsl/conformance checks the
 * rules below against Second Life through the CLI.
 *
 * Simulation clock
 *   Time is simulation milliseconds (`now_ms`, u64, starting where the host
 *   says, normally 0).  Nothing reads a wall clock: the host moves time with
 *   lsl_sched_advance (the CLI's `{"advance_ms": N}` timeline lines).  Running
 *   code takes no simulated time; only sleeps and forced delays do, and the
 *   runner realises them by advancing the clock to the wake time.  All times
 *   are bounded by LSL_SCHED_MAX_TIME_MS (2^53, exact in a double).
 *
 * Event queue (SL: "Category:LSL Events")
 *   FIFO of at most LSL_SCHED_QUEUE_MAX (64) events.  When it is full a NEW
 *   event is discarded (and counted in `dropped`), never an old one.  An entry
 *   is an event index (the LSL_EVENT rows of builtins.def: position in name
 *   order, e.g. listen = 21, timer = 38) and its arguments, typed exactly as
 *   the event's signature (a key argument given as a string is re-tagged).
 *   Ownership: the queue holds its own references.  Arguments whose heap
 *   object belongs to another heap (or to none, e.g. JSON read by the CLI)
 *   are deep-copied into the script's heap, so every queued object is
 *   charged to the script.  The entry itself costs the script nothing: in SL
 *   the queue is the simulator's, so a waiting event takes no script memory
 *   of its own (and an event arriving never makes a script fault between
 *   handlers); the arguments' slots are charged when the handler starts, as
 *   its frame.  Popping hands the argument references to the caller.
 *   Events the current state has no handler for are not queued at all (as
 *   SL): the VM says which are handled with lsl_sched_set_handled (default:
 *   all).  state_entry / state_exit are never queued: the VM runs them
 *   directly around a state change (SL lets state_entry jump the queue).
 *
 * Timer (llSetTimerEvent)
 *   A period in ms (0 = off) and the next due time.  Setting a timer replaces
 *   the old one and restarts the countdown (due = now + period); a period
 *   <= 0 (or NaN) stops it.  At each due time a `timer` event is queued unless
 *   one is already waiting in the queue: timer events are coalesced, never
 *   queued twice (SL).  Due times missed while a timer event was waiting, or
 *   while the queue was full, are skipped, not delivered late.  After firing,
 *   the next due time is the fired due time + period.  The timer survives a
 *   state change and is removed by a script reset.
 *
 * Sleep (llSleep and the forced delays of builtins.def's `sleep` column)
 *   lsl_sched_sleep sets wake = now + delay.  While now < wake the script is
 *   not runnable; events keep queueing and timers keep firing meanwhile.
 *
 * Script time (llGetTime, llResetTime, llGetAndResetTime)
 *   Seconds since `time_base_ms`, which a script reset, llResetTime and
 *   llGetAndResetTime set to now; a state change does not touch it.
 *
 * Listens (llListen, llListenRemove, llListenControl)
 *   At most LSL_SCHED_LISTEN_MAX (65) per script; one more is the run-time
 *   error "Too Many Listens" (GSVM_ERR_FAULT; the VM stops the script as SL
 *   does).  Handles are numbered 1, 2, 3 ... in the order listens are made
 *   (never 0, never reused until a reset).  A call with exactly the same
 *   channel and filters as an open listen returns that listen's handle and
 *   opens nothing new.  Filters: an empty name or message matches anything; a
 *   key filter that is NULL_KEY or not a valid UUID matches anything, a valid
 *   one matches case-insensitively; name and message match exactly
 *   (case-sensitive).  llListenRemove and llListenControl ignore unknown
 *   handles silently (SL).  The filter texts are the simulator's, not the
 *   script's: they are copied out of the script heap and not charged.
 *   A chat message heard by the script (lsl_sched_hear) queues ONE listen
 *   event if any active listen matches, however many do (gsvm's choice where
 *   the wiki is silent: one message, one event).
 *
 * State change (state X;) — lsl_sched_state_change
 *   The queue is cleared and every listen is removed;
 *   the timer, any pending sleep, script time and handle numbering are kept.
 *
 * Script reset (llResetScript) — lsl_sched_reset
 *   Everything is cleared: queue, listens (handles start at 1 again), timer,
 *   sleep, handled mask, and script time restarts at 0.  The clock and the
 *   `dropped` counter (a host statistic) are kept.
 *
 * Snapshot
 *   lsl_sched_encode appends the whole state to a snapshot through the
 *   snapshot's value encoder (so queued strings shared with globals are
 *   written once); lsl_sched_decode reads it back into a freshly initialised
 *   scheduler, validating every field (see sched.c for the layout) and
 *   leaving the scheduler empty on error.  lsl_sched_save / lsl_sched_load do
 *   the same standalone (their own encoder / decoder).
 *
 * Nothing here has global state; a scheduler is not thread-safe (one per
 * script, used by the thread running that script). */
#ifndef GSVM_LSL_SCHED_H
#define GSVM_LSL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/gsvm.h"
#include "lsl/value.h"
#include "lsl/value_codec.h"

#define LSL_SCHED_QUEUE_MAX 64u
#define LSL_SCHED_LISTEN_MAX 65u
/* The most arguments an LSL event has is 6 (remote_data). */
#define LSL_SCHED_EVENT_MAX_ARGS 8u
/* Upper bound of every time value (2^53 ms: exact as a double, ~285,000 years). */
#define LSL_SCHED_MAX_TIME_MS (UINT64_C(1) << 53)
/* Upper bound of one sleep, delay or timer period (2^40 ms, ~34 years). */
#define LSL_SCHED_MAX_DELAY_MS (UINT64_C(1) << 40)

/* Event indexes the scheduler itself produces (positions in builtins.def). */
#define LSL_SCHED_EV_LISTEN 21
#define LSL_SCHED_EV_STATE_ENTRY 36
#define LSL_SCHED_EV_STATE_EXIT 37
#define LSL_SCHED_EV_TIMER 38

typedef struct lsl_sched_event {
    int event;      /* event index (builtins.def LSL_EVENT index) */
    unsigned nargs; /* = the event's arity */
    /* The host's own label for this entry (0 unless the host sets it after
     * pushing; not in snapshots): a region tags touches so that llDetected*
     * answer for the event whose handler runs (vm3.c keeps the running
     * handler's tag). */
    uint32_t tag;
    lsl_value args[LSL_SCHED_EVENT_MAX_ARGS];
} lsl_sched_event;

typedef struct lsl_listen {
    int32_t handle;  /* >= 1 */
    int32_t channel;
    bool active;     /* llListenControl */
    /* filters, malloc'ed, NUL-terminated (NULL = no filter); key is the
     * lower-case UUID or NULL */
    char *name, *key, *msg;
    uint32_t name_len, msg_len;
} lsl_listen;

typedef struct lsl_sched {
    lsl_heap *heap; /* the script's heap (may be NULL: unaccounted) */
    uint64_t now_ms;

    /* event queue: a ring of `qcap` entries (a power of two, grown on
     * demand up to LSL_SCHED_QUEUE_MAX; NULL while nothing was queued or
     * after lsl_sched_trim), so an idle script holds no queue memory */
    lsl_sched_event *queue;
    unsigned head, count, qcap;
    uint64_t dropped;     /* events discarded because the queue was full */
    uint64_t handled;     /* bit i set: the current state handles event i */

    /* timer */
    uint64_t timer_period_ms; /* 0 = off */
    uint64_t timer_due_ms;    /* next due time when on */
    bool timer_queued;        /* a timer event is waiting in the queue */

    uint64_t wake_ms;      /* sleeping while now_ms < wake_ms */
    uint64_t time_base_ms; /* llGetTime = now - time_base */

    lsl_listen *listens; /* in creation order; grown on demand (capacity lcap) */
    unsigned nlistens, lcap;
    int32_t next_handle; /* >= 1 */
} lsl_sched;

/* What lsl_sched_advance did. */
typedef struct lsl_sched_report {
    unsigned timers_queued;    /* timer events added to the queue */
    unsigned timers_coalesced; /* due times that found a timer event waiting, a
                                  full queue or no timer handler */
    bool woke;                 /* a pending sleep ended */
    bool runnable;             /* not sleeping and an event is waiting */
} lsl_sched_report;

/* ---- life cycle ----------------------------------------------------------- */

/* An empty scheduler at time `now_ms` charging queued events to `heap`. */
void lsl_sched_init(lsl_sched *s, lsl_heap *heap, uint64_t now_ms);
/* Releases everything (queued values, listen filters); `s` is then as after
 * lsl_sched_init at the same time. */
void lsl_sched_free(lsl_sched *s);
/* Gives back the queue's ring while it is empty (an idle script then holds
 * only its listens and fixed fields); the next push allocates it again. */
void lsl_sched_trim(lsl_sched *s);
/* llResetScript (see the header comment). */
void lsl_sched_reset(lsl_sched *s);
/* `state X;` after state_exit ran: queue and listens cleared, timer kept. */
void lsl_sched_state_change(lsl_sched *s);
/* Which events the current state handles (bit i = event index i). */
void lsl_sched_set_handled(lsl_sched *s, uint64_t mask);
/* The mask of every event builtins.def defines. */
uint64_t lsl_sched_all_events(void);

/* ---- clock ---------------------------------------------------------------- */

/* Seconds as LSL passes them -> milliseconds: rounded to the nearest ms,
 * NaN and negatives -> 0, clamped to LSL_SCHED_MAX_DELAY_MS. */
uint64_t lsl_sched_seconds_to_ms(double seconds);
/* The earliest future time something happens by itself (a timer due or the
 * end of a sleep); false when nothing is pending. */
bool lsl_sched_next_deadline(const lsl_sched *s, uint64_t *at_ms);
/* Moves the clock forward by `ms`, firing the timer at each due time on the
 * way in time order (coalesced as above) and ending a sleep whose wake time
 * is reached.  A runner that wants each timer event handled before the next
 * is due advances to lsl_sched_next_deadline, runs the script until idle,
 * and repeats.  GSVM_ERR_LIMIT (nothing changed) if the clock would pass
 * LSL_SCHED_MAX_TIME_MS.  `rep` may be NULL. */
gsvm_status lsl_sched_advance(lsl_sched *s, uint64_t ms, lsl_sched_report *rep, gsvm_error *err);
/* Is the script sleeping (now < wake)? */
static inline bool lsl_sched_sleeping(const lsl_sched *s) { return s->now_ms < s->wake_ms; }
/* Not sleeping and an event is waiting. */
static inline bool lsl_sched_runnable(const lsl_sched *s) { return !lsl_sched_sleeping(s) && s->count > 0; }

/* ---- sleep, time, timer --------------------------------------------------- */

/* llSleep(seconds) and forced delays: not runnable until now + delay
 * (a delay of 0 or less does nothing). */
void lsl_sched_sleep(lsl_sched *s, double seconds);
void lsl_sched_sleep_ms(lsl_sched *s, uint64_t ms);
/* llGetTime, llResetTime, llGetAndResetTime. */
float lsl_sched_get_time(const lsl_sched *s);
void lsl_sched_reset_time(lsl_sched *s);
float lsl_sched_get_and_reset_time(lsl_sched *s);
/* llSetTimerEvent(seconds). */
void lsl_sched_set_timer(lsl_sched *s, double seconds);

/* ---- event queue ---------------------------------------------------------- */

/* Queues event `event` with `n` arguments (references are taken, the
 * caller's stay theirs).  *queued says whether it was added: false when the
 * queue is full (counted in `dropped`) or the state has no handler for it.
 * GSVM_ERR_USAGE for an unknown event, state_entry/state_exit, or arguments
 * not matching the signature; GSVM_ERR_FAULT "Stack-Heap Collision" when an
 * argument's object copied into the script's heap does not fit (nothing
 * queued). */
gsvm_status lsl_sched_push(lsl_sched *s, int event, const lsl_value *args, size_t n, bool *queued,
                           gsvm_error *err);
/* Takes the oldest event: *out receives the argument references (release
 * them with lsl_sched_event_release).
 * False when the queue is empty. */
bool lsl_sched_pop(lsl_sched *s, lsl_sched_event *out);
/* The i-th waiting event (0 = oldest), or NULL. */
const lsl_sched_event *lsl_sched_peek(const lsl_sched *s, unsigned i);
void lsl_sched_event_release(lsl_sched_event *ev);
/* Empties the queue. */
void lsl_sched_clear_queue(lsl_sched *s);

/* ---- listens -------------------------------------------------------------- */

/* llListen: *handle gets the listen's handle.  `name`, `key`, `msg` are
 * string or key values (any heap).  GSVM_ERR_FAULT "Too Many Listens" when
 * 65 are open; GSVM_ERR_NOMEM. */
gsvm_status lsl_sched_listen(lsl_sched *s, int32_t channel, const lsl_value *name,
                             const lsl_value *key, const lsl_value *msg, int32_t *handle,
                             gsvm_error *err);
void lsl_sched_listen_remove(lsl_sched *s, int32_t handle);
void lsl_sched_listen_control(lsl_sched *s, int32_t handle, bool active);
/* The listen with this handle, or NULL. */
const lsl_listen *lsl_sched_listen_find(const lsl_sched *s, int32_t handle);
/* Does listen `l` accept this message (ignoring its active flag)? */
bool lsl_listen_matches(const lsl_listen *l, int32_t channel, const char *name, size_t name_len,
                        const char *key, size_t key_len, const char *msg, size_t msg_len);
/* A chat message reaches the script: if an active listen matches, queue one
 * listen(channel, name, id, message) event (as lsl_sched_push; *queued may
 * be NULL).  *matched (may be NULL) counts the active listens that matched. */
gsvm_status lsl_sched_hear(lsl_sched *s, int32_t channel, const char *name, size_t name_len,
                           const char *key, size_t key_len, const char *msg, size_t msg_len,
                           unsigned *matched, bool *queued, gsvm_error *err);

/* ---- snapshot ------------------------------------------------------------- */

/* Appends the scheduler's state (check e->oom || e->out->oom at the end). */
void lsl_sched_encode(const lsl_sched *s, lsl_value_encoder *e);
/* Reads it back into `s`, which must be freshly initialised (lsl_sched_init,
 * with the heap the decoder charges).  GSVM_ERR_INPUT naming the byte offset
 * and the field for anything out of bounds or inconsistent; on any error `s`
 * is left empty (as after lsl_sched_init). */
gsvm_status lsl_sched_decode(lsl_sched *s, lsl_value_decoder *d, gsvm_error *err);
/* Standalone forms: the state alone in `out` / from `data`, which must hold
 * exactly one encoded state (trailing bytes are rejected). */
gsvm_status lsl_sched_save(const lsl_sched *s, gsvm_buf *out, gsvm_error *err);
gsvm_status lsl_sched_load(lsl_sched *s, const void *data, size_t len, gsvm_error *err);

#endif
