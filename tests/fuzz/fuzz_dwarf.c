/* libFuzzer target for dwarf/: the input is an ELF image (seed it with small
 * test binaries); it is opened from memory and asked everything: note,
 * build-id, lookups and call frame rows over its first executable section
 * (every expression of a row run over made-up registers and memory),
 * file:line and name to addresses; the variables in scope there (every
 * location expression run by dw_loc_eval), globals, types and functions by
 * name, call site values (dw_vars.h).
 * fuzz-build: dwarf -ldwarf -lelf -lz -lstdc++
 */
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_loc.h"
#include "dwarf/dw_vars.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Memory: every word holds its own address, but the first page. */
static int fuzz_read(void *ctx, uint64_t addr, uint64_t *out)
{
	(void)ctx;
	*out = addr;
	return addr < 4096 ? -5 : 0;
}

static void fuzz_row(const struct dw_cfi_row *row)
{
	static const uint64_t regs[DW_CFI_NREGS] = { 0x7000, 0x7008, 0x7010, 0x7018, 0x7020, 0x7028,
						     0x7030, 0x7038, 0x7040, 0x7048, 0x7050, 0x7058,
						     0x7060, 0x7068, 0x7070, 0x7078, 0x401000 };
	static const bool known[DW_CFI_NREGS] = { true, true, true, true, true, true, true, true,
						  true, true, true, true, true, true, true, true,
						  true };
	struct dw_cfi_env env = { regs, known, fuzz_read, NULL };
	uint64_t v;

	if (row->cfa_expr)
		(void)dw_cfi_expr_eval(row->expr, row->exprlen, &env, false, 0, &v);
	for (size_t i = 0; i < DW_CFI_NREGS; i++)
		if (row->regs[i].kind == DW_CFI_EXPR || row->regs[i].kind == DW_CFI_VAL_EXPR)
			(void)dw_cfi_expr_eval(row->regs[i].expr, row->regs[i].exprlen, &env, true,
					       0x7100, &v);
}

static int fuzz_read_bytes(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(addr + i);
	return addr < 4096 ? -5 : 0;
}

/* Walks a type a few levels deep (reads every field it points to). */
static size_t fuzz_type(const struct dw_type *t, unsigned depth)
{
	size_t n = 0;

	if (!t || depth > 4)
		return 0;
	n += (size_t)dw_type_size(t) + (t->name ? t->name[0] : 0);
	n += fuzz_type(t->target, depth + 1);
	for (size_t i = 0; i < t->nmembers; i++)
		n += fuzz_type(t->members[i].type, depth + 1) + (t->members[i].name != NULL);
	for (size_t i = 0; i < t->nenumerators; i++)
		n += (size_t)t->enumerators[i].value;
	for (size_t i = 0; i < t->nparams; i++)
		n += fuzz_type(t->params[i], depth + 1);
	return n;
}

static void fuzz_var(const struct dw_var *v, const struct dw_scope *s)
{
	static const uint64_t regs[DW_LOC_NREGS] = { 1, 2, 3, 4, 5, 6, 0x7000, 0x7010 };
	static const bool known[DW_LOC_NREGS] = { true, true, true, true, true, true, true, true };
	struct dw_loc_env env = { .regs = regs, .known = known, .cfa_known = true, .cfa = 0x7100,
				  .read = fuzz_read_bytes };
	struct dw_loc loc;

	(void)fuzz_type(v->type, 0);
	if (s) {
		env.frame_base = s->frame_base;
		env.frame_base_len = s->frame_base_len;
	}
	if (v->where == DW_VAR_EXPR)
		(void)dw_loc_eval(v->expr, v->exprlen, &env, &loc);
}

static void fuzz_vars(struct dw_image *img, uint64_t addr)
{
	static const char *const names[] = { "main", "f", "x", "g", "int", "struct s", "union u",
					     "enum e", "unsigned long", "node_t" };
	struct dw_scope *s;
	const struct dw_type *t;
	struct dw_var v;
	uint64_t entry;
	const uint8_t *e;
	size_t n;

	if (dw_image_scope(img, addr, &s) == 0) {
		for (size_t l = 0; l < s->nlevels; l++) {
			for (size_t i = 0; i < s->levels[l].nargs; i++)
				fuzz_var(&s->levels[l].args[i], s);
			for (size_t i = 0; i < s->levels[l].nlocals; i++)
				fuzz_var(&s->levels[l].locals[i], s);
		}
		dw_scope_free(s);
	}
	for (unsigned reg = 4; reg < 6; reg++)
		if (dw_image_call_value(img, addr, reg, &e, &n) == 0)
			(void)dw_loc_eval_value(e, n, &(struct dw_loc_env){ 0 }, false, 0, &entry);
	{
		struct dw_call_target ct;

		if (dw_image_call_target(img, addr, &ct) == 0 && ct.kind == DW_CALL_TARGET_EXPR)
			(void)dw_loc_eval_value(ct.expr, ct.len, &(struct dw_loc_env){ 0 }, false, 0, &entry);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (dw_image_global(img, addr, names[i], &v) == 0)
			fuzz_var(&v, NULL);
		if (dw_image_type(img, addr, names[i], &t) == 0)
			(void)fuzz_type(t, 0);
		if (dw_image_function(img, addr, names[i], &t, &entry) == 0)
			(void)fuzz_type(t, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t addrs[8], lo = 0, n = 0;
	uint8_t id[32];

	if (dw_image_open_memory(data, size, "fuzz", &img) != 0)
		return 0;
	(void)dw_image_note(img);
	(void)dw_image_build_id(img, id, sizeof(id));
	/* The lowest executable section, at most 512 addresses of it. */
	struct dw_elf *e;
	if (dw_elf_open_memory(data, size, "fuzz", &e) == 0) {
		for (size_t i = 1; i < e->nsections; i++)
			if ((e->sections[i].flags & SHF_EXECINSTR) && e->sections[i].size) {
				lo = e->sections[i].addr;
				n = e->sections[i].size < 512 ? e->sections[i].size : 512;
				break;
			}
		dw_elf_free(e);
	}
	for (uint64_t k = 0; k < n; k += 3) { /* wraps at the top of the space: fine */
		struct dw_cfi_row row;

		(void)dw_image_lookup(img, lo + k, &loc);
		if (dw_image_cfi_row(img, lo + k, &row) == 0)
			fuzz_row(&row);
		if (k % 24 == 0)
			fuzz_vars(img, lo + k);
	}
	(void)dw_image_lookup(img, 0, &loc);
	(void)dw_image_line_addrs(img, "a.c", 3, addrs, 8);
	(void)dw_image_function_addrs(img, "main", addrs, 8);
	dw_image_free(img);
	return 0;
}
