/*
 * execself.c: runs itself again with execv ("execself child"), which
 * prints its pid and exits with status 3: a process whose recording goes
 * on across an exec into a new image.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        printf("execself: child %d\n", (int)getpid()); /* LINE:child */
        return 3;
    }
    printf("execself: parent %d\n", (int)getpid());
    fflush(stdout);
    execl(argv[0], argv[0], "child", (char *)0);
    return 1;
}
