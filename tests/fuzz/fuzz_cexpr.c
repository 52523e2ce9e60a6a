/*
 * tests/fuzz/fuzz_cexpr.c: libFuzzer target over replay/frontend/cexpr: the input,
 * made a string, goes to print, output, ptype and whatis over a small
 * world (a struct with a pointer to itself, an array, a char pointer, an
 * enum, registers, 4 KiB of memory of which some bytes are unknown), so
 * the lexer, parser, evaluator, and value and type printers all see it.
 * Any command may fail; none may crash, leak, hit undefined behaviour, or
 * fail without a message. Each answer must be NUL-terminated text.
 *
 * fuzz-build: replay/frontend/cexpr*.c
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "replay/frontend/cexpr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define BASE 0x1000

static uint8_t mem[4096];

static const struct dw_type t_int = { .kind = DW_TYPE_BASE, .name = "int", .size = 4,
				      .enc = DW_ENC_SIGNED };
static const struct dw_type t_char = { .kind = DW_TYPE_BASE, .name = "char", .size = 1,
				       .enc = DW_ENC_SIGNED_CHAR };
static const struct dw_type t_node;
static const struct dw_type t_nodep = { .kind = DW_TYPE_POINTER, .size = 8, .target = &t_node };
static const struct dw_type t_charp = { .kind = DW_TYPE_POINTER, .size = 8, .target = &t_char };
static const struct dw_member node_m[] = {
	{ "v", &t_int, 0, 0, 0 }, { "bits", &t_int, 4, 3, 2 }, { "next", &t_nodep, 8, 0, 0 },
	{ "name", &t_charp, 16, 0, 0 },
};
static const struct dw_type t_node = { .kind = DW_TYPE_STRUCT, .name = "node", .size = 24,
				       .members = node_m, .nmembers = 4 };
static const struct dw_type t_arr = { .kind = DW_TYPE_ARRAY, .target = &t_int, .count = 64,
				      .count_known = true };
static const struct dw_enumerator e_col[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 4 } };
static const struct dw_type t_col = { .kind = DW_TYPE_ENUM, .name = "col", .size = 4,
				      .enc = DW_ENC_UNSIGNED, .enumerators = e_col,
				      .nenumerators = 3 };
static const struct dw_type t_typedef = { .kind = DW_TYPE_TYPEDEF, .name = "node_t",
					  .target = &t_node };

static int lookup(void *ctx, struct cexpr *cx, const char *name, struct cexpr_value **out,
		  char *err, size_t errsize)
{
	(void)ctx, (void)err, (void)errsize;
	if (!strcmp(name, "n"))
		*out = cexpr_value_at(cx, &t_node, BASE);
	else if (!strcmp(name, "a"))
		*out = cexpr_value_at(cx, &t_arr, BASE + 64);
	else if (!strcmp(name, "c"))
		*out = cexpr_value_at(cx, &t_col, BASE + 512);
	else if (!strcmp(name, "gone"))
		*out = cexpr_value_missing(cx, &t_node, CEXPR_BYTE_OPTIMIZED_OUT);
	else
		return -ENOENT;
	return *out ? 0 : -ENOMEM;
}

static const struct dw_type *type_named(void *ctx, const char *name)
{
	(void)ctx;
	if (!strcmp(name, "struct node"))
		return &t_node;
	if (!strcmp(name, "node_t"))
		return &t_typedef;
	if (!strcmp(name, "enum col"))
		return &t_col;
	return NULL;
}

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len, uint8_t *state)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > sizeof(mem) || len > sizeof(mem) - (addr - BASE))
		return -EIO;
	memcpy(buf, mem + (addr - BASE), len);
	for (size_t i = 0; i < len; i++)
		if (((addr + i) & 0x3ff) == 0x3ff)
			state[i] = CEXPR_BYTE_UNAVAILABLE;
	return 0;
}

static int reg(void *ctx, const char *name, uint64_t *value, char *err, size_t errsize)
{
	(void)ctx, (void)err, (void)errsize;
	*value = strlen(name) * 0x1111 + BASE;
	return 0;
}

static int symbol(void *ctx, uint64_t addr, char *buf, size_t size)
{
	(void)ctx;
	if (addr < BASE || addr >= BASE + 64)
		return -ENOENT;
	snprintf(buf, size, "n+%u", (unsigned)(addr - BASE));
	return 0;
}

static const struct cexpr_env env = {
	.lookup = lookup, .type_named = type_named, .read = read_mem, .reg = reg,
	.symbol = symbol,
};

static void fill(void)
{
	uint64_t next = BASE, name = BASE + 1024;

	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 7 % 13 == 0 ? 0 : 'a' + i % 26);
	memcpy(mem + 8, &next, 8);
	memcpy(mem + 16, &name, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*const cmds[])(struct cexpr *, const char *, char **) = {
		cexpr_cmd_print, cexpr_cmd_output, cexpr_cmd_ptype, cexpr_cmd_whatis,
	};
	char *text = malloc(size + 1);
	struct cexpr *cx = cexpr_new(&env);

	fill();
	CHECK(text && cx);
	memcpy(text, data, size);
	text[size] = 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *out = NULL;
		int rc = cmds[i](cx, text, &out);

		if (rc < 0)
			CHECK(cexpr_error(cx)[0] != 0 || rc == -ENOMEM);
		else
			CHECK(out && strlen(out) < (1u << 24));
		free(out);
	}
	cexpr_free(cx);
	free(text);
	return 0;
}
