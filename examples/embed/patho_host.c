/* patho_host.c: a host program that embeds gsvm's Pathologic VM.
 *
 *   cc -o patho_host patho_host.c $(pkg-config --cflags --libs gsvm)
 *   ./patho_host
 *
 * It assembles a script from gsvm's listing syntax, gives it the host's own
 * natives (Trace prints; Sleep and Hold are the game's latent waits, kept by
 * the library's clock so snapshots hold them) and a method on a game object,
 * runs it frame by frame, sends it events, moves it to a fresh VM through a
 * snapshot, and shows a script that imports a native the host lacks refused
 * before anything runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho_host.h"

static const char listing[] =
    ".layout hd\n"
    ".global object \"Greeter\"\n"
    ".import Trace 1\n"
    ".import Sleep 1\n"
    ".import Hold 0\n"
    ".import StopGroup0 0\n"
    ".entry 0 main\n"
    ".task 0 params=0 vars=(int)\n"
    "    .on 10 on_use (object)\n"
    ".code\n"
    "main:\n"
    "    TMovI t0, 0\n"
    "loop:\n"
    "    PushF 0.5\n"
    "    Func Sleep(s1)\n"
    "    Pop 1\n"
    "    PushI 3\n"
    "    LT t0, s1, pop=1\n"
    "    JumpB s1, done, 0, pop=1\n"
    "    Func Hold()\n"
    "    Jump loop\n"
    "done:\n"
    "    PushS \"Goodbye, Pathologic\"\n"
    "    Func Trace(s1)\n"
    "    Return 1\n"
    "on_use:\n"
    "    PushI 1\n"
    "    Add2 t0, s1, t0, pop=1\n"
    "    PushS \"Pathologic\"\n"
    "    Func Trace(s1)\n"
    "    ObjFunc s2, \"Greet\", (t0)\n"
    "    Func StopGroup0()\n"
    "    Return 1\n";

enum { TRACE, SLEEP, HOLD, STOP_GROUP0 };
static const char *const natives[] = {"Trace", "Sleep", "Hold", "StopGroup0"};
static gsvm_patho_clock game_clock;

static int32_t resolve(void *user, const char *name, uint32_t argc)
{
    (void)user;
    (void)argc;
    for (int32_t i = 0; i < 4; i++)
        if (strcmp(name, natives[i]) == 0)
            return i;
    return -1; /* gsvm_patho_vm_new refuses the program, naming the import */
}

static gsvm_patho_call_result call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)user;
    (void)vm;
    if (c->is_method) {
        printf("frame %llu: object %u.%s(%d)\n", (unsigned long long)game_clock.frame,
               (unsigned)c->object, c->name, c->argc ? (int)c->args[0]->as.i : 0);
        return GSVM_PATHO_CALL_DONE;
    }
    switch (c->native) {
    case TRACE: {
        char *text = gsvm_patho_string_to_utf8(c->args[0], NULL);
        printf("frame %llu: Trace(\"%s\")\n", (unsigned long long)game_clock.frame, text ? text : "?");
        free(text);
        return GSVM_PATHO_CALL_DONE;
    }
    case SLEEP:
        return gsvm_patho_clock_wait(&game_clock, GSVM_PATHO_WAIT_TIME, -1, c);
    case HOLD:
        return gsvm_patho_clock_wait(&game_clock, GSVM_PATHO_WAIT_EVENT, -1, c);
    case STOP_GROUP0:
        gsvm_patho_clock_stop_group0(&game_clock);
        return GSVM_PATHO_CALL_DONE;
    }
    snprintf(c->fault, sizeof c->fault, "no native %s", c->name);
    return GSVM_PATHO_CALL_FAULT;
}

/* Game frames of 20 ms until `ms` have passed. */
static int frames(gsvm_patho_vm *vm, int ms)
{
    gsvm_error err;
    for (int t = 0; t < ms; t += 20) {
        gsvm_patho_clock_frame(&game_clock, 20);
        if (gsvm_patho_vm_run_frame(vm, &err) != GSVM_OK) {
            fprintf(stderr, "frame: %s\n", err.message);
            return 1;
        }
    }
    return 0;
}

/* Event 10 (the object `who` uses the greeter); its handler runs at once. */
static int use(gsvm_patho_vm *vm, uint32_t who)
{
    gsvm_error err;
    gsvm_patho_value arg = gsvm_patho_object(who);
    gsvm_patho_event_result r;
    if (gsvm_patho_vm_send_event(vm, 10, &arg, 1, &r, &err) != GSVM_OK) {
        fprintf(stderr, "event: %s\n", err.message);
        return 1;
    }
    printf("event 10 from object %u: %s\n", (unsigned)who, gsvm_patho_event_result_name(r));
    return 0;
}

int main(void)
{
    gsvm_error err;
    gsvm_patho_program *prog;
    if (gsvm_patho_asm(listing, strlen(listing), "greeter.lst", GSVM_PATHO_LAYOUT_AUTO, &prog,
                       &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    gsvm_patho_host host = {NULL, resolve, call, NULL};
    gsvm_patho_vm *vm, *moved;
    if (gsvm_patho_vm_new(prog, &host, &vm, &err) != GSVM_OK ||
        gsvm_patho_vm_start(vm, &err) != GSVM_OK || gsvm_patho_vm_run_frame(vm, &err) != GSVM_OK)
        return 1; /* frame 0: main runs to its first Sleep */
    if (use(vm, 7) || frames(vm, 600) || use(vm, 7) || frames(vm, 600))
        return 1;
    printf("frame %llu: %s\n", (unsigned long long)game_clock.frame,
           gsvm_patho_state_name(gsvm_patho_vm_state(vm)));

    /* Move the script: the snapshot holds the stack, tasks and the wait. */
    uint8_t *bytes;
    size_t len;
    if (gsvm_patho_vm_snapshot(vm, &bytes, &len, &err) != GSVM_OK ||
        gsvm_patho_vm_restore(prog, &host, bytes, len, &moved, &err) != GSVM_OK) {
        fprintf(stderr, "snapshot: %s\n", err.message);
        return 1;
    }
    printf("snapshot: %zu bytes, restored into a fresh VM\n", len);
    free(bytes);
    gsvm_patho_vm_free(vm);
    if (use(moved, 8) || frames(moved, 600))
        return 1;
    printf("frame %llu: %s after %llu instructions\n", (unsigned long long)game_clock.frame,
           gsvm_patho_state_name(gsvm_patho_vm_state(moved)),
           (unsigned long long)gsvm_patho_vm_instructions(moved));
    gsvm_patho_vm_free(moved);
    gsvm_patho_free(prog);

    /* A native the host does not have: refused before anything runs. */
    const char lacking[] = ".layout hd\n.import Explode 0\n.entry 0 main\n.task 0 params=0 vars=()\n"
                           ".code\nmain:\n    Func Explode()\n    Return 1\n";
    if (gsvm_patho_asm(lacking, strlen(lacking), "lacking.lst", GSVM_PATHO_LAYOUT_AUTO, &prog, &err) != GSVM_OK)
        return 1;
    if (gsvm_patho_vm_new(prog, &host, &vm, &err) == GSVM_OK)
        return 1;
    printf("refused: %s\n", err.message);
    gsvm_patho_free(prog);
    return 0;
}
