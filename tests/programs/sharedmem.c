/*
 * sharedmem.c: memory another process writes, which no syscall of this
 * one brings in. argv[1]:
 *   shared   a MAP_SHARED anonymous page; a child (fork) writes a number
 *            the parent could not know into it; the parent prints it.
 *   private  the same with MAP_PRIVATE: the child's write stays its own,
 *            the parent prints 0.
 *   uring    io_uring_setup, its result printed (rings the kernel
 *            writes into, when the kernel and Valgrind let it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "shared";

    if (!strcmp(what, "shared"))
        return by_child(MAP_SHARED);
    if (!strcmp(what, "private"))
        return by_child(MAP_PRIVATE);
    if (!strcmp(what, "uring")) {
        unsigned char params[120] = { 0 };   /* struct io_uring_params */
        long fd = syscall(425 /* io_uring_setup */, 4, params);

        printf("io_uring_setup %s\n", fd >= 0 ? "made a ring" : strerror(errno));
        return 0;
    }
    return 2;
}
