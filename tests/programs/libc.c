/* libc.c: calls puts() and strlen() from libc, so tests can break in libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t libc_measure(const char *s)
{
    return strlen(s); /* LINE:measure */
}

int main(int argc, char **argv)
{
    const char *msg = argc > 1 ? argv[1] : "hello from libc.c";
    size_t n = libc_measure(msg);
    puts(msg);
    printf("libc: len=%zu\n", n);
    fflush(stdout);
    return 0;
}
