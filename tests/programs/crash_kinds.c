/* crash_kinds.c KIND N: dies of the signal KIND names (segv, abrt, bus,
 * fpe, ill) after N calls of step(), in fault_KIND(), called through
 * go() from main. With KIND "exit", exits with status N % 256. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct holder {
    long values[2];
    long *target;
};

static long acc;

long step(long i)
{
    acc += i * 3;
    return acc;
}

void fault_segv(long n)
{
    struct holder h = { { 0, 0 }, &acc };
    long *volatile *slot = &h.target;
    *slot = (long *)(n * 8); /* a small bad pointer */
    *h.target = n; /* LINE:segv */
}

void fault_abrt(long n)
{
    if (n >= 0)
        abort(); /* LINE:abrt */
}

void fault_bus(long n)
{
    char path[] = "/tmp/crash_kinds.XXXXXX";
    int fd = mkstemp(path);
    volatile char *p;

    if (fd < 0 || ftruncate(fd, 8192) < 0)
        exit(3);
    p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(path);
    if (p == MAP_FAILED || ftruncate(fd, 0) < 0)
        exit(3);
    p[4096 + n % 100] = 1; /* LINE:bus */
}

void fault_fpe(long n)
{
    volatile long zero = n - n;
    acc = n / zero; /* LINE:fpe */
}

void fault_ill(long n)
{
    acc = n;
    __asm__ volatile("ud2"); /* LINE:ill */
}

static void go(const char *kind, long n)
{
    if (!strcmp(kind, "segv")) fault_segv(n);
    if (!strcmp(kind, "abrt")) fault_abrt(n);
    if (!strcmp(kind, "bus")) fault_bus(n);
    if (!strcmp(kind, "fpe")) fault_fpe(n);
    if (!strcmp(kind, "ill")) fault_ill(n);
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "exit";
    long n = argc > 2 ? atol(argv[2]) : 1;

    for (long i = 0; i < n; i++)
        step(i);
    printf("crash_kinds: %s after %ld steps, acc %ld\n", kind, n, acc);
    fflush(stdout);
    go(kind, n);
    return (int)(n % 256);
}
