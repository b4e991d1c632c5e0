/* Small hand-assembled scripts used by the golden CLI tests, the demo and
 * the benchmark.  The committed .bin files are generated from these
 * (`patho_vm --write-examples DIR`) and the unit test checks that they still
 * match, byte for byte. */
#ifndef GSVM_TEST_PATHO_EXAMPLES_H
#define GSVM_TEST_PATHO_EXAMPLES_H

#include "build.h"

/* door: a task variable counts OnUse events (10), greets the user and calls
 * StopGroup0() to wake the main loop; a global event (11) traces its text,
 * sleeps half a second inside the handler and traces again; the main loop
 * Holds (until woken) while fewer than three uses were counted, then says
 * bye and returns (the script ends). */
static inline void example_door(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t trace = imp(b, "Trace", 1), hold = imp(b, "Hold", 0), sleep = imp(b, "Sleep", 1);
    uint32_t stop = imp(b, "StopGroup0", 0);
    uint32_t t = task(b, "i", 0);
    E(b, OP(PushS), s16(b, "door ready")); /* 0 */
    func(b, trace, 1, 0);                  /* 1 */
    E(b, OP(Pop), 1);                      /* 2 */
    func(b, hold);                         /* 3: loop */
    E(b, OP(PushI), 3);                    /* 4 */
    E(b, OP(LT), 0, 1, 0x81);              /* 5: push TaskVar[0] < 3, pop 1 */
    E(b, OP(JumpB), 1, 3, 1, 1);           /* 6 */
    E(b, OP(PushS), s16(b, "bye"));        /* 7 */
    func(b, trace, 1, 0);                  /* 8 */
    E(b, OP(Return), 1);                   /* 9: the entry frame returns */
    /* 10: OnUse(object who) */
    E(b, OP(PushI), 1);                    /* 10 */
    E(b, OP(Add2), 0, 1, 0, 0xA1);         /* 11: TaskVar[0] = TaskVar[0] + 1; pop 1 */
    E(b, OP(PushT), 0);                    /* 12 */
    objfunc(b, 0, 2, s8(b, "Greet"), 1, 1, 0); /* 13: who.Greet(count) */
    E(b, OP(Pop), 1);                      /* 14 */
    func(b, stop);                         /* 15: ends the main loop's Hold */
    E(b, OP(Return), 0);                   /* 16 */
    /* 17: global event 11 (string text) */
    func(b, trace, 1, 0);                  /* 17 */
    E(b, OP(PushF), fbits(0.5f));          /* 18 */
    func(b, sleep, 1, 0);                  /* 19 */
    E(b, OP(Pop), 1);                      /* 20 */
    E(b, OP(PushS), s16(b, "slept"));      /* 21 */
    func(b, trace, 1, 0);                  /* 22 */
    E(b, OP(Return), 1);                   /* 23 */
    tevent(b, t, 10, 10, "o");
    gevent(b, 11, 17, "s");
}

/* fault: traces, then subtracts a string from an int. */
static inline void example_fault(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t trace = imp(b, "Trace", 1);
    task(b, "", 0);
    E(b, OP(PushS), s16(b, "before"));
    func(b, trace, 1, 0);
    E(b, OP(PushI), 1);
    E(b, OP(PushS), s16(b, "x"));
    E(b, OP(Sub), 2, 1, 0);
    E(b, OP(Return), 3);
}

/* spin: loops forever without waiting. */
static inline void example_spin(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_ALPHA);
    task(b, "", 0);
    E(b, OP(Jump), 0);
}

/* values: one native call with every kind of argument, in the alpha layout. */
static inline void example_values(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_ALPHA);
    uint32_t show = imp(b, "Show", 6);
    task(b, "o", 0);
    E(b, OP(PushB), 1);
    E(b, OP(PushI), (unsigned)-7);
    E(b, OP(PushF), fbits(0.1f));
    E(b, OP(PushS), s16(b, "text \"quoted\""));
    E(b, OP(PushVec), fbits(1), fbits(-2.5f), fbits(1e20f));
    func(b, show, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0, 1);
    E(b, OP(Return), 5);
}

/* loop: the benchmark: sum += (i * 3) % 7 for i in [0, n), then Print(sum). */
static inline void example_loop(bld *b, int32_t n)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t print = imp(b, "Print", 1);
    task(b, "ii", 0);
    E(b, OP(TMovI), 0, 0);         /* 0: i = 0 */
    E(b, OP(TMovI), 1, 0);         /* 1: sum = 0 */
    E(b, OP(PushI), (unsigned)n);  /* 2 */
    E(b, OP(PushI), 3);            /* 3: loop */
    E(b, OP(Mult), 0, 1, 0x81);    /* 4: push i * 3, pop the 3 */
    E(b, OP(PushI), 7);            /* 5 */
    E(b, OP(Mod), 2, 1, 0x02);     /* 6: push (i*3) % 7, pop both */
    E(b, OP(Add2), 1, 1, 1, 0xA1); /* 7: sum = sum + that; pop 1 */
    E(b, OP(PushI), 1);            /* 8 */
    E(b, OP(Add2), 0, 1, 0, 0xA1); /* 9: i = i + 1; pop 1 */
    E(b, OP(LT), 0, 1, 0x80);      /* 10: push i < n */
    E(b, OP(JumpB), 1, 3, 1, 1);   /* 11 */
    E(b, OP(PushT), 1);            /* 12 */
    func(b, print, 1, 0);          /* 13 */
    E(b, OP(Return), 2);           /* 14 */
}

#endif
