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
 *    its translation, and describes it no more).
 * It prints each result and each function's address ("at NAME 0x...").
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

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

int main(void)
{
	unsigned char *m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *w;

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

	munmap(m, PAGE);
	if (mmap(m, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != m) {
		perror("mmap again");
		return 1;
	}
	run("again", m + 64, plus7_code, sizeof(plus7_code), 100);
	return 0;
}
