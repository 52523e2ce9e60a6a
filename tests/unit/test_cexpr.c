/*
 * tests/unit/test_cexpr.c: replay/frontend/cexpr (C expressions, GDB's printing)
 * against GDB itself.
 *
 * tests/unit/cexpr_prog.c is compiled (gcc -g -O0 -no-pie) at test time;
 * this file describes its declarations by hand as dw_type graphs, reads
 * its initialized memory from the ELF file (libelf: every allocated
 * section, .bss as zeros) and its symbols' addresses and sizes from
 * `nm -S`. The same commands (print, output, ptype, whatis) then go to
 * `gdb -batch` on the program's file (GDB reads globals from the file
 * without running it) and to cexpr, and every answer must be the same,
 * byte for byte, errors included. What GDB cannot show without a process
 * (registers) or what a recording does differently (assignment) is
 * checked against strings captured from GDB 13.1 by hand, as said there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/frontend/cexpr.h"

/* ---- the program's types, by hand ---- */

#define BASE(var, nm, sz, e) \
	static const struct dw_type var = { .kind = DW_TYPE_BASE, .name = nm, .size = sz, .enc = e }
BASE(ty_int, "int", 4, DW_ENC_SIGNED);
BASE(ty_uint, "unsigned int", 4, DW_ENC_UNSIGNED);
BASE(ty_char, "char", 1, DW_ENC_SIGNED_CHAR);
BASE(ty_uchar, "unsigned char", 1, DW_ENC_UNSIGNED_CHAR);
/* As gcc names them in DWARF; GDB prints "short", "long", "unsigned long". */
BASE(ty_short, "short int", 2, DW_ENC_SIGNED);
BASE(ty_long, "long int", 8, DW_ENC_SIGNED);
BASE(ty_ulong, "long unsigned int", 8, DW_ENC_UNSIGNED);
BASE(ty_bool, "_Bool", 1, DW_ENC_BOOL);
BASE(ty_float, "float", 4, DW_ENC_FLOAT);
BASE(ty_double, "double", 8, DW_ENC_FLOAT);
BASE(ty_ldouble, "long double", 16, DW_ENC_FLOAT);

#define PTR(var, to) static const struct dw_type var = { .kind = DW_TYPE_POINTER, .size = 8, \
							  .target = to }
#define ARR(var, el, n) static const struct dw_type var = { .kind = DW_TYPE_ARRAY, .target = el, \
							     .count = n, .count_known = true }

static const struct dw_type ty_node;
PTR(ty_node_p, &ty_node);
static const struct dw_member node_m[] = { { "value", &ty_int, 0, 0, 0 },
					   { "next", &ty_node_p, 8, 0, 0 } };
static const struct dw_type ty_node = { .kind = DW_TYPE_STRUCT, .name = "node", .size = 16,
					.members = node_m, .nmembers = 2 };
static const struct dw_type ty_node_t = { .kind = DW_TYPE_TYPEDEF, .name = "node_t",
					  .target = &ty_node };
PTR(ty_node_t_p, &ty_node_t);

static const struct dw_enumerator color_e[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 2 } };
static const struct dw_type ty_color = { .kind = DW_TYPE_ENUM, .name = "color", .size = 4,
					 .enc = DW_ENC_UNSIGNED, .enumerators = color_e,
					 .nenumerators = 3 };
static const struct dw_enumerator flags_e[] = { { "F_A", 1 }, { "F_B", 2 }, { "F_C", 4 } };
static const struct dw_type ty_flags = { .kind = DW_TYPE_ENUM, .name = "flags", .size = 4,
					 .enc = DW_ENC_UNSIGNED, .enumerators = flags_e,
					 .nenumerators = 3 };
static const struct dw_enumerator sign_e[] = { { "NEG", -1 }, { "ZERO", 0 }, { "POS", 1 } };
static const struct dw_type ty_sign = { .kind = DW_TYPE_ENUM, .name = "sign", .size = 4,
					.enc = DW_ENC_SIGNED, .enumerators = sign_e,
					.nenumerators = 3 };

static const struct dw_member bits_m[] = {
	{ "flag", &ty_uint, 0, 1, 0 }, { "mode", &ty_uint, 0, 3, 1 },
	{ "neg", &ty_int, 0, 4, 4 }, { "c", &ty_uchar, 1, 0, 0 },
};
static const struct dw_type ty_bits = { .kind = DW_TYPE_STRUCT, .name = "bits", .size = 4,
					.members = bits_m, .nmembers = 4 };

static const struct dw_member anon_m[] = { { "b", &ty_int, 0, 0, 0 }, { "c", &ty_int, 4, 0, 0 } };
static const struct dw_type ty_anon = { .kind = DW_TYPE_STRUCT, .size = 8, .members = anon_m,
					.nmembers = 2 };
static const struct dw_member u_m[] = { { "i", &ty_int, 0, 0, 0 }, { "f", &ty_float, 0, 0, 0 } };
static const struct dw_type ty_u = { .kind = DW_TYPE_UNION, .size = 4, .members = u_m,
				     .nmembers = 2 };
ARR(ty_char16, &ty_char, 16);
static const struct dw_type ty_cchar = { .kind = DW_TYPE_CONST, .target = &ty_char };
PTR(ty_ccharp, &ty_cchar);
static const struct dw_type *const square_params[] = { &ty_int };
static const struct dw_type ty_fn_int = { .kind = DW_TYPE_FUNCTION, .target = &ty_int,
					  .params = square_params, .nparams = 1,
					  .prototyped = true };
static const struct dw_type ty_fn_void = { .kind = DW_TYPE_FUNCTION, .target = &ty_int,
					   .prototyped = true };
PTR(ty_fnp, &ty_fn_int);
static const struct dw_member outer_m[] = {
	{ "a", &ty_int, 0, 0, 0 }, { NULL, &ty_anon, 4, 0, 0 }, { "u", &ty_u, 12, 0, 0 },
	{ "name", &ty_char16, 16, 0, 0 }, { "s", &ty_ccharp, 32, 0, 0 },
	{ "fn", &ty_fnp, 40, 0, 0 }, { "d", &ty_double, 48, 0, 0 },
};
static const struct dw_type ty_outer = { .kind = DW_TYPE_STRUCT, .name = "outer", .size = 56,
					 .members = outer_m, .nmembers = 7 };
static const struct dw_member pt_m[] = { { "x", &ty_short, 0, 0, 0 }, { "y", &ty_short, 2, 0, 0 } };
static const struct dw_type ty_pt = { .kind = DW_TYPE_STRUCT, .name = "pt", .size = 4,
				      .members = pt_m, .nmembers = 2 };

ARR(ty_int5, &ty_int, 5);
ARR(ty_int16, &ty_int, 16);
ARR(ty_int3, &ty_int, 3);
ARR(ty_int2x3, &ty_int3, 2);
ARR(ty_char4, &ty_char, 4);
ARR(ty_char6, &ty_char, 6);
ARR(ty_char8, &ty_char, 8);
ARR(ty_char13, &ty_char, 13);
ARR(ty_char300, &ty_char, 300);
ARR(ty_nodes, &ty_node, 12);
ARR(ty_int300, &ty_int, 300);
ARR(ty_pts, &ty_pt, 3);
PTR(ty_voidp, NULL);
PTR(ty_intp, &ty_int);
PTR(ty_int3p, &ty_int3);
PTR(ty_charp, &ty_char);
PTR(ty_ucharp, &ty_uchar);
ARR(ty_strs, &ty_charp, 2);
static const struct dw_type ty_cstr = { .kind = DW_TYPE_CONST, .target = &ty_ccharp };

static const struct dw_type ty_uint8 = { .kind = DW_TYPE_TYPEDEF, .name = "uint8_t",
					 .target = &ty_uchar };
static const struct dw_type ty_string = { .kind = DW_TYPE_TYPEDEF, .name = "string_t",
					  .target = &ty_charp };
static const struct dw_type ty_tail = { .kind = DW_TYPE_ARRAY, .target = &ty_char };
static const struct dw_member flex_m[] = { { "n", &ty_int, 0, 0, 0 },
					   { "tail", &ty_tail, 4, 0, 0 } };
static const struct dw_type ty_flex = { .kind = DW_TYPE_STRUCT, .name = "flex", .size = 4,
					.members = flex_m, .nmembers = 2 };
static const struct dw_type ty_empty = { .kind = DW_TYPE_STRUCT, .name = "empty" };
ARR(ty_int12, &ty_int, 12);
ARR(ty_z2, &ty_int12, 12);
ARR(ty_char30, &ty_char, 30);
PTR(ty_charpp, &ty_charp);
ARR(ty_fns, &ty_fnp, 2);
ARR(ty_fa, &ty_float, 3);
PTR(ty_uint8p, &ty_uint8);
ARR(ty_u8arr, &ty_uint8, 4);
ARR(ty_bools, &ty_bool, 3);
static const struct dw_type ty_vint = { .kind = DW_TYPE_VOLATILE, .target = &ty_int };
static const struct dw_type ty_cint = { .kind = DW_TYPE_CONST, .target = &ty_int };
ARR(ty_ci, &ty_cint, 2);
ARR(ty_lda, &ty_ldouble, 2);
ARR(ty_seq, &ty_int, 250);
static const struct dw_member foo_m[] = { { "x", &ty_int, 0, 0, 0 } };
static const struct dw_type ty_foo_s = { .kind = DW_TYPE_STRUCT, .size = 4, .members = foo_m,
					 .nmembers = 1 };
static const struct dw_type ty_foo = { .kind = DW_TYPE_TYPEDEF, .name = "foo_t",
				       .target = &ty_foo_s };
PTR(ty_foop, &ty_foo);
static const struct dw_type ty_vtail = { .kind = DW_TYPE_ARRAY, .target = &ty_int };
static const struct dw_member iflex_m[] = { { "n", &ty_int, 0, 0, 0 },
					    { "v", &ty_vtail, 4, 0, 0 } };
static const struct dw_type ty_iflex = { .kind = DW_TYPE_STRUCT, .name = "iflex", .size = 4,
					 .members = iflex_m, .nmembers = 2 };

static const struct dw_member item_m[] = { { "name", &ty_ccharp, 0, 0, 0 },
					   { "price", &ty_long, 8, 0, 0 } };
static const struct dw_type ty_item = { .kind = DW_TYPE_STRUCT, .name = "item", .size = 16,
					.members = item_m, .nmembers = 2 };
PTR(ty_itemp, &ty_item);
ARR(ty_items, &ty_item, 4);
ARR(ty_long4, &ty_long, 4);
static const struct dw_member cart_m[] = { { "subtotal", &ty_long4, 0, 0, 0 },
					   { "cheapest", &ty_itemp, 32, 0, 0 } };
static const struct dw_type ty_cart = { .kind = DW_TYPE_STRUCT, .name = "cart", .size = 40,
					.members = cart_m, .nmembers = 2 };
PTR(ty_cartp, &ty_cart);

static const struct { const char *name; const struct dw_type *type; } vars[] = {
	{ "items", &ty_items }, { "cart", &ty_cart }, { "cartp", &ty_cartp },
	{ "fx", &ty_flex }, { "emp", &ty_empty }, { "z2", &ty_z2 }, { "mid", &ty_char30 },
	{ "hi", &ty_char4 }, { "argvp", &ty_charpp }, { "fns", &ty_fns }, { "fa", &ty_fa },
	{ "sp", &ty_string }, { "u8p", &ty_uint8p }, { "u8arr", &ty_u8arr },
	{ "bools", &ty_bools }, { "vi", &ty_vint }, { "ci", &ty_ci }, { "lda", &ty_lda },
	{ "seq", &ty_seq }, { "fv", &ty_foo }, { "fvp", &ty_foop }, { "lstr", &ty_ccharp },
	{ "l200", &ty_ccharp }, { "nonul", &ty_char4 }, { "nnp", &ty_charp },
	{ "ifx", &ty_iflex },
	{ "n3", &ty_node }, { "n2", &ty_node }, { "list", &ty_node }, { "head", &ty_node_t_p },
	{ "arr", &ty_int5 }, { "zeros", &ty_int16 }, { "mat", &ty_int2x3 }, { "buf", &ty_char16 },
	{ "abc", &ty_char4 }, { "abc6", &ty_char6 }, { "str", &ty_ccharp }, { "c", &ty_char },
	{ "c0", &ty_char }, { "cm", &ty_char }, { "uc", &ty_uchar }, { "sh", &ty_short },
	{ "lg", &ty_long }, { "ul", &ty_ulong }, { "yes", &ty_bool }, { "fl", &ty_float },
	{ "dbl", &ty_double }, { "ld", &ty_ldouble }, { "col", &ty_color }, { "col7", &ty_color },
	{ "fl3", &ty_flags }, { "fl9", &ty_flags }, { "fl0", &ty_flags }, { "sg", &ty_sign },
	{ "bt", &ty_bits }, { "out", &ty_outer }, { "fp", &ty_fnp }, { "vp", &ty_voidp },
	{ "ip", &ty_intp }, { "pa", &ty_int3p }, { "cp", &ty_charp }, { "nodes", &ty_nodes },
	{ "big", &ty_int300 }, { "esc", &ty_char8 }, { "longs", &ty_char300 },
	{ "r11", &ty_int12 }, { "s11", &ty_char13 }, { "pts", &ty_pts }, { "cstr", &ty_cstr },
	{ "ucp", &ty_ucharp }, { "strs", &ty_strs }, { "dz", &ty_double }, { "bad", &ty_charp },
	{ "square", &ty_fn_int }, { "main", &ty_fn_void },
};

static const struct { const char *name; const struct dw_type *type; } typenames[] = {
	{ "struct node", &ty_node }, { "node_t", &ty_node_t }, { "enum color", &ty_color },
	{ "enum flags", &ty_flags }, { "enum sign", &ty_sign }, { "struct bits", &ty_bits },
	{ "struct outer", &ty_outer }, { "struct pt", &ty_pt }, { "struct flex", &ty_flex },
	{ "struct empty", &ty_empty }, { "uint8_t", &ty_uint8 }, { "string_t", &ty_string },
	{ "foo_t", &ty_foo }, { "struct item", &ty_item }, { "struct cart", &ty_cart },
};

static const struct dw_type *enums[] = { &ty_color, &ty_flags, &ty_sign };

/* ---- the program's memory and symbols ---- */

struct section {
	uint64_t addr, size;
	uint8_t *bytes;
};

struct sym {
	char name[64];
	uint64_t addr, size;
};

static struct fixture {
	char dir[64], exe[96];
	struct section sec[64];
	size_t nsec;
	struct sym syms[512];
	size_t nsyms;
	uint64_t unavailable_at;  /* a byte the fake recording does not know (0: none) */
	bool no_regs;
} fx;

static void load_sections(const char *exe)
{
	int fd = open(exe, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn)) && fx.nsec < 64) {
		GElf_Shdr sh;
		Elf_Data *d;
		struct section *s = &fx.sec[fx.nsec];

		gelf_getshdr(scn, &sh);
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_addr || !sh.sh_size)
			continue;
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->bytes = calloc(1, sh.sh_size);
		assert_non_null(s->bytes);
		d = sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (d && d->d_buf)
			memcpy(s->bytes, d->d_buf, d->d_size < sh.sh_size ? d->d_size : sh.sh_size);
		fx.nsec++;
	}
	elf_end(e);
	close(fd);
}

static void load_symbols(const char *exe)
{
	char cmd[256], line[512], type, name[256];
	uint64_t addr, size;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && fx.nsyms < 512) {
		struct sym *s = &fx.syms[fx.nsyms];

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &addr, &size, &type,
			   name) == 4)
			;
		else if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3)
			size = 0;
		else
			continue;
		if (!strchr("tTdDbBrR", type) || strlen(name) >= sizeof(s->name))
			continue;
		snprintf(s->name, sizeof(s->name), "%.63s", name);
		s->addr = addr;
		s->size = size;
		fx.nsyms++;
	}
	pclose(f);
}

static uint64_t sym_addr(const char *name)
{
	for (size_t i = 0; i < fx.nsyms; i++)
		if (!strcmp(fx.syms[i].name, name))
			return fx.syms[i].addr;
	return 0;
}

static int env_read(void *ctx, uint64_t addr, void *buf, size_t len, uint8_t *state)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++) {
		size_t k;

		for (k = 0; k < fx.nsec; k++)
			if (addr + i >= fx.sec[k].addr &&
			    addr + i < fx.sec[k].addr + fx.sec[k].size)
				break;
		if (k == fx.nsec)
			return -EIO;
		((uint8_t *)buf)[i] = fx.sec[k].bytes[addr + i - fx.sec[k].addr];
		if (fx.unavailable_at && addr + i == fx.unavailable_at)
			state[i] = CEXPR_BYTE_UNAVAILABLE;
	}
	return 0;
}

static int env_lookup(void *ctx, struct cexpr *cx, const char *name, struct cexpr_value **out,
		      char *err, size_t errsize)
{
	(void)ctx, (void)err, (void)errsize;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(vars[i].name, name)) {
			*out = cexpr_value_at(cx, vars[i].type, sym_addr(name));
			return 0;
		}
	for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++)
		for (size_t k = 0; k < enums[i]->nenumerators; k++)
			if (!strcmp(enums[i]->enumerators[k].name, name)) {
				int32_t v = (int32_t)enums[i]->enumerators[k].value;

				*out = cexpr_value_bytes(cx, enums[i], &v, NULL, NULL);
				return 0;
			}
	return -ENOENT;
}

static const struct dw_type *env_type(void *ctx, const char *name)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(typenames) / sizeof(typenames[0]); i++)
		if (!strcmp(typenames[i].name, name))
			return typenames[i].type;
	return NULL;
}

static int env_reg(void *ctx, const char *name, uint64_t *value, char *err, size_t errsize)
{
	static const struct { const char *name; uint64_t v; } regs[] = {
		{ "rax", 0x1122334455667788ull }, { "rbx", 0xffffffffffffff80ull },
		{ "rsp", 0x7ffe3000 }, { "rbp", 0x7ffe3010 }, { "eflags", 0x246 },
		{ "cs", 0x33 }, { "r8", 0x1ff },
	};

	(void)ctx;
	if (fx.no_regs) {
		snprintf(err, errsize, "No registers.");
		return -ENODATA;
	}
	if (!strcmp(name, "rip")) {
		*value = sym_addr("main") + 4;
		return 0;
	}
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i].name, name)) {
			*value = regs[i].v;
			return 0;
		}
	*value = 0;
	return 0;
}

/* GDB's <sym+off>: the symbol whose extent holds @addr. */
static int env_symbol(void *ctx, uint64_t addr, char *buf, size_t size)
{
	const struct sym *best = NULL;

	(void)ctx;
	for (size_t i = 0; i < fx.nsyms; i++) {
		const struct sym *s = &fx.syms[i];

		bool inside = addr < s->addr + s->size || (!s->size && addr == s->addr);

		if (s->addr <= addr && inside && (!best || s->addr > best->addr))
			best = s;
	}
	if (!best)
		return -ENOENT;
	if (addr == best->addr)
		snprintf(buf, size, "%s", best->name);
	else
		snprintf(buf, size, "%s+%" PRIu64, best->name, addr - best->addr);
	return 0;
}

static const struct cexpr_env env = {
	.lookup = env_lookup, .type_named = env_type, .read = env_read, .reg = env_reg,
	.symbol = env_symbol,
};

/* ---- running GDB and cexpr on the same commands ---- */

#include "cexpr_commands.h"

/* Quotes @s for a shell's single quotes into @out. */
static void shell_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; *s && n + 6 < size; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = 0;
}

/* GDB's answer to each command: a malloc'd block each, in @answers. */
static void run_gdb(const char *const *commands, char **answers, size_t n)
{
	size_t cap = 1 << 20, len = 0, got;
	char *cmd = malloc(cap), *all = malloc(cap), *q, *p;
	FILE *f;

	assert_non_null(cmd);
	assert_non_null(all);
	len = snprintf(cmd, cap, "LC_ALL=C gdb -batch -nx");
	for (size_t i = 0; i < n; i++) {
		size_t qsize = strlen(commands[i]) * 4 + 3;

		q = malloc(qsize);
		assert_non_null(q);
		shell_quote(q, qsize, commands[i]);
		len += snprintf(cmd + len, cap - len, " -ex %s -ex 'echo @@@\\n'", q);
		free(q);
	}
	snprintf(cmd + len, cap - len, " %s 2>&1", fx.exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	got = fread(all, 1, cap - 1, f);
	all[got] = 0;
	pclose(f);
	p = all;
	for (size_t i = 0; i < n; i++) {
		char *end = strstr(p, "@@@\n");

		assert_non_null(end);
		*end = 0;
		if (end > p && end[-1] == '\n')
			end[-1] = 0;
		answers[i] = strdup(p);
		p = end + 4;
	}
	free(cmd);
	free(all);
}

/* cexpr's answer to @command (malloc'd): the output or the error. */
static char *run_cexpr(struct cexpr *cx, const char *command)
{
	static const struct {
		const char *word;
		int (*fn)(struct cexpr *, const char *, char **);
	} cmds[] = {
		{ "print", cexpr_cmd_print }, { "output", cexpr_cmd_output },
		{ "ptype", cexpr_cmd_ptype }, { "whatis", cexpr_cmd_whatis },
	};
	char *out = NULL;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		size_t n = strlen(cmds[i].word);

		if (strncmp(command, cmds[i].word, n))
			continue;
		if (cmds[i].fn(cx, command + n, &out) < 0)
			return strdup(cexpr_error(cx));
		return out;
	}
	return strdup("?");
}

static int setup(void **state)
{
	char cmd[512];

	(void)state;
	memset(&fx, 0, sizeof(fx));
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/test_cexpr.XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(fx.exe, sizeof(fx.exe), "%s/prog", fx.dir);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -no-pie -o %s tests/unit/cexpr_prog.c", fx.exe);
	if (system(cmd) != 0)
		return -1;
	load_sections(fx.exe);
	load_symbols(fx.exe);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	for (size_t i = 0; i < fx.nsec; i++)
		free(fx.sec[i].bytes);
	snprintf(cmd, sizeof(cmd), "rm -f %s && rmdir %s", fx.exe, fx.dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Every command answers as GDB answers it. */
static void test_same_as_gdb(void **state)
{
	size_t n = sizeof(gdb_commands) / sizeof(gdb_commands[0]), bad = 0;
	char **gdb = calloc(n, sizeof(*gdb));
	struct cexpr *cx = cexpr_new(&env);

	(void)state;
	assert_non_null(gdb);
	assert_non_null(cx);
	run_gdb(gdb_commands, gdb, n);
	for (size_t i = 0; i < n; i++) {
		char *mine = run_cexpr(cx, gdb_commands[i]);

		assert_non_null(mine);
		if (strcmp(mine, gdb[i])) {
			printf("%s\n  gdb:    %s\n  cexpr:  %s\n", gdb_commands[i], gdb[i], mine);
			bad++;
		}
		free(mine);
		free(gdb[i]);
	}
	free(gdb);
	cexpr_free(cx);
	printf("%zu of %zu commands differ from GDB\n", bad, n);
	assert_int_equal(bad, 0);
}

/* Checks that @command answers @want. */
static void expect(struct cexpr *cx, const char *command, const char *want)
{
	char *got = run_cexpr(cx, command);

	assert_non_null(got);
	if (strcmp(got, want))
		printf("%s\n  want: %s\n  got:  %s\n", command, want, got);
	assert_string_equal(got, want);
	free(got);
}

/* Registers: GDB 13.1's answers with a live process at main+4 of a
 * program like this one (`gdb -batch -ex 'break main' -ex run -ex 'p
 * $eflags' ...`), the values here being the fake ones. */
static void test_registers(void **state)
{
	struct cexpr *cx = cexpr_new(&env);
	struct cexpr_value *v;
	char want[128], *s;

	(void)state;
	expect(cx, "print $eflags", "$1 = [ PF ZF IF ]");
	snprintf(want, sizeof(want), "$2 = (void (*)()) 0x%" PRIx64 " <main+4>",
		 sym_addr("main") + 4);
	expect(cx, "print $pc", want);
	expect(cx, "print $sp", "$3 = (void *) 0x7ffe3000");
	expect(cx, "print $fp", "$4 = (void *) 0x7ffe3010");
	expect(cx, "print $rax", "$5 = 1234605616436508552");
	expect(cx, "print $eax", "$6 = 1432778632");
	expect(cx, "print $ax", "$7 = 30600");
	expect(cx, "print $al", "$8 = -120");
	expect(cx, "print $ah", "$9 = 119");
	expect(cx, "print $bl", "$10 = -128");
	expect(cx, "print $r8d", "$11 = 511");
	expect(cx, "print $r8l", "$12 = -1");
	expect(cx, "print/x $eflags", "$13 = 0x246");
	expect(cx, "print $eflags + 1", "$14 = 583");
	expect(cx, "whatis $rax", "type = int64_t");
	expect(cx, "whatis $eax", "type = int32_t");
	expect(cx, "whatis $ax", "type = int16_t");
	expect(cx, "whatis $al", "type = int8_t");
	expect(cx, "whatis $pc", "type = void (*)()");
	expect(cx, "whatis $sp", "type = void *");
	expect(cx, "whatis $eflags", "type = i386_eflags");
	expect(cx, "whatis $cs", "type = int32_t");
	expect(cx, "print $cs", "$15 = 51");
	expect(cx, "print *$sp", "Attempt to dereference a generic pointer.");
	expect(cx, "print $sp + 8", "$16 = (void *) 0x7ffe3008");
	expect(cx, "print $foo", "$17 = void");
	assert_int_equal(cexpr_eval(cx, "&arr[2]", &v), 0);
	assert_int_equal(cexpr_set_convenience(cx, "$_", v), 0);
	assert_int_equal(cexpr_set_convenience(cx, "$rax", v), -EINVAL);
	cexpr_value_free(v);
	snprintf(want, sizeof(want), "$18 = (int *) 0x%" PRIx64 " <arr+8>", sym_addr("arr") + 8);
	expect(cx, "print $_", want);
	expect(cx, "print *$_", "$19 = 3");
	/* info locals and frame lines (GDB 13.1, `info locals` in a function
	 * with these locals): no (type *) before pointers. */
	assert_int_equal(cexpr_eval(cx, "head", &v), 0);
	s = cexpr_format_value_plain(cx, v, 0);
	snprintf(want, sizeof(want), "0x%" PRIx64 " <list>", sym_addr("list"));
	assert_string_equal(s, want);
	free(s);
	cexpr_value_free(v);
	assert_int_equal(cexpr_eval(cx, "str", &v), 0);
	s = cexpr_format_value_plain(cx, v, 0);
	assert_non_null(strstr(s, " \"hello\""));
	assert_true(s[0] == '0');
	free(s);
	s = cexpr_format_frame_arg(cx, v);
	assert_true(s[0] == '0');
	free(s);
	cexpr_value_free(v);
	/* f (n=0x404010 <g>, s=0x402004 "str", v=..., k=2): GDB 13.1's frame
	 * line for a struct argument. */
	assert_int_equal(cexpr_eval(cx, "list", &v), 0);
	s = cexpr_format_frame_arg(cx, v);
	assert_string_equal(s, "...");
	free(s);
	cexpr_value_free(v);
	fx.no_regs = true;
	expect(cx, "print $pc", "No registers.");
	fx.no_regs = false;
	cexpr_free(cx);
}

/* What a recording answers differently from a live GDB: it cannot be
 * changed, and it may not know bytes. GDB's words for unknown bytes
 * (<unavailable>, "value is not available") as its tfile target says. */
static void check_address(struct cexpr *cx, const char *text, uint64_t want)
{
	struct cexpr_value *v;
	uint64_t addr = 0;

	assert_int_equal(cexpr_eval(cx, text, &v), 0);
	assert_int_equal(cexpr_value_address(v, &addr), 0);
	assert_int_equal(addr, want);
	cexpr_value_free(v);
}

static void lazy_prints(struct cexpr *cx, uint64_t addr, const char *want)
{
	struct cexpr_value *v = cexpr_value_at(cx, &ty_node, addr);
	char *s;

	assert_non_null(v);
	s = cexpr_format_value_plain(cx, v, 0);
	assert_string_equal(s, want);
	free(s);
}

static void test_recording(void **state)
{
	struct cexpr *cx = cexpr_new(&env);
	struct cexpr_value *v;
	uint64_t addr, len;
	char want[128];

	(void)state;
	expect(cx, "print arr[1] = 3", "A recording cannot be changed: assignment, ++ and -- are "
	       "not possible in hindsight replay.");
	expect(cx, "print arr[1]++", "A recording cannot be changed: assignment, ++ and -- are "
	       "not possible in hindsight replay.");
	expect(cx, "print 1 = 2", "Left operand of assignment is not an lvalue.");
	expect(cx, "print square(2)", "You can't do that without a process to debug.");
	fx.unavailable_at = sym_addr("arr") + 4;
	expect(cx, "print arr", "$1 = {1, <unavailable>, 3, 4, 5}");
	expect(cx, "print arr[1]", "$2 = <unavailable>");
	expect(cx, "print arr[1] + 1", "value is not available");
	fx.unavailable_at = sym_addr("list") + 9;
	snprintf(want, sizeof(want), "$3 = {value = 1, next = <unavailable>}");
	expect(cx, "print list", want);
	fx.unavailable_at = 0;
	assert_int_equal(cexpr_eval(cx, "(long)str", &v), 0);
	fx.unavailable_at = *(int64_t *)v->bytes + 2;
	cexpr_value_free(v);
	snprintf(want, sizeof(want), "$4 = 0x%" PRIx64 " \"he\"<error: value is not available>",
		 fx.unavailable_at - 2);
	expect(cx, "print str", want);
	fx.unavailable_at = 0;
	assert_int_equal(cexpr_lvalue(cx, "list.next", &addr, &len), 0);
	assert_int_equal(addr, sym_addr("list") + 8);
	assert_int_equal(len, 8);
	assert_int_equal(cexpr_lvalue(cx, "arr[1]@3", &addr, &len), 0);
	assert_int_equal(addr, sym_addr("arr") + 4);
	assert_int_equal(len, 12);
	assert_int_equal(cexpr_lvalue(cx, "*head", &addr, &len), 0);
	assert_int_equal(addr, sym_addr("list"));
	assert_int_equal(len, 16);
	assert_int_equal(cexpr_lvalue(cx, "bt.mode", &addr, &len), 0);
	assert_int_equal(len, 1);
	assert_true(cexpr_lvalue(cx, "1 + 2", &addr, &len) < 0);
	assert_string_equal(cexpr_error(cx), "Not an lvalue in memory.");
	check_address(cx, "arr", sym_addr("arr"));
	check_address(cx, "&arr[2]", sym_addr("arr") + 8);
	check_address(cx, "square", sym_addr("square"));
	check_address(cx, "head", sym_addr("list"));
	check_address(cx, "0x1234", 0x1234);
	assert_int_equal(cexpr_eval(cx, "list", &v), 0);
	assert_int_equal(cexpr_value_address(v, &addr), -EINVAL);
	cexpr_value_free(v);
	/* Values the environment made and nobody read yet print too. */
	lazy_prints(cx, sym_addr("n3"), "{value = 3, next = 0x0}");
	lazy_prints(cx, 0x10, "<error: Cannot access memory at address 0x10>");
	cexpr_free(cx);
}

/* An optimized-out variable, whole and per member. */
static int lookup_gone(void *ctx, struct cexpr *cx, const char *name, struct cexpr_value **out,
		       char *err, size_t errsize)
{
	if (!strcmp(name, "gone")) {
		*out = cexpr_value_missing(cx, &ty_node, CEXPR_BYTE_OPTIMIZED_OUT);
		return 0;
	}
	if (!strcmp(name, "rv")) {
		int32_t x = 42;

		*out = cexpr_value_bytes(cx, &ty_int, &x, NULL, "rbx");
		return 0;
	}
	if (!strcmp(name, "half")) {
		uint8_t bytes[16] = { 5 }, st[16] = { 0 };

		memset(st + 8, CEXPR_BYTE_OPTIMIZED_OUT, 8);
		*out = cexpr_value_bytes(cx, &ty_node, bytes, st, NULL);
		return 0;
	}
	return env_lookup(ctx, cx, name, out, err, errsize);
}

static void test_optimized_out(void **state)
{
	struct cexpr_env e = env;
	struct cexpr *cx;

	(void)state;
	e.lookup = lookup_gone;
	cx = cexpr_new(&e);
	expect(cx, "print gone", "$1 = <optimized out>");
	expect(cx, "print half", "$2 = {value = 5, next = <optimized out>}");
	expect(cx, "print half.value", "$3 = 5");
	expect(cx, "print gone.value + 1", "value has been optimized out");
	/* GDB 13.1 on a register variable of a -O2 program (`p &i`). */
	expect(cx, "print rv", "$4 = 42");
	expect(cx, "print &rv",
	       "Address requested for identifier \"rv\" which is in register $rbx");
	expect(cx, "print &gone", "Can't take address of \"gone\" which isn't an lvalue.");
	cexpr_free(cx);
}

/* Reading past the end of the program's memory: GDB names the first
 * byte it cannot read. */
static void test_memory_end(void **state)
{
	char cmds[3][160], *gdb[3];
	const char *list[3] = { cmds[0], cmds[1], cmds[2] };
	const char *last = NULL;
	uint64_t end = 0;
	struct cexpr *cx = cexpr_new(&env);

	(void)state;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		uint64_t e = sym_addr(vars[i].name) + dw_type_size(vars[i].type);

		if (vars[i].type->kind != DW_TYPE_FUNCTION && e > end) {
			end = e;
			last = vars[i].name;
		}
	}
	assert_non_null(last);
	snprintf(cmds[0], sizeof(cmds[0]), "print *(struct node *)((char *)&%s + sizeof(%s) - 8)",
		 last, last);
	snprintf(cmds[1], sizeof(cmds[1]), "print (char *)((char *)&%s + sizeof(%s) - 4)", last,
		 last);
	snprintf(cmds[2], sizeof(cmds[2]),
		 "print/x *(char (*)[40])((char *)&%s + sizeof(%s) - 8)", last, last);
	run_gdb(list, gdb, 3);
	for (size_t i = 0; i < 3; i++) {
		char *mine = run_cexpr(cx, list[i]);

		printf("%s: %s\n", list[i], mine);
		if (strcmp(mine, gdb[i]))
			printf("%s\n  gdb:   %s\n  cexpr: %s\n", list[i], gdb[i], mine);
		assert_string_equal(mine, gdb[i]);
		free(mine);
		free(gdb[i]);
	}
	cexpr_free(cx);
}

/* Malformed and extreme input: GDB's answers (compared with gdb -batch
 * where they fit on a command line), never a crash. */
static void test_malformed(void **state)
{
	static char deep[2100], deep_minus[5100], too_deep[40100];
	const char *const cmds[] = { deep, deep_minus, "print 99999999999999999999999",
				     "print ((1)", "print 1)", "print $$$", "print 1 ? 2",
				     "print sizeof", "print (int", "print (struct node",
				     "print arr[", "print a.", "print ->",
				     "print 1 @ 2 @ 3", "print \"abc", "print 'a",
				     "whatis (char (*(*)())[3])0", "ptype int[2][", "print $rax" };
	size_t n = sizeof(cmds) / sizeof(cmds[0]);
	char *gdb[sizeof(cmds) / sizeof(cmds[0])];
	struct cexpr *cx = cexpr_new(&env);
	char *mine;

	(void)state;
	snprintf(deep, sizeof(deep), "print %s1%s", "", "");
	memset(deep + 6, '(', 1000);
	deep[1006] = '1';
	memset(deep + 1007, ')', 1000);
	deep[2007] = 0;
	memcpy(deep_minus, "print ", 6);
	memset(deep_minus + 6, '-', 5000);
	memcpy(deep_minus + 5006, "1", 2);
	run_gdb(cmds, gdb, n);
	fx.no_regs = true;  /* GDB on a file: no registers */
	for (size_t i = 0; i < n; i++) {
		mine = run_cexpr(cx, cmds[i]);
		if (strcmp(mine, gdb[i]))
			printf("%.60s\n  gdb:   %.200s\n  cexpr: %.200s\n", cmds[i], gdb[i], mine);
		assert_string_equal(mine, gdb[i]);
		free(mine);
		free(gdb[i]);
	}
	fx.no_regs = false;
	memcpy(too_deep, "print ", 6);
	memset(too_deep + 6, '(', 20000);
	memset(too_deep + 20006, ')', 20000);
	too_deep[40006] = 0;
	mine = run_cexpr(cx, too_deep);
	assert_memory_equal(mine, "A memory exhausted in expression, near `(((", 43);
	free(mine);
	cexpr_free(cx);
}

/* Random token soup: every answer is a value or a message. */
static void test_random_input(void **state)
{
	static const char *const toks[] = {
		"(", ")", "[", "]", "*", "&", "-", "+", "!", "~", "sizeof", "int", "char",
		"struct node", "node_t", "unsigned", "long", "const", "1", "0x10", "'a'", "\"s\"",
		"1.5", "arr", "list", "head", "->", ".", "next", "value", "@", "?", ":", ",",
		"=", "++", "/", "%", "<<", "==", "&&", "||", "$", "$1", "$pc", "$sp", "buf", "str",
		"square", "(", "0", "999999999999999999999", "fl", "mat", "[1]", "'\\x41'", "{",
	};
	int (*const fns[])(struct cexpr *, const char *, char **) = {
		cexpr_cmd_print, cexpr_cmd_ptype, cexpr_cmd_whatis, cexpr_cmd_output,
	};
	struct cexpr *cx = cexpr_new(&env);
	unsigned seed = 16;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		char text[512] = "";
		size_t len = 0;
		int ntok = rand_r(&seed) % 12 + 1;
		char *out = NULL;
		int rc;

		for (int k = 0; k < ntok; k++)
			len += snprintf(text + len, sizeof(text) - len, "%s ",
					toks[rand_r(&seed) % (sizeof(toks) / sizeof(toks[0]))]);
		rc = fns[round % 4](cx, text, &out);
		if (rc < 0)
			assert_true(cexpr_error(cx)[0] != 0);
		else
			assert_non_null(out);
		free(out);
	}
	cexpr_free(cx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_gdb),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_recording),
		cmocka_unit_test(test_optimized_out),
		cmocka_unit_test(test_memory_end),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_random_input),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
