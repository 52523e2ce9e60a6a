/*
 * jitcode.c: a program that makes its own code, as a JIT does, and runs it:
 * 1. a loop written into anonymous memory, run;
 * 2. other code written over it at the same address, run (a new version
 *    of the page, no mprotect between);
 * 3. an instruction that crosses from one page of such memory into the
 *    next (a 10-byte movabs at 3 bytes before a page's end);
 * 4. W^X as JITs do it: a page written, made read-and-execute, run, made
 *    writable again, rewritten, made read-and-execute, run;
 * 5. a page unmapped and mapped again at the same address with other code;
 * 6. code run, then its page made read-and-execute and read-write-execute
 *    again, the code run after each (it stays executable: Valgrind keeps
 *    its translation, and describes it no more);
 * 7. an instruction that crosses from such memory into a page mapped from a
 *    file (jitcode.page in the working directory, which `jitcode page`
 *    makes: a file a recorded run mapped must be the same when it is
 *    rebuilt), whose own code runs after it;
 * 8. a loop that writes over its own first instruction (under Valgrind the
 *    block it is translated into runs the bytes of before until it is
 *    entered again).
 * It prints each result and each function's address ("at NAME 0x...").
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

typedef long (*fn)(long);

/* xor eax,eax; L: add eax,edi; dec edi; jnz L; ret: 1 + 2 + ... + n */
static const unsigned char sum_code[] = { 0x31, 0xc0, 0x01, 0xf8, 0xff, 0xcf, 0x75, 0xfa, 0xc3 };
/* lea eax,[rdi+rdi*2]; ret: 3n */
static const unsigned char triple_code[] = { 0x8d, 0x04, 0x7f, 0xc3 };
/* movabs rax, 0x1122334455667788; ret */
static const unsigned char movabs_code[] = { 0x48, 0xb8, 0x88, 0x77, 0x66, 0x55,
					     0x44, 0x33, 0x22, 0x11, 0xc3 };
/* lea rax,[rdi+7]; ret */
static const unsigned char plus7_code[] = { 0x48, 0x8d, 0x47, 0x07, 0xc3 };
/* mov rax,rdi; neg rax; ret */
static const unsigned char neg_code[] = { 0x48, 0x89, 0xf8, 0x48, 0xf7, 0xd8, 0xc3 };
/* X: mov eax,1; mov byte [X+1],5; dec edi; jnz X; ret */
static const unsigned char smc_code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc6, 0x05, 0xf5, 0xff,
					  0xff, 0xff, 0x05, 0xff, 0xcf, 0x75, 0xf0, 0xc3 };

/* jitcode.page: the tail of a movabs (8 bytes) and a ret, then at 16 the
 * lea rax,[rdi+7]; ret of plus7_code. */
static int make_file_page(void)
{
	unsigned char page[PAGE] = { 0x55, 0x66, 0x77, 0x88, 0x11, 0x22, 0x33, 0xc3 };
	int fd = open("jitcode.page", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	memcpy(page + 16, plus7_code, sizeof(plus7_code));
	if (fd < 0 || write(fd, page, PAGE) != PAGE)
		return 1;
	return close(fd) < 0;
}

/* jitcode.page mapped executable at @at. */
static int map_file_page(unsigned char *at)
{
	int fd = open("jitcode.page", O_RDONLY);

	if (fd < 0 || mmap(at, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0) != at)
		return -1;
	return close(fd);
}

static long run(const char *name, unsigned char *at, const unsigned char *code, size_t len,
		long arg)
{
	long r;

	memcpy(at, code, len);
	__builtin___clear_cache((char *)at, (char *)at + len);
	r = ((fn)(uintptr_t)at)(arg);
	printf("at %s %p: %ld\n", name, (void *)at, r);
	return r;
}

int main(int argc, char **argv)
{
	unsigned char *m = mmap(NULL, 6 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *w;

	if (argc > 1 && !strcmp(argv[1], "page"))
		return make_file_page();
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	run("sum", m + 64, sum_code, sizeof(sum_code), 1000);
	run("triple", m + 64, triple_code, sizeof(triple_code), 1000);
	run("movabs", m + PAGE - 3, movabs_code, sizeof(movabs_code), 0);

	w = m + 2 * PAGE;
	mprotect(w, PAGE, PROT_READ | PROT_WRITE);
	memcpy(w + 16, plus7_code, sizeof(plus7_code));
	mprotect(w, PAGE, PROT_READ | PROT_EXEC);
	printf("at plus7 %p: %ld\n", (void *)(w + 16), ((fn)(uintptr_t)(w + 16))(35));
	mprotect(w, PAGE, PROT_READ | PROT_WRITE);
	memcpy(w + 16, neg_code, sizeof(neg_code));
	mprotect(w, PAGE, PROT_READ | PROT_EXEC);
	printf("at neg %p: %ld\n", (void *)(w + 16), ((fn)(uintptr_t)(w + 16))(35));

	w = m + 3 * PAGE;
	run("kept", w + 128, sum_code, sizeof(sum_code), 10);
	mprotect(w, PAGE, PROT_READ | PROT_EXEC);
	printf("at kept %p: %ld\n", (void *)(w + 128), ((fn)(uintptr_t)(w + 128))(20));
	mprotect(w, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC);
	printf("at kept %p: %ld\n", (void *)(w + 128), ((fn)(uintptr_t)(w + 128))(30));

	w = m + 4 * PAGE;
	if (map_file_page(w + PAGE) < 0) {
		perror("jitcode.page");
		return 1;
	}
	memcpy(w + PAGE - 3, movabs_code, 3);
	printf("at cross %p: %lx\n", (void *)(w + PAGE - 3),
	       (unsigned long)((fn)(uintptr_t)(w + PAGE - 3))(0));
	printf("at filed %p: %ld\n", (void *)(w + PAGE + 16), ((fn)(uintptr_t)(w + PAGE + 16))(35));

	run("smc", m + 3 * PAGE + 512, smc_code, sizeof(smc_code), 3);

	munmap(m, PAGE);
	if (mmap(m, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != m) {
		perror("mmap again");
		return 1;
	}
	run("again", m + 64, plus7_code, sizeof(plus7_code), 100);
	return 0;
}
