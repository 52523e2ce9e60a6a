/* inline.c: small functions the compiler inlines at -O2, for source-line and
 * inlined-frame tests. The argument decides how many times the loop runs. */
#include <stdio.h>
#include <stdlib.h>

static inline int inl_twice(int x) { return x * 2 + (x & 1); } /* LINE:twice */
static inline int inl_mix(int x) { return inl_twice(x) ^ (x >> 3); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5, acc = 0;

    for (int i = 0; i < n; i++)
        acc += inl_mix(i * n); /* LINE:loop */
    printf("inline: %d\n", acc);
    return 0;
}
