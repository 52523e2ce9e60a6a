/* test_dw_symgap: code no sized symbol covers has no name, as GDB says
 * (`info symbol` answers "No symbol matches", `bt` shows "??"): a sized
 * symbol does not name the addresses past its end. dw_image_lookup (what bt,
 * history, calls, timeline and run name frames with) and dw_image_msymbol
 * (<sym+off>) are compared with GDB's `info symbol` on the same file, read
 * natively by GDB: every byte of a function written in top-level asm whose
 * .size covers its first byte only, and addresses in the gaps of stripped
 * system programs (/bin/bash, /usr/bin/python3: their static functions have
 * no symbol), with addresses inside their symbols for contrast. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>

#include "dw_testlib.h"

#define MAXADDR 256

struct probe {
	uint64_t addr;
	char gdb[160];  /* GDB's symbol name, "" for none */
	uint64_t off;   /* GDB's offset */
};

static struct probe probes[MAXADDR];
static size_t nprobes;

static void probe_add(uint64_t addr)
{
	if (nprobes < MAXADDR)
		probes[nprobes++] = (struct probe){ .addr = addr };
}

/* Fills probes[].gdb from one `gdb -batch` over @prog. Returns the number
 * of answers read. */
static size_t gdb_info_symbol(const char *prog)
{
	char script[512], cmd[1024], line[512];
	size_t k = 0;
	FILE *f;

	snprintf(script, sizeof(script), "%s/info-symbol.gdb", dwt_dir);
	f = fopen(script, "w");
	if (!f)
		return 0;
	for (size_t i = 0; i < nprobes; i++)
		fprintf(f, "info symbol 0x%" PRIx64 "\n", probes[i].addr);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "gdb -batch -nx -iex 'set debuginfod enabled off' -x '%s' '%s' 2>&1 </dev/null", script,
		 prog);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && k < nprobes) {
		char name[160];
		uint64_t off = 0;

		if (!strncmp(line, "No symbol matches", 17)) {
			probes[k].gdb[0] = 0;
		} else if (sscanf(line, "%159s + %" SCNu64 " in section", name, &off) == 2 ||
			   (sscanf(line, "%159s in section", name) == 1 && strstr(line, " in section "))) {
			/* A dynamic symbol's version is not part of its name. */
			name[strcspn(name, "@")] = 0;
			snprintf(probes[k].gdb, sizeof(probes[k].gdb), "%s", name);
			probes[k].off = off;
		} else {
			continue;
		}
		k++;
	}
	pclose(f);
	return k;
}

/* Checks every probe of @prog against GDB; returns how many had no name. */
static size_t compare_with_gdb(const char *prog)
{
	struct dw_image *img;
	size_t unnamed = 0;

	assert_int_equal(gdb_info_symbol(prog), nprobes);
	assert_int_equal(dw_image_open(prog, &img), 0);
	for (size_t i = 0; i < nprobes; i++) {
		const struct probe *p = &probes[i];
		struct dw_location loc;
		const char *name = NULL;
		char ours[160] = "";
		uint64_t off = 0;
		int rc = dw_image_msymbol(img, p->addr, &name, &off);

		if (rc == 0)
			snprintf(ours, sizeof(ours), "%s", name);
		ours[strcspn(ours, "@")] = 0;
		if (strcmp(ours, p->gdb) || (rc == 0 && off != p->off))
			fail_msg("%s 0x%" PRIx64 ": GDB says '%s'+%" PRIu64 ", msymbol '%s'+%" PRIu64, prog,
				 p->addr, p->gdb, p->off, ours, off);
		/* The frame's function: the same symbol, or none. */
		ours[0] = 0;
		if (dw_image_lookup(img, p->addr, &loc) == 0 && loc.nframes)
			snprintf(ours, sizeof(ours), "%s", loc.frames[loc.nframes - 1].function);
		ours[strcspn(ours, "@")] = 0;
		if (strcmp(ours, p->gdb) || (ours[0] && p->addr - loc.function_start != p->off))
			fail_msg("%s 0x%" PRIx64 ": GDB says '%s'+%" PRIu64 ", lookup '%s'+%" PRIu64, prog,
				 p->addr, p->gdb, p->off, ours, p->addr - loc.function_start);
		unnamed += !p->gdb[0];
	}
	dw_image_free(img);
	return unnamed;
}

/* Reads `nm -S` of @prog (-D for the dynamic table): code symbols, sorted. */
static size_t nm_code(const char *prog, bool dynamic, uint64_t (*out)[2], size_t max)
{
	char cmd[1024], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S -n --defined-only %s '%s' 2>/dev/null", dynamic ? "-D" : "",
		 prog);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		uint64_t a, s;
		char t;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c", &a, &s, &t) == 3 && (t == 'T' || t == 't')) {
			out[n][0] = a;
			out[n][1] = s;
			n++;
		}
	}
	pclose(f);
	return n;
}

static void test_asm_function(void **state)
{
	const char *src = dwt_path("gap.c"), *prog = dwt_path("gap");
	uint64_t syms[64][2];
	size_t n;
	FILE *f;

	(void)state;
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("__asm__(\".text\\n.globl gapfn\\n.type gapfn, @function\\ngapfn:\\n\"\n"
	      "\"\tnop\\n.size gapfn, 1\\n\tpush %rbx\\n\tcall leaf\\n\tpop %rbx\\n\tret\\n\");\n"
	      "__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }\n"
	      "int gapfn(int);\n"
	      "int main(void) { return gapfn(4) == 13 ? 0 : 1; }\n",
	      f);
	fclose(f);
	assert_int_equal(dwt_sh("cc -O0 -o '%s' '%s'", prog, src), 0);
	n = nm_code(prog, false, syms, 64);
	nprobes = 0;
	for (size_t i = 0; i < n; i++)
		if (syms[i][1] == 1) /* gapfn: its byte, then the rest of its code */
			for (uint64_t a = syms[i][0]; a < syms[i][0] + 9; a++)
				probe_add(a);
	assert_int_equal(nprobes, 9);
	/* gapfn+0 only is gapfn's. */
	assert_int_equal(compare_with_gdb(prog), 8);
}

/* Up to 60 gaps of a stripped program: the first byte past a symbol, the
 * middle of the gap; and the middle of the symbol before. */
static void check_stripped(const char *prog)
{
	static uint64_t syms[20000][2];
	size_t n, gaps = 0;

	/* MiniDebugInfo (.gnu_debugdata, Fedora's) names static functions for
	 * GDB; dwarf/ does not read it. */
	if (access(prog, R_OK) != 0 ||
	    dwt_sh("readelf -S '%s' 2>/dev/null | grep -q gnu_debugdata", prog) == 0)
		return;
	n = nm_code(prog, true, syms, 20000);
	nprobes = 0;
	for (size_t i = 0; i + 1 < n && gaps < 60; i++) {
		uint64_t end = syms[i][0] + syms[i][1];

		if (!syms[i][1] || syms[i + 1][0] < end + 16 || (i * 7919) % 5) /* spread out */
			continue;
		probe_add(end);
		probe_add(end + (syms[i + 1][0] - end) / 2);
		probe_add(syms[i][0] + syms[i][1] / 2);
		gaps++;
	}
	if (!gaps)
		return;
	print_message("%s: %zu gaps\n", prog, gaps);
	/* With the program's debug info installed, GDB and we both name them. */
	compare_with_gdb(prog);
}

static void test_stripped_programs(void **state)
{
	(void)state;
	check_stripped("/bin/bash");
	check_stripped("/usr/bin/python3");
}

static int setup(void **state)
{
	(void)state;
	return dwt_tmpdir() ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dwt_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_asm_function),
		cmocka_unit_test(test_stripped_programs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
