/* tests/programs/rec/forkexec.c: fork a child that execs /bin/true and
 * wait for it (the recorder follows the parent); vfork too. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int st = 0;
	pid_t p = fork();

	if (p == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(p, &st, 0);
	p = vfork();
	if (p == 0)
		_exit(5);
	waitpid(p, &st, 0);
	printf("forkexec %d\n", WEXITSTATUS(st));
	return 0;
}
