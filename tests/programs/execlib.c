/*
 * execlib.c: the shared libraries of execsym.c: libexeclib.so, and with
 * -DEXEC_A libexeca.so, whose functions have other names at other
 * offsets. The program before the exec loads one, the program after it
 * the other, and the loader places each first after itself, at the same
 * address (under Valgrind, which lays every process out the same way).
 * t_history_exec.
 */
#ifdef EXEC_A
#define SUM execa_sum
#define ADD execa_add
#define LOOP execa_loop
#else
#define SUM execlib_sum
#define ADD execlib_add
#define LOOP execlib_loop
#endif

volatile long SUM;

#ifdef EXEC_A
/* Moves A's functions to other offsets than B's. */
__attribute__((noinline)) long execa_pad(long v)
{
	return v * 3 + 1;
}
#endif

__attribute__((noinline)) long ADD(long v)
{
	return SUM += v;
}

__attribute__((noinline)) long LOOP(int n)
{
	for (int i = 0; i < n; i++)
		ADD(i);
	return SUM;
}
