/*
 * protocol/rsp_regs.c: the amd64 register table and its target description.
 *
 * The description is one document (no xi:include), which GDB and LLDB both
 * read in full. The org.gnu.gdb.i386.linux feature with orig_rax is what
 * makes GDB set up its Linux ABI (syscall restart and friends); the segments
 * feature gives fs_base / gs_base for TLS.
 */
#include "protocol/rsp_regs.h"

#include <errno.h>
#include <string.h>

#include "protocol/rsp_buf.h"
#include "protocol/target.h"

/* { name, size in bytes, offset in the `g` block, user_regs_struct slot },
 * in GDB's order. */
const struct rsp_reg_desc rsp_reg_descs[RSP_REG_COUNT] = {
	{ "rax", 8, 0, RSP_USER_RAX },
	{ "rbx", 8, 8, RSP_USER_RBX },
	{ "rcx", 8, 16, RSP_USER_RCX },
	{ "rdx", 8, 24, RSP_USER_RDX },
	{ "rsi", 8, 32, RSP_USER_RSI },
	{ "rdi", 8, 40, RSP_USER_RDI },
	{ "rbp", 8, 48, RSP_USER_RBP },
	{ "rsp", 8, 56, RSP_USER_RSP },
	{ "r8", 8, 64, RSP_USER_R8 },
	{ "r9", 8, 72, RSP_USER_R9 },
	{ "r10", 8, 80, RSP_USER_R10 },
	{ "r11", 8, 88, RSP_USER_R11 },
	{ "r12", 8, 96, RSP_USER_R12 },
	{ "r13", 8, 104, RSP_USER_R13 },
	{ "r14", 8, 112, RSP_USER_R14 },
	{ "r15", 8, 120, RSP_USER_R15 },
	{ "rip", 8, 128, RSP_USER_RIP },
	{ "eflags", 4, 136, RSP_USER_EFLAGS },
	{ "cs", 4, 140, RSP_USER_CS },
	{ "ss", 4, 144, RSP_USER_SS },
	{ "ds", 4, 148, RSP_USER_DS },
	{ "es", 4, 152, RSP_USER_ES },
	{ "fs", 4, 156, RSP_USER_FS },
	{ "gs", 4, 160, RSP_USER_GS },
	{ "st0", 10, 164, RSP_USER_NONE },
	{ "st1", 10, 174, RSP_USER_NONE },
	{ "st2", 10, 184, RSP_USER_NONE },
	{ "st3", 10, 194, RSP_USER_NONE },
	{ "st4", 10, 204, RSP_USER_NONE },
	{ "st5", 10, 214, RSP_USER_NONE },
	{ "st6", 10, 224, RSP_USER_NONE },
	{ "st7", 10, 234, RSP_USER_NONE },
	{ "fctrl", 4, 244, RSP_USER_NONE },
	{ "fstat", 4, 248, RSP_USER_NONE },
	{ "ftag", 4, 252, RSP_USER_NONE },
	{ "fiseg", 4, 256, RSP_USER_NONE },
	{ "fioff", 4, 260, RSP_USER_NONE },
	{ "foseg", 4, 264, RSP_USER_NONE },
	{ "fooff", 4, 268, RSP_USER_NONE },
	{ "fop", 4, 272, RSP_USER_NONE },
	{ "xmm0", 16, 276, RSP_USER_NONE },
	{ "xmm1", 16, 292, RSP_USER_NONE },
	{ "xmm2", 16, 308, RSP_USER_NONE },
	{ "xmm3", 16, 324, RSP_USER_NONE },
	{ "xmm4", 16, 340, RSP_USER_NONE },
	{ "xmm5", 16, 356, RSP_USER_NONE },
	{ "xmm6", 16, 372, RSP_USER_NONE },
	{ "xmm7", 16, 388, RSP_USER_NONE },
	{ "xmm8", 16, 404, RSP_USER_NONE },
	{ "xmm9", 16, 420, RSP_USER_NONE },
	{ "xmm10", 16, 436, RSP_USER_NONE },
	{ "xmm11", 16, 452, RSP_USER_NONE },
	{ "xmm12", 16, 468, RSP_USER_NONE },
	{ "xmm13", 16, 484, RSP_USER_NONE },
	{ "xmm14", 16, 500, RSP_USER_NONE },
	{ "xmm15", 16, 516, RSP_USER_NONE },
	{ "mxcsr", 4, 532, RSP_USER_NONE },
	{ "orig_rax", 8, 536, RSP_USER_ORIG_RAX },
	{ "fs_base", 8, 544, RSP_USER_FS_BASE },
	{ "gs_base", 8, 552, RSP_USER_GS_BASE },
	{ "ymm0h", 16, 560, RSP_USER_NONE },
	{ "ymm1h", 16, 576, RSP_USER_NONE },
	{ "ymm2h", 16, 592, RSP_USER_NONE },
	{ "ymm3h", 16, 608, RSP_USER_NONE },
	{ "ymm4h", 16, 624, RSP_USER_NONE },
	{ "ymm5h", 16, 640, RSP_USER_NONE },
	{ "ymm6h", 16, 656, RSP_USER_NONE },
	{ "ymm7h", 16, 672, RSP_USER_NONE },
	{ "ymm8h", 16, 688, RSP_USER_NONE },
	{ "ymm9h", 16, 704, RSP_USER_NONE },
	{ "ymm10h", 16, 720, RSP_USER_NONE },
	{ "ymm11h", 16, 736, RSP_USER_NONE },
	{ "ymm12h", 16, 752, RSP_USER_NONE },
	{ "ymm13h", 16, 768, RSP_USER_NONE },
	{ "ymm14h", 16, 784, RSP_USER_NONE },
	{ "ymm15h", 16, 800, RSP_USER_NONE },
};

int rsp_reg_find(const char *name, size_t len)
{
	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (strlen(rsp_reg_descs[r].name) == len && !memcmp(rsp_reg_descs[r].name, name, len))
			return r;
	return -ENOENT;
}

uint64_t rsp_regs_get(const struct rsp_regs *regs, enum rsp_reg r)
{
	const struct rsp_reg_desc *d = &rsp_reg_descs[r];
	uint64_t v = 0;

	memcpy(&v, regs->bytes + d->offset, d->size < 8 ? d->size : 8);
	return v;
}

void rsp_regs_set(struct rsp_regs *regs, enum rsp_reg r, uint64_t value)
{
	const struct rsp_reg_desc *d = &rsp_reg_descs[r];

	memset(regs->bytes + d->offset, 0, d->size);
	memcpy(regs->bytes + d->offset, &value, d->size < 8 ? d->size : 8);
	regs->avail[r] = true;
}

void rsp_regs_set_bytes(struct rsp_regs *regs, enum rsp_reg r, const void *src)
{
	const struct rsp_reg_desc *d = &rsp_reg_descs[r];

	memcpy(regs->bytes + d->offset, src, d->size);
	regs->avail[r] = true;
}

size_t rsp_regs_count(unsigned features)
{
	return features & RSP_TARGET_AVX ? RSP_REG_COUNT : RSP_REG_COUNT_NOAVX;
}

size_t rsp_regs_size(unsigned features)
{
	return features & RSP_TARGET_AVX ? RSP_REGS_SIZE : RSP_REGS_SIZE_NOAVX;
}

static const char tdesc_head[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target version=\"1.0\">\n"
	"<architecture>i386:x86-64</architecture>\n"
	"<osabi>GNU/Linux</osabi>\n";

/* EFLAGS and MXCSR bit names, and the views of a 128-bit vector. */
static const char tdesc_core_types[] =
	"<flags id=\"i386_eflags\" size=\"4\">"
	"<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>"
	"<field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>"
	"<field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>"
	"<field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>"
	"<field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>"
	"<field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>"
	"<field name=\"VM\" start=\"17\" end=\"17\"/><field name=\"AC\" start=\"18\" end=\"18\"/>"
	"<field name=\"VIF\" start=\"19\" end=\"19\"/><field name=\"VIP\" start=\"20\" end=\"20\"/>"
	"<field name=\"ID\" start=\"21\" end=\"21\"/></flags>\n";

static const char tdesc_sse_types[] =
	"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>"
	"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
	"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>"
	"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>"
	"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>"
	"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
	"<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/>"
	"<field name=\"v2_double\" type=\"v2d\"/><field name=\"v16_int8\" type=\"v16i8\"/>"
	"<field name=\"v8_int16\" type=\"v8i16\"/><field name=\"v4_int32\" type=\"v4i32\"/>"
	"<field name=\"v2_int64\" type=\"v2i64\"/><field name=\"uint128\" type=\"uint128\"/></union>\n"
	"<flags id=\"i386_mxcsr\" size=\"4\">"
	"<field name=\"IE\" start=\"0\" end=\"0\"/><field name=\"DE\" start=\"1\" end=\"1\"/>"
	"<field name=\"ZE\" start=\"2\" end=\"2\"/><field name=\"OE\" start=\"3\" end=\"3\"/>"
	"<field name=\"UE\" start=\"4\" end=\"4\"/><field name=\"PE\" start=\"5\" end=\"5\"/>"
	"<field name=\"DAZ\" start=\"6\" end=\"6\"/><field name=\"IM\" start=\"7\" end=\"7\"/>"
	"<field name=\"DM\" start=\"8\" end=\"8\"/><field name=\"ZM\" start=\"9\" end=\"9\"/>"
	"<field name=\"OM\" start=\"10\" end=\"10\"/><field name=\"UM\" start=\"11\" end=\"11\"/>"
	"<field name=\"PM\" start=\"12\" end=\"12\"/><field name=\"FZ\" start=\"15\" end=\"15\"/></flags>\n";

/* The XML type of register @r, and its group when not the default. */
static const char *reg_type(enum rsp_reg r, const char **group)
{
	*group = NULL;
	if (r == RSP_REG_RBP || r == RSP_REG_RSP)
		return "data_ptr";
	if (r == RSP_REG_RIP)
		return "code_ptr";
	if (r == RSP_REG_EFLAGS)
		return "i386_eflags";
	if (r >= RSP_REG_CS && r <= RSP_REG_GS)
		return "int32";
	if (r >= RSP_REG_ST0 && r < RSP_REG_FCTRL)
		return "i387_ext";
	if (r >= RSP_REG_FCTRL && r <= RSP_REG_FOP) {
		*group = "float";
		return "int";
	}
	if (r >= RSP_REG_XMM0 && r < RSP_REG_MXCSR)
		return "vec128";
	if (r == RSP_REG_MXCSR) {
		*group = "vector";
		return "i386_mxcsr";
	}
	if (r >= RSP_REG_YMM0H)
		return "uint128";
	if (r == RSP_REG_ORIG_RAX || r == RSP_REG_FS_BASE || r == RSP_REG_GS_BASE)
		return "int";
	return "int64";
}

static int put_regs(struct rsp_buf *out, enum rsp_reg first, enum rsp_reg end)
{
	int err = 0;

	for (enum rsp_reg r = first; r < end && !err; r++) {
		const char *group, *type = reg_type(r, &group);

		err = rsp_buf_printf(out,
			"<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%d\"%s%s%s/>\n",
			rsp_reg_descs[r].name, rsp_reg_descs[r].size * 8, type, (int)r,
			group ? " group=\"" : "", group ? group : "", group ? "\"" : "");
	}
	return err;
}

struct tdesc_feature {
	const char *name;
	const char *types;
	enum rsp_reg first, end;
};

static const struct tdesc_feature features[] = {
	{ "org.gnu.gdb.i386.core", tdesc_core_types, RSP_REG_RAX, RSP_REG_XMM0 },
	{ "org.gnu.gdb.i386.sse", tdesc_sse_types, RSP_REG_XMM0, RSP_REG_ORIG_RAX },
	{ "org.gnu.gdb.i386.linux", "", RSP_REG_ORIG_RAX, RSP_REG_FS_BASE },
	{ "org.gnu.gdb.i386.segments", "", RSP_REG_FS_BASE, RSP_REG_YMM0H },
	{ "org.gnu.gdb.i386.avx", "", RSP_REG_YMM0H, RSP_REG_COUNT },
};

int rsp_regs_tdesc(unsigned target_features, struct rsp_buf *out)
{
	size_t n = sizeof(features) / sizeof(features[0]);
	int err = rsp_buf_puts(out, tdesc_head);

	if (!(target_features & RSP_TARGET_AVX))
		n--;
	for (size_t i = 0; i < n && !err; i++) {
		err = rsp_buf_printf(out, "<feature name=\"%s\">\n%s", features[i].name,
				     features[i].types);
		if (!err)
			err = put_regs(out, features[i].first, features[i].end);
		if (!err)
			err = rsp_buf_puts(out, "</feature>\n");
	}
	return err ? err : rsp_buf_puts(out, "</target>\n");
}
