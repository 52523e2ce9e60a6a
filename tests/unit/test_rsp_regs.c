/*
 * tests/unit/test_rsp_regs.c: the amd64 register file and target.xml.
 *
 * The layout must be GDB's (RSP-REFERENCE.md 2.4): offsets are the running
 * sum of the sizes, 560 bytes without AVX and 816 with the ymm upper halves,
 * and the target description lists the same registers in the same order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_regs.h"
#include "protocol/target.h"

static void test_offsets_are_running_sum(void **state)
{
	unsigned offset = 0;

	(void)state;
	for (int r = 0; r < RSP_REG_COUNT; r++) {
		if (rsp_reg_descs[r].offset != offset)
			fail_msg("%s: offset %u, want %u", rsp_reg_descs[r].name,
				 rsp_reg_descs[r].offset, offset);
		if (r == RSP_REG_COUNT_NOAVX)
			assert_int_equal(offset, RSP_REGS_SIZE_NOAVX);
		offset += rsp_reg_descs[r].size;
	}
	assert_int_equal(offset, RSP_REGS_SIZE);
}

/* Every register with a user_regs_struct slot names the field of its
 * name, every field is one register's, and the slots are the fields. */
static void test_user_slots_are_user_regs_struct(void **state)
{
#define U(reg, field) { RSP_REG_##reg, offsetof(struct user_regs_struct, field) }
	static const struct { enum rsp_reg reg; size_t off; } want[] = {
		U(RAX, rax), U(RBX, rbx), U(RCX, rcx), U(RDX, rdx), U(RSI, rsi), U(RDI, rdi),
		U(RBP, rbp), U(RSP, rsp), U(R8, r8), U(R9, r9), U(R10, r10), U(R11, r11),
		U(R12, r12), U(R13, r13), U(R14, r14), U(R15, r15), U(RIP, rip),
		U(EFLAGS, eflags), U(CS, cs), U(SS, ss), U(DS, ds), U(ES, es), U(FS, fs),
		U(GS, gs), U(ORIG_RAX, orig_rax), U(FS_BASE, fs_base), U(GS_BASE, gs_base),
	};
#undef U
	unsigned with_slot = 0;

	(void)state;
	assert_int_equal(sizeof(struct user_regs_struct), 8 * RSP_USER_COUNT);
	assert_int_equal(sizeof(want) / sizeof(want[0]), RSP_USER_COUNT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if ((size_t)rsp_reg_descs[want[i].reg].user * 8 != want[i].off)
			fail_msg("%s: slot %d", rsp_reg_descs[want[i].reg].name,
				 rsp_reg_descs[want[i].reg].user);
	for (int r = 0; r < RSP_REG_COUNT; r++)
		with_slot += rsp_reg_descs[r].user != RSP_USER_NONE;
	assert_int_equal(with_slot, RSP_USER_COUNT);
}

static void test_find_by_name(void **state)
{
	(void)state;
	assert_int_equal(rsp_reg_find("rax", 3), RSP_REG_RAX);
	assert_int_equal(rsp_reg_find("gs_base", 7), RSP_REG_GS_BASE);
	assert_int_equal(rsp_reg_find("ymm15h", 6), RSP_REG_YMM0H + 15);
	assert_int_equal(rsp_reg_find("rip rsp", 3), RSP_REG_RIP);
	assert_int_equal(rsp_reg_find("r1", 2), -ENOENT);
	assert_int_equal(rsp_reg_find("rax", 2), -ENOENT);
	assert_int_equal(rsp_reg_find("", 0), -ENOENT);
}

struct layout_case {
	enum rsp_reg reg;
	const char *name;
	unsigned size;
	unsigned offset;
};

/* The table of RSP-REFERENCE.md 2.4, plus the avx registers after it. */
static void test_layout_matches_gdb(void **state)
{
	static const struct layout_case cases[] = {
		{ RSP_REG_RAX, "rax", 8, 0 },
		{ RSP_REG_RBX, "rbx", 8, 8 },
		{ RSP_REG_RCX, "rcx", 8, 16 },
		{ RSP_REG_RSI, "rsi", 8, 32 },
		{ RSP_REG_RBP, "rbp", 8, 48 },
		{ RSP_REG_RSP, "rsp", 8, 56 },
		{ RSP_REG_R15, "r15", 8, 120 },
		{ RSP_REG_RIP, "rip", 8, 128 },
		{ RSP_REG_EFLAGS, "eflags", 4, 136 },
		{ RSP_REG_CS, "cs", 4, 140 },
		{ RSP_REG_GS, "gs", 4, 160 },
		{ RSP_REG_ST0, "st0", 10, 164 },
		{ RSP_REG_ST0 + 7, "st7", 10, 234 },
		{ RSP_REG_FCTRL, "fctrl", 4, 244 },
		{ RSP_REG_FOP, "fop", 4, 272 },
		{ RSP_REG_XMM0, "xmm0", 16, 276 },
		{ RSP_REG_XMM0 + 15, "xmm15", 16, 516 },
		{ RSP_REG_MXCSR, "mxcsr", 4, 532 },
		{ RSP_REG_ORIG_RAX, "orig_rax", 8, 536 },
		{ RSP_REG_FS_BASE, "fs_base", 8, 544 },
		{ RSP_REG_GS_BASE, "gs_base", 8, 552 },
		{ RSP_REG_YMM0H, "ymm0h", 16, 560 },
		{ RSP_REG_YMM0H + 15, "ymm15h", 16, 800 },
	};
	(void)state;
	assert_int_equal(RSP_REG_RIP, 0x10);
	assert_int_equal(RSP_REG_ORIG_RAX, 57);
	assert_int_equal(RSP_REG_COUNT_NOAVX, 60);
	assert_int_equal(RSP_REG_COUNT, 76);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct layout_case *c = &cases[i];
		const struct rsp_reg_desc *d = &rsp_reg_descs[c->reg];

		if (strcmp(d->name, c->name) || d->size != c->size || d->offset != c->offset)
			fail_msg("register %d: %s size %u offset %u, want %s %u %u", c->reg,
				 d->name, d->size, d->offset, c->name, c->size, c->offset);
	}
}

static void test_count_and_size_by_features(void **state)
{
	(void)state;
	assert_int_equal(rsp_regs_count(0), RSP_REG_COUNT_NOAVX);
	assert_int_equal(rsp_regs_size(0), RSP_REGS_SIZE_NOAVX);
	assert_int_equal(rsp_regs_count(RSP_TARGET_AVX), RSP_REG_COUNT);
	assert_int_equal(rsp_regs_size(RSP_TARGET_AVX), RSP_REGS_SIZE);
	assert_int_equal(rsp_regs_count(RSP_TARGET_REVERSE), RSP_REG_COUNT_NOAVX);
	assert_int_equal(rsp_regs_size(RSP_TARGET_AVX | RSP_TARGET_REVERSE), RSP_REGS_SIZE);
}

static void test_get_set(void **state)
{
	static const uint8_t xmm[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct rsp_regs regs;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set(&regs, RSP_REG_RIP, 0x1122334455667788);
	assert_true(regs.avail[RSP_REG_RIP]);
	assert_memory_equal(rsp_regs_ptr(&regs, RSP_REG_RIP), "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
	assert_int_equal(rsp_regs_get(&regs, RSP_REG_RIP), 0x1122334455667788);

	/* A 4-byte register takes the low 4 bytes and leaves its neighbours. */
	rsp_regs_set(&regs, RSP_REG_EFLAGS, 0xffffffff00000246);
	assert_int_equal(rsp_regs_get(&regs, RSP_REG_EFLAGS), 0x246);
	assert_int_equal(rsp_regs_get(&regs, RSP_REG_CS), 0);
	assert_false(regs.avail[RSP_REG_CS]);
	assert_int_equal(rsp_regs_get(&regs, RSP_REG_RIP), 0x1122334455667788);

	rsp_regs_set_bytes(&regs, RSP_REG_XMM0 + 1, xmm);
	assert_true(regs.avail[RSP_REG_XMM0 + 1]);
	assert_memory_equal(rsp_regs_ptr(&regs, RSP_REG_XMM0 + 1), xmm, 16);
	assert_int_equal(rsp_regs_get(&regs, RSP_REG_XMM0 + 1), 0x0807060504030201);
	assert_false(regs.avail[RSP_REG_XMM0]);
	assert_false(regs.avail[RSP_REG_XMM0 + 2]);
}

/* ---- target.xml ----------------------------------------------------------- */

static char *tdesc(unsigned features)
{
	struct rsp_buf out;
	char *s;

	rsp_buf_init(&out);
	assert_int_equal(rsp_regs_tdesc(features, &out), 0);
	assert_int_equal(strlen(rsp_buf_str(&out)), out.len);
	s = strdup(rsp_buf_str(&out));
	assert_non_null(s);
	rsp_buf_release(&out);
	return s;
}

/* The text of <feature name="@name">...</feature>, or NULL. */
static char *feature(const char *xml, const char *name)
{
	char open[128];
	const char *start, *end;

	snprintf(open, sizeof(open), "<feature name=\"%s\"", name);
	start = strstr(xml, open);
	if (!start)
		return NULL;
	end = strstr(start, "</feature>");
	assert_non_null(end);
	return strndup(start, (size_t)(end - start));
}

static bool has_reg(const char *text, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "<reg name=\"%s\"", name);
	return text && strstr(text, key);
}

static void test_tdesc_features(void **state)
{
	char *xml = tdesc(0);
	char *core = feature(xml, "org.gnu.gdb.i386.core");
	char *sse = feature(xml, "org.gnu.gdb.i386.sse");
	char *linux_ = feature(xml, "org.gnu.gdb.i386.linux");
	char *segments = feature(xml, "org.gnu.gdb.i386.segments");

	(void)state;
	assert_non_null(strstr(xml, "<architecture>i386:x86-64</architecture>"));
	assert_non_null(strstr(xml, "<osabi>GNU/Linux</osabi>"));
	assert_true(has_reg(core, "rax") && has_reg(core, "rip") && has_reg(core, "eflags"));
	assert_true(has_reg(core, "st0") && has_reg(core, "fop"));
	assert_true(has_reg(sse, "xmm0") && has_reg(sse, "mxcsr"));
	/* GDB sets up its Linux ABI only when orig_rax is in i386.linux. */
	assert_true(has_reg(linux_, "orig_rax"));
	assert_true(has_reg(segments, "fs_base") && has_reg(segments, "gs_base"));
	assert_null(strstr(xml, "org.gnu.gdb.i386.avx"));
	assert_false(has_reg(xml, "ymm0h"));
	free(core);
	free(sse);
	free(linux_);
	free(segments);
	free(xml);
}

static void test_tdesc_avx_only_with_feature(void **state)
{
	char *xml = tdesc(RSP_TARGET_AVX);
	char *avx = feature(xml, "org.gnu.gdb.i386.avx");

	(void)state;
	assert_non_null(avx);
	assert_true(has_reg(avx, "ymm0h") && has_reg(avx, "ymm15h"));
	free(avx);
	free(xml);
}

/* The value of attribute @attr in the tag starting at @tag (up to its '>'). */
static bool attr(const char *tag, const char *attr_name, char *out, size_t size)
{
	char key[32];
	const char *end = strchr(tag, '>');
	const char *v, *q;

	snprintf(key, sizeof(key), " %s=\"", attr_name);
	v = strstr(tag, key);
	if (!v || !end || v > end)
		return false;
	v += strlen(key);
	q = strchr(v, '"');
	if (!q || (size_t)(q - v) >= size)
		return false;
	memcpy(out, v, (size_t)(q - v));
	out[q - v] = 0;
	return true;
}

/* <reg> elements in document order: the `g` order, with matching sizes and
 * (where given) regnum. */
static void check_tdesc_regs(unsigned features)
{
	char *xml = tdesc(features);
	const char *p = xml;
	size_t n = 0;
	int regnum = -1;

	while ((p = strstr(p, "<reg ")) != NULL) {
		char name[64], bits[16], num[16];

		assert_true(n < rsp_regs_count(features));
		assert_true(attr(p, "name", name, sizeof(name)));
		assert_true(attr(p, "bitsize", bits, sizeof(bits)));
		regnum = attr(p, "regnum", num, sizeof(num)) ? atoi(num) : regnum + 1;
		if (strcmp(name, rsp_reg_descs[n].name) || (unsigned)atoi(bits) != 8 * rsp_reg_descs[n].size ||
		    regnum != (int)n)
			fail_msg("<reg> %zu: %s bitsize %s regnum %d, want %s %u %zu", n, name,
				 bits, regnum, rsp_reg_descs[n].name, 8 * rsp_reg_descs[n].size, n);
		n++;
		p++;
	}
	assert_int_equal(n, rsp_regs_count(features));
	free(xml);
}

static void test_tdesc_regs_in_g_order(void **state)
{
	(void)state;
	check_tdesc_regs(0);
	check_tdesc_regs(RSP_TARGET_AVX);
}

/* Every element closes in the order it opened (a small check that needs no
 * tool; xmllint runs below when it is installed). */
static void check_balanced(const char *xml)
{
	const char *stack[64];
	size_t depth = 0;
	const char *p = xml;

	while ((p = strchr(p, '<')) != NULL) {
		const char *end = strchr(p, '>');

		assert_non_null(end);
		if (p[1] == '?' || p[1] == '!') {
			/* declaration, DOCTYPE or comment */
		} else if (p[1] == '/') {
			size_t len = strcspn(p + 2, " >");

			assert_true(depth > 0);
			depth--;
			if (strncmp(stack[depth], p + 2, len) || strcspn(stack[depth], " />") != len)
				fail_msg("</%.*s> closes <%.*s>", (int)len, p + 2,
					 (int)strcspn(stack[depth], " />"), stack[depth]);
		} else if (end[-1] != '/') {
			assert_true(depth < 64);
			stack[depth++] = p + 1;
		}
		p = end + 1;
	}
	assert_int_equal(depth, 0);
}

static void check_xmllint(const char *xml)
{
	char path[] = "/tmp/hindsight-tdesc-XXXXXX";
	char cmd[128];
	FILE *f;
	int fd;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		print_message("xmllint not installed: balanced-tag check only\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(xml, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout --nonet %s", path);
	if (system(cmd) != 0) {
		unlink(path);
		fail_msg("xmllint rejects the target description");
	}
	unlink(path);
}

static void test_tdesc_well_formed(void **state)
{
	(void)state;
	for (unsigned features = 0; features <= RSP_TARGET_AVX; features++) {
		char *xml = tdesc(features);

		assert_int_equal(strncmp(xml, "<?xml", 5), 0);
		check_balanced(xml);
		check_xmllint(xml);
		free(xml);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_are_running_sum),
		cmocka_unit_test(test_layout_matches_gdb),
		cmocka_unit_test(test_user_slots_are_user_regs_struct),
		cmocka_unit_test(test_find_by_name),
		cmocka_unit_test(test_count_and_size_by_features),
		cmocka_unit_test(test_get_set),
		cmocka_unit_test(test_tdesc_features),
		cmocka_unit_test(test_tdesc_avx_only_with_feature),
		cmocka_unit_test(test_tdesc_regs_in_g_order),
		cmocka_unit_test(test_tdesc_well_formed),
	};

	return cmocka_run_group_tests_name("rsp_regs", tests, NULL, NULL);
}
