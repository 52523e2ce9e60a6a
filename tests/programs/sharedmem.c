/*
 * sharedmem.c: memory another process writes, which no syscall of this
 * one brings in. argv[1]:
 *   shared   a MAP_SHARED anonymous page; a child (fork) writes a number
 *            the parent could not know into it; the parent prints it.
 *   private  the same with MAP_PRIVATE: the child's write stays its own,
 *            the parent prints 0.
 *   race     parent and child race on shared memory: an anonymous page
 *            and a file's (shm_open, as POSIX semaphores and Python's
 *            multiprocessing map theirs). Both add to a counter with lock
 *            xadd; the parent spins until the child's flag comes (the
 *            child waits until the parent has added 500 or more), and
 *            then maps the file's page itself (the child mapped it after
 *            the fork), reads 16 bytes (one vector load) the child stamped
 *            there, and writes the next 16 to /dev/null (the kernel reads
 *            them, the program never did). Two functions read shared
 *            memory with code translated before it was mapped: peek, first
 *            run before any shared mapping, and peek_r, before the second.
 *            Every value the parent reads there is another process's
 *            doing: it prints their hash (g_seen).
 *   threads  two threads of this process read a MAP_SHARED page a child
 *            writes into all along, in loops with nothing else between
 *            reads, while a timer's signal comes (so that another thread's
 *            turn, and the signal, come right after a read of it); each
 *            prints the hash of what it read, and the alarms. The signal
 *            is blocked in the main thread, which waits in pthread_join:
 *            a wait it interrupts is made again after the handler, and the
 *            light run's own trace has that syscall instruction twice
 *            where the history has it once (docs/record.md).
 *   uring    io_uring_setup, its result printed (rings the kernel
 *            writes into, when the kernel and Valgrind let it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int by_child(int flags)
{
    volatile long *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
    pid_t pid;

    if (p == MAP_FAILED)
        return 1;
    pid = fork();
    if (pid == 0) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        *p = ts.tv_nsec | 1;
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, NULL, 0) != pid)
        return 1;
    printf("read %ld\n", *p);
    return 0;
}

struct race {
    volatile long flag;
    long counter;
    long late;                      /* the child's, after the parent's last add */
};

typedef long v2 __attribute__((vector_size(16)));

unsigned long g_seen;               /* a hash of what the parent read */
long g_spins;

static void seen(long v)
{
    g_seen = g_seen * 1000003 + (unsigned long)v;
}

__attribute__((noinline)) static long peek(const volatile long *p)
{
    return *p;
}

__attribute__((noinline)) static long peek_r(const volatile long *p)
{
    return *(const volatile int *)p;  /* (not folded into peek) */
}

static int race(void)
{
    long before = 41;
    struct race *r;
    char name[64];
    int fd, go[2];
    volatile v2 *stamp;
    pid_t pid;

    seen(peek(&before));            /* translated before any shared mapping */
    r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    snprintf(name, sizeof(name), "/hsrec-sharedmem-%d", (int)getpid());
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (r == MAP_FAILED || fd < 0 || shm_unlink(name) < 0 || ftruncate(fd, 4096) < 0 ||
        pipe(go) < 0)
        return 1;
    pid = fork();
    if (pid == 0) {
        struct timespec ts;

        stamp = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (stamp == MAP_FAILED || write(go[1], "g", 1) != 1)
            _exit(1);
        for (int i = 0; i < 3000; i++)
            __atomic_fetch_add(&r->counter, 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&r->counter, __ATOMIC_ACQUIRE) < 3500)
            ;                       /* the parent has spun a while */
        clock_gettime(CLOCK_REALTIME, &ts);
        stamp[0] = (v2){ ts.tv_nsec, (long)getpid() };
        stamp[1] = (v2){ ts.tv_sec, ts.tv_nsec ^ 0x5a5a };
        r->late = ts.tv_nsec | 1;
        __atomic_store_n(&r->flag, 1, __ATOMIC_RELEASE);
        _exit(0);
    }
    char c;
    if (pid < 0 || read(go[0], &c, 1) != 1)
        return 1;
    /* (peek_r translated while only the first page is shared.) */
    while (!peek_r(&r->flag) && g_spins < 20000) {
        seen(__atomic_fetch_add(&r->counter, 1, __ATOMIC_SEQ_CST));
        g_spins++;
    }
    seen(peek(&r->late));
    stamp = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (stamp == MAP_FAILED)
        return 1;
    v2 v = stamp[0];
    seen(v[0]);
    seen(v[1]);
    seen(peek_r((const volatile long *)stamp));
    fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || write(fd, (const void *)&stamp[1], 16) != 16)
        return 1;
    close(fd);
    if (waitpid(pid, NULL, 0) != pid)
        return 1;
    printf("spins %ld counter %ld child %ld seen %lu\n", g_spins, r->counter, v[1], g_seen);
    return 0;
}

static volatile long *g_page;
static volatile int g_alarms;

static void on_alarm(int sig)
{
    (void)sig;
    g_alarms++;
}

static void *reader(void *arg)
{
    unsigned long h = (unsigned long)arg;
    sigset_t alarm;

    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);

    for (long i = 0; i < 100000; i++)
        h = h * 31 + (unsigned long)g_page[i & 7];
    return (void *)h;
}

static int threads(void)
{
    struct itimerval it = { { 0, 3000 }, { 0, 3000 } };
    pthread_t t[2];
    void *h[2];
    pid_t pid;

    g_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g_page == MAP_FAILED)
        return 1;
    pid = fork();
    if (pid == 0) {
        for (long i = 0; i < 200000000 && !g_page[8]; i++)
            g_page[i & 7] = i;
        _exit(0);
    }
    sigset_t alarm;

    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, NULL);
    signal(SIGALRM, on_alarm);
    setitimer(ITIMER_REAL, &it, NULL);
    for (long k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, reader, (void *)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], &h[k]);
    it.it_value.tv_usec = it.it_interval.tv_usec = 0;
    setitimer(ITIMER_REAL, &it, NULL);
    g_page[8] = 1;
    waitpid(pid, NULL, 0);
    printf("hashes %lu %lu alarms %d\n", (unsigned long)h[0], (unsigned long)h[1], g_alarms);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "shared";

    if (!strcmp(what, "shared"))
        return by_child(MAP_SHARED);
    if (!strcmp(what, "private"))
        return by_child(MAP_PRIVATE);
    if (!strcmp(what, "race"))
        return race();
    if (!strcmp(what, "threads"))
        return threads();
    if (!strcmp(what, "uring")) {
        unsigned char params[120] = { 0 };   /* struct io_uring_params */
        long fd = syscall(425 /* io_uring_setup */, 4, params);

        printf("io_uring_setup %s\n", fd >= 0 ? "made a ring" : strerror(errno));
        return 0;
    }
    return 2;
}
