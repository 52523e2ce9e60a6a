/* tests/programs/inputs.c: a program whose run is never the same twice:
 * the time, the TSC, getrandom, /dev/urandom, its pid; and, with a file
 * argument, the file's first line (read, or with "map" mapped; "remap"
 * maps it and then replaces the file by another, written beside it and
 * renamed over it, as git replaces its index). It keeps
 * each value in a global and prints them all; the exit status is drawn
 * too. For t_record_light: a rebuild must give back what the run got. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

long g_nsec;
unsigned long long g_tsc;
unsigned g_rand, g_urand;
int g_pid;
char g_line[64];

int main(int argc, char **argv)
{
	struct timespec ts;
	int fd;

	clock_gettime(CLOCK_REALTIME, &ts);
	g_nsec = ts.tv_nsec;
	g_tsc = __rdtsc();
	if (getrandom(&g_rand, sizeof(g_rand), 0) != sizeof(g_rand))
		return 100;
	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, &g_urand, sizeof(g_urand)) != sizeof(g_urand))
		return 101;
	close(fd);
	g_pid = getpid();
	if (argc > 2 && (!strcmp(argv[1], "map") || !strcmp(argv[1], "remap"))) {
		const char *p;

		fd = open(argv[2], O_RDONLY);
		p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return 102;
		close(fd);
		memcpy(g_line, p, strcspn(p, "\n") < sizeof(g_line) - 1 ? strcspn(p, "\n") : 0);
		if (!strcmp(argv[1], "remap")) {
			char tmp[4096];

			snprintf(tmp, sizeof(tmp), "%s.new", argv[2]);
			fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, "replaced\n", 9) != 9 || close(fd) != 0 ||
			    rename(tmp, argv[2]) != 0)
				return 104;
		}
	} else if (argc > 2 && !strcmp(argv[1], "read")) {
		FILE *f = fopen(argv[2], "r");

		if (!f || !fgets(g_line, sizeof(g_line), f))
			return 103;
		g_line[strcspn(g_line, "\n")] = 0;
		fclose(f);
	}
	printf("%ld %llu %u %u %d [%s]\n", g_nsec, g_tsc, g_rand, g_urand, g_pid, g_line);
	return (int)(g_rand % 7);
}
