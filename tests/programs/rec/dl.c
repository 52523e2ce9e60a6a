/* tests/programs/rec/dl.c: dlopen a library (argv[1]), call into it,
 * dlclose it, and open it again. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	long total = 0;

	for (int round = 0; round < 2 && argc > 1; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		long (*f)(long);

		if (!h) {
			fprintf(stderr, "dl: %s\n", dlerror());
			return 1;
		}
		f = (long (*)(long))dlsym(h, "dl_work");
		total += f ? f(100 + round) : -1;
		dlclose(h);
	}
	printf("dl %ld\n", total);
	return 0;
}
