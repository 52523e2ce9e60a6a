/* Helpers shared by the dwarf/ unit tests (test_dw_*.c): build the test
 * programs of tests/programs/dwarf into a temporary directory, run
 * `addr2line -a -f -i -C -e FILE` over many addresses in one go, and compare
 * its answers with dw_image_lookup's, formatted the way addr2line prints. */
#ifndef DW_TESTLIB_H
#define DW_TESTLIB_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"

#define DWT_SRC "tests/programs/dwarf"

static char dwt_dir[256];

/* Runs a shell command built from @fmt; returns its exit status. */
__attribute__((format(printf, 1, 2))) static inline int dwt_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* Makes the temporary directory; returns its path. */
static inline const char *dwt_tmpdir(void)
{
	if (!dwt_dir[0]) {
		snprintf(dwt_dir, sizeof(dwt_dir), "/tmp/hindsight-dwtest-XXXXXX");
		if (!mkdtemp(dwt_dir))
			return NULL;
	}
	return dwt_dir;
}

static inline void dwt_cleanup(void)
{
	if (dwt_dir[0] && !getenv("DWT_KEEP"))
		dwt_sh("rm -rf '%s'", dwt_dir);
}

/* Path of @name in the temporary directory (static buffer rotation of 8). */
static inline const char *dwt_path(const char *name)
{
	static char buf[8][512];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dwt_tmpdir(), name);
	return buf[k];
}

/* Bounds of section @sec (file addresses) of @path; false when missing. */
static inline bool dwt_section(const char *path, const char *sec, uint64_t *lo, uint64_t *hi)
{
	struct dw_elf *e;
	size_t i;

	if (dw_elf_open(path, &e) != 0)
		return false;
	i = dw_elf_find(e, sec);
	if (i) {
		*lo = e->sections[i].addr;
		*hi = e->sections[i].addr + e->sections[i].size;
	}
	dw_elf_free(e);
	return i != 0;
}

static inline int dw_u64_cmp_test(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A location printed as addr2line -f -i prints it. */
static inline void dwt_format(int rc, const struct dw_location *loc, char *buf, size_t max)
{
	size_t n = 0;

	buf[0] = '\0';
	if (rc != 0) {
		snprintf(buf, max, "??\n??:0\n");
		return;
	}
	for (size_t i = 0; i < loc->nframes && n < max; i++) {
		const struct dw_frame *f = &loc->frames[i];
		char line[48];

		/* addr2line repeats frame 0's discriminator on every frame. */
		if (f->line && loc->frames[0].discriminator)
			snprintf(line, sizeof(line), "%u (discriminator %u)", f->line, loc->frames[0].discriminator);
		else if (f->line)
			snprintf(line, sizeof(line), "%u", f->line);
		else
			snprintf(line, sizeof(line), "?");
		n += (size_t)snprintf(buf + n, max - n, "%s\n%s:%s\n",
				      f->function && *f->function ? f->function : "??",
				      f->file ? f->file : "??", line);
	}
}

/* Runs addr2line over @addrs; returns one malloc'd answer per address (the
 * lines after the "0x..." line), or NULL. */
static inline char **dwt_addr2line(const char *path, const uint64_t *addrs, size_t n)
{
	const char *in = dwt_path("a2l.in"), *out = dwt_path("a2l.out");
	FILE *f = fopen(in, "w");
	char **res = calloc(n ? n : 1, sizeof(*res));
	char line[8192];
	size_t cur = (size_t)-1, len = 0, cap = 0;

	if (!f || !res)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%#lx\n", (unsigned long)addrs[i]);
	fclose(f);
	if (dwt_sh("addr2line -a -f -i -C -e '%s' < '%s' > '%s'", path, in, out) != 0)
		return NULL;
	f = fopen(out, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (line[0] == '0' && line[1] == 'x' && strtoull(line, &end, 16) == addrs[cur + 1] &&
		    *end == '\n') {
			cur++;
			len = cap = 0;
			continue;
		}
		if (cur >= n)
			continue;
		size_t l = strlen(line);
		if (len + l + 1 > cap) {
			cap = (len + l + 1) * 2;
			res[cur] = realloc(res[cur], cap);
		}
		memcpy(res[cur] + len, line, l + 1);
		len += l;
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!res[i])
			res[i] = strdup("");
	return res;
}

static inline void dwt_free_answers(char **a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		free(a[i]);
	free(a);
}

struct dwt_result {
	size_t total, same, shown;
};

/* Compares dw_image_lookup with addr2line on @addrs; prints up to @show
 * mismatches to stderr. */
static bool dwt_quirks = true;

static inline struct dwt_result dwt_compare(const char *path, const uint64_t *addrs, size_t n, size_t show)
{
	struct dwt_result r = { .total = n };
	struct dw_image *img;
	char **want = dwt_addr2line(path, addrs, n);
	static char got[65536];

	if (!want || dw_image_open(path, &img) != 0) {
		fprintf(stderr, "dwt_compare: cannot run addr2line or open %s\n", path);
		dwt_free_answers(want, n);
		return r;
	}
	dw_image_set_addr2line_quirks(img, dwt_quirks);
	for (size_t i = 0; i < n; i++) {
		struct dw_location loc;
		int rc = dw_image_lookup(img, addrs[i], &loc);

		dwt_format(rc, &loc, got, sizeof(got));
		if (strcmp(got, want[i]) == 0) {
			r.same++;
		} else if (r.shown < show) {
			r.shown++;
			fprintf(stderr, "%s %#lx:\n--- addr2line\n%s--- dw_image_lookup\n%s", path,
				(unsigned long)addrs[i], want[i], got);
		}
	}
	dw_image_free(img);
	dwt_free_answers(want, n);
	return r;
}

/* Every address of section @sec of @path, compared; prints a summary. */
static inline struct dwt_result dwt_compare_section(const char *path, const char *sec, size_t show)
{
	uint64_t lo = 0, hi = 0;
	struct dwt_result r = { 0 };

	if (!dwt_section(path, sec, &lo, &hi) || hi <= lo)
		return r;
	uint64_t *a = malloc((hi - lo) * sizeof(*a));
	for (uint64_t x = lo; x < hi; x++)
		a[x - lo] = x;
	r = dwt_compare(path, a, hi - lo, show);
	free(a);
	fprintf(stderr, "%s %s: %zu/%zu addresses agree with addr2line (%.3f%%)\n", path, sec, r.same,
		r.total, r.total ? 100.0 * (double)r.same / (double)r.total : 0.0);
	return r;
}

#endif
