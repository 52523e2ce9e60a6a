/*
 * origin.c: values with a history, for `last` and the crash's origin
 * (replay/decode/provenance.h). Usage: origin MODE [A B]
 *   chain A B  g_val becomes A in set_first, then B in set_second (which
 *              set_again writes again, changing nothing); g_ptr
 *              is set in set_ptr and loaded through r12 -> r13 at the
 *              labels origin_load / origin_use (inline assembly, so the
 *              instructions are known exactly)
 *   uaf        a freed node's block is reused by reuse(), which writes the
 *              field the stale pointer then reads
 *   clobber    a memset past table[1].name overwrites table[2].next, which
 *              walk() dereferences: SIGSEGV
 *   smash      a strcpy past a struct's buffer overwrites its neighbour
 *   thread     a second thread (worker) stores a bad pointer that main,
 *              after joining it, dereferences: SIGSEGV
 * Lines a test needs are tagged with LINE: markers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long g_val;
long g_target = 7;
long *g_ptr;

__attribute__((noinline)) static void set_first(long v)
{
	g_val = v; /* LINE:first */
}

__attribute__((noinline)) static void set_second(long v)
{
	g_val = v; /* LINE:second */
}

__attribute__((noinline)) static void set_again(long v)
{
	g_val = v; /* LINE:again */
}

__attribute__((noinline)) static void set_ptr(void)
{
	g_ptr = &g_target; /* LINE:set_ptr */
}

static long chain(long a, long b)
{
	long out;

	set_first(a);
	set_second(b);
	set_again(b);
	set_ptr();
	__asm__ volatile(".globl origin_load\norigin_load:\n\t"
			 "movq g_ptr(%%rip), %%r12\n\t"
			 "movq %%r12, %%r13\n"
			 ".globl origin_use\norigin_use:\n\t"
			 "movq (%%r13), %0\n"
			 ".globl origin_after\norigin_after:\n\tnop\n"
			 : "=r"(out) : : "r12", "r13", "memory");
	return out + g_val;
}

struct node {
	long key;
	long field;
};

__attribute__((noinline)) static struct node *reuse(void)
{
	struct node *n = malloc(sizeof(*n));

	n->key = 1;
	n->field = 0x5eed; /* LINE:reuse */
	return n;
}

static long uaf(void)
{
	struct node *old = malloc(sizeof(*old)), *fresh;
	long v;

	old->key = 2;
	old->field = 0x1111; /* LINE:uaf_init */
	free(old);
	fresh = reuse();
	v = old->field; /* LINE:uaf_read */
	free(fresh);
	return v;
}

struct entry {
	char name[16];
	struct entry *next;
};

static struct entry table[4];

__attribute__((noinline)) static void clobber(int i)
{
	memset(table[i].name, 0x41, 32); /* LINE:clobber */
}

__attribute__((noinline)) static long walk(struct entry *e)
{
	long n = 0;

	while (e) {
		n++;
		e = e->next; /* LINE:walk */
	}
	return n;
}

static long clobbered(void)
{
	for (int i = 0; i < 3; i++)
		table[i].next = &table[i + 1];
	clobber(1);
	return walk(&table[0]); /* LINE:walk_call */
}

struct frame {
	char buf[8];
	long saved;
};

__attribute__((noinline)) static long smash(const char *s)
{
	struct frame f;

	f.saved = 42;
	strcpy(f.buf, s); /* LINE:smash */
	return f.saved; /* LINE:smash_read */
}

static long *g_shared;

static void *worker(void *arg)
{
	(void)arg;
	g_shared = (long *)0x18; /* LINE:worker */
	return NULL;
}

static long threaded(void)
{
	pthread_t t;
	long v = 1;

	g_shared = &v;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return *g_shared; /* LINE:thread_crash */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "chain";
	long r = 0;

	if (!strcmp(mode, "chain"))
		r = chain(argc > 2 ? atol(argv[2]) : 1, argc > 3 ? atol(argv[3]) : 2);
	else if (!strcmp(mode, "uaf"))
		r = uaf();
	else if (!strcmp(mode, "clobber"))
		r = clobbered();
	else if (!strcmp(mode, "thread"))
		r = threaded();
	else if (!strcmp(mode, "smash"))
		r = smash("0123456789abcde");
	printf("%s %ld\n", mode, r);
	return 0; /* LINE:end */
}
