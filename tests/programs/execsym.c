/*
 * execsym.c: runs its library's loop (linked before libc, the library
 * takes the first place after the loader's) and prints the sum. With
 * -DEXEC_A (execa, linked with libexeca.so) it runs its own library's
 * loop, then execs argv[1] (execsym): t_history_exec.
 */
#include <stdio.h>
#include <unistd.h>

#ifdef EXEC_A
long execa_loop(int n);

int main(int argc, char **argv)
{
	printf("%ld\n", execa_loop(500));
	fflush(stdout);
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 1;
}
#else
long execlib_loop(int n);

int main(void)
{
	printf("%ld\n", execlib_loop(1000));
	return 0;
}
#endif
