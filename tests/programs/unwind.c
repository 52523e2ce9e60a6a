/*
 * unwind.c: call stacks that only unwinding tells right, for
 * tests/e2e/t_unwind.sh (backtraces of `hindsight replay` and of `hindsight
 * run`'s explanation against GDB's on the same program).
 *
 *   unwind deep N      level(N) .. level(0) recursion; level(0) writes
 *                      through a null pointer: SIGSEGV kills it
 *   unwind spin N      the same, level(0) first looping 5000 times (for
 *                      --snapshot: the calls are older than what it keeps)
 *   unwind longjmp N   the same with a SIGSEGV handler that siglongjmps back
 *                      to main (the handler and the N + 1 level frames never
 *                      return); main then calls after_jump, whose
 *                      crash_later faults with the default action
 *   unwind return N    level(N) with a SIGSEGV handler that restores the
 *                      default action and returns: the write faults again,
 *                      right after the handler's rt_sigreturn, and kills it
 *   unwind inline      through_inline() runs inl_outer() and inl_inner(),
 *                      both inlined into it (always_inline, even at -O0),
 *                      and inl_inner calls crash_here, which faults
 *   unwind nested      work() runs ud2: the SIGILL handler calls in_handler,
 *                      which faults; the SIGSEGV handler, running inside the
 *                      SIGILL one, restores the default action and calls
 *                      crash_in_segv, whose fault kills it (two signal
 *                      frames on the stack)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static sigjmp_buf env;
static int *volatile nowhere;
static volatile long sink;
static long spins;

static void on_segv(int sig)
{
    sink += sig; /* LINE:on_segv */
    siglongjmp(env, 1);
}

static void crash_later(void)
{
    sink++;
    *nowhere = 1; /* LINE:crash_later */
}

static void after_jump(void)
{
    crash_later();
    sink++;
}

static long level(int n)
{
    if (n == 0) {
        for (volatile long i = 0; i < spins; i++)
            sink += i;
        *nowhere = 2; /* LINE:level_fault */
        return 0;
    }
    return level(n - 1) + 1;
}

static void on_segv_return(int sig)
{
    sink += sig; /* LINE:on_segv_return */
    signal(SIGSEGV, SIG_DFL);
}

static void crash_in_segv(void)
{
    sink++;
    *nowhere = 4; /* LINE:crash_in_segv */
}

static void on_segv_nested(int sig)
{
    sink += sig; /* LINE:on_segv_nested */
    signal(SIGSEGV, SIG_DFL);
    crash_in_segv();
}

static void in_handler(void)
{
    *nowhere = 3; /* LINE:in_handler */
}

static void on_ill(int sig)
{
    sink += sig; /* LINE:on_ill */
    in_handler();
}

static void crash_here(int v)
{
    sink += v;
    *nowhere = v; /* LINE:crash_here */
}

static inline __attribute__((always_inline)) void inl_inner(int v)
{
    sink += v;
    crash_here(v + 1); /* LINE:inl_inner */
}

static inline __attribute__((always_inline)) void inl_outer(int v)
{
    inl_inner(v + 1); /* LINE:inl_outer */
}

static void through_inline(int v)
{
    sink++;
    inl_outer(v); /* LINE:through_inline */
}

static void work(void)
{
    sink++;
    __builtin_trap(); /* LINE:trap */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "deep";
    int n = argc > 2 ? atoi(argv[2]) : 3;

    if (!strcmp(mode, "longjmp")) {
        signal(SIGSEGV, on_segv);
        if (sigsetjmp(env, 1) == 0)
            level(n);
        signal(SIGSEGV, SIG_DFL);
        after_jump(); /* LINE:after_jump */
    } else if (!strcmp(mode, "return")) {
        signal(SIGSEGV, on_segv_return);
        level(n);
    } else if (!strcmp(mode, "inline")) {
        through_inline(n);
    } else if (!strcmp(mode, "nested")) {
        signal(SIGILL, on_ill);
        signal(SIGSEGV, on_segv_nested);
        work();
    } else {
        spins = strcmp(mode, "spin") ? 0 : 5000;
        level(n);
    }
    return 0;
}
