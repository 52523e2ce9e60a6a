/* tests/programs/rec/strings.c: glibc string functions on large buffers,
 * so that they take their AVX2 / EVEX paths (rep movsb / stosb too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t n = 1 << 16;
	char *a = malloc(n + 64), *b = malloc(n + 64);
	size_t total = 0;

	memset(a, 'x', n);
	a[n] = 0;
	for (int i = 0; i < 4; i++) {
		memcpy(b + i, a, n + 1);
		total += strlen(b + i);
		memset(b, i, n / 2);
		total += (size_t)memcmp(a, b + i, 64) != 0;
		total += strchr(a, 'y') == NULL;
	}
	printf("strings %zu\n", total);
	free(a);
	free(b);
	return 0;
}
