/*
 * tests/unit/test_stub_regs.c: user_regs_struct / fxsave <-> struct rsp_regs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stub/live/stub_regs.h"

static void fill(struct user_regs_struct *gp, struct user_fpregs_struct *fp)
{
	memset(gp, 0, sizeof(*gp));
	memset(fp, 0, sizeof(*fp));
	gp->rax = 0x1111;
	gp->rbx = 0x2222;
	gp->r15 = 0xf0f0;
	gp->rip = 0x401000;
	gp->eflags = 0x246;
	gp->cs = 0x33;
	gp->ss = 0x2b;
	gp->fs = 0;
	gp->orig_rax = (unsigned long long)-1;
	gp->fs_base = 0x7ffff7d8a740;
	gp->gs_base = 0x1234;
	fp->cwd = 0x37f;
	fp->swd = 7u << 11;
	fp->ftw = 0x80;
	fp->fop = 0xffff;
	fp->rip = 0x0000abcd12345678ull;
	fp->rdp = 0x00009876deadbeefull;
	fp->mxcsr = 0x1f80;
	((uint8_t *)fp->st_space)[7] = 0x80;  /* ST(0) = 1.0 */
	((uint8_t *)fp->st_space)[8] = 0xff;
	((uint8_t *)fp->st_space)[9] = 0x3f;
	((uint8_t *)fp->xmm_space)[16 * 15 + 15] = 0x5a;
}

static void test_from_user(void **state)
{
	struct user_regs_struct gp;
	struct user_fpregs_struct fp;
	struct rsp_regs r;

	(void)state;
	fill(&gp, &fp);
	memset(&r, 0, sizeof(r));
	stub_regs_from_user(&gp, &fp, &r);
	for (int i = 0; i < RSP_REG_YMM0H; i++)
		assert_true(r.avail[i]);
	assert_false(r.avail[RSP_REG_YMM0H]);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_RAX), 0x1111);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_RBX), 0x2222);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_R15), 0xf0f0);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_RIP), 0x401000);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_EFLAGS), 0x246);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_CS), 0x33);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_SS), 0x2b);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FCTRL), 0x37f);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FTAG), 0x3fff);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FIOFF), 0x12345678);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FISEG), 0xabcd);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FOOFF), 0xdeadbeef);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FOSEG), 0x9876);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FOP), 0x7ff);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_MXCSR), 0x1f80);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_ORIG_RAX), UINT64_MAX);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_FS_BASE), 0x7ffff7d8a740);
	assert_int_equal(rsp_regs_get(&r, RSP_REG_GS_BASE), 0x1234);
	assert_int_equal(rsp_regs_ptr(&r, RSP_REG_ST0)[9], 0x3f);
	assert_int_equal(rsp_regs_ptr(&r, RSP_REG_XMM0 + 15)[15], 0x5a);
}

static void test_to_user_round_trip(void **state)
{
	struct user_regs_struct gp, gp2;
	struct user_fpregs_struct fp, fp2;
	struct rsp_regs r;

	(void)state;
	fill(&gp, &fp);
	fp.fop = 0x7ff;
	memset(&r, 0, sizeof(r));
	stub_regs_from_user(&gp, &fp, &r);
	memset(&gp2, 0, sizeof(gp2));
	memset(&fp2, 0, sizeof(fp2));
	stub_regs_to_user(&r, &gp2, &fp2);
	assert_memory_equal(&gp, &gp2, sizeof(gp));
	assert_memory_equal(&fp, &fp2, sizeof(fp));
}

static void test_to_user_only_avail(void **state)
{
	struct user_regs_struct gp;
	struct user_fpregs_struct fp;
	struct rsp_regs r;

	(void)state;
	fill(&gp, &fp);
	memset(&r, 0, sizeof(r));
	rsp_regs_set(&r, RSP_REG_RBX, 0x99);
	rsp_regs_set(&r, RSP_REG_FISEG, 0x1);
	rsp_regs_set(&r, RSP_REG_FTAG, 0xffff);
	stub_regs_to_user(&r, &gp, &fp);
	assert_int_equal(gp.rbx, 0x99);
	assert_int_equal(gp.rax, 0x1111);
	assert_int_equal(fp.rip, 0x0000000112345678ull);
	assert_int_equal(fp.ftw, 0);
	assert_int_equal(fp.cwd, 0x37f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_user),
		cmocka_unit_test(test_to_user_round_trip),
		cmocka_unit_test(test_to_user_only_avail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
