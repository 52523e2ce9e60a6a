/*
 * tests/programs/bigmap.c: reserves 1 TiB of address space (PROT_NONE, no
 * memory behind it), touches a page of a small mapping, and gives both
 * back: the state log gets mapping records of 2^40 bytes.
 */
#include <stdio.h>
#include <sys/mman.h>

char *small;                    /* globals: a debugger reads them at the exit */

int main(void)
{
	char *big = mmap(0, 1ull << 40, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);

	small = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED || small == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	small[7] = 42;
	munmap(big, 1ull << 40);
	return small[7] == 42 ? 0 : 2;
}
