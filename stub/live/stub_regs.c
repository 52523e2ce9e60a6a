/*
 * stub/live/stub_regs.c: register conversion and the ptrace calls behind it.
 *
 * The x87 environment: fctrl / fstat come from cwd / swd, ftag is rebuilt
 * from the abridged tag (protocol/rsp_ftag.h), fiseg:fioff and foseg:fooff are
 * the two halves of the 64-bit FIP and FDP, fop keeps its low 11 bits.
 * ymm upper halves live at offset 576 of the standard XSAVE layout and are
 * zero when XSTATE_BV bit 2 is clear.
 */
#include "stub/live/stub_regs.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "protocol/target.h"
#include "protocol/rsp_ftag.h"

#define STUB_XSTATE_MAX 16384
#define STUB_XSTATE_BV 512
#define STUB_XSTATE_YMM 576
#define STUB_XSTATE_YMM_BIT 4u /* XSTATE_BV bit 2 */

static uint64_t stub_xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

unsigned stub_regs_features(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (!(c & bit_AVX) || !(c & bit_OSXSAVE))
		return 0;
	return (stub_xgetbv0() & 6) == 6 ? RSP_TARGET_AVX : 0;
}

/* user_regs_struct's field @slot (protocol/rsp_regs.h's numbering). */
static uint64_t stub_regs_gp_get(const struct user_regs_struct *gp, enum rsp_user_slot slot)
{
	uint64_t v;

	memcpy(&v, (const char *)gp + 8 * slot, 8);
	return v;
}

static void stub_regs_gp_put(struct user_regs_struct *gp, enum rsp_user_slot slot, uint64_t v)
{
	memcpy((char *)gp + 8 * slot, &v, 8);
}

static void stub_regs_x87_from(const struct user_fpregs_struct *fp, struct rsp_regs *out)
{
	const uint8_t *st = (const uint8_t *)fp->st_space;

	for (int i = 0; i < 8; i++)
		rsp_regs_set_bytes(out, RSP_REG_ST0 + i, st + 16 * i);
	rsp_regs_set(out, RSP_REG_FCTRL, fp->cwd);
	rsp_regs_set(out, RSP_REG_FSTAT, fp->swd);
	rsp_regs_set(out, RSP_REG_FTAG, rsp_ftag_full((uint8_t)fp->ftw, fp->swd, st));
	rsp_regs_set(out, RSP_REG_FISEG, (fp->rip >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FIOFF, fp->rip & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOSEG, (fp->rdp >> 32) & 0xffff);
	rsp_regs_set(out, RSP_REG_FOOFF, fp->rdp & 0xffffffffu);
	rsp_regs_set(out, RSP_REG_FOP, fp->fop & 0x7ff);
}

void stub_regs_from_user(const struct user_regs_struct *gp,
			 const struct user_fpregs_struct *fp, struct rsp_regs *out)
{
	const uint8_t *xmm = (const uint8_t *)fp->xmm_space;

	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (rsp_reg_descs[r].user != RSP_USER_NONE)
			rsp_regs_set(out, r, stub_regs_gp_get(gp, rsp_reg_descs[r].user));
	stub_regs_x87_from(fp, out);
	for (int i = 0; i < 16; i++)
		rsp_regs_set_bytes(out, RSP_REG_XMM0 + i, xmm + 16 * i);
	rsp_regs_set(out, RSP_REG_MXCSR, fp->mxcsr);
}

static void stub_regs_x87_to(const struct rsp_regs *in, struct user_fpregs_struct *fp)
{
	uint8_t *st = (uint8_t *)fp->st_space;

	for (int i = 0; i < 8; i++)
		if (in->avail[RSP_REG_ST0 + i])
			memcpy(st + 16 * i, in->bytes + rsp_reg_descs[RSP_REG_ST0 + i].offset, 10);
	if (in->avail[RSP_REG_FCTRL])
		fp->cwd = (uint16_t)rsp_regs_get(in, RSP_REG_FCTRL);
	if (in->avail[RSP_REG_FSTAT])
		fp->swd = (uint16_t)rsp_regs_get(in, RSP_REG_FSTAT);
	if (in->avail[RSP_REG_FTAG])
		fp->ftw = rsp_ftag_abridged((uint16_t)rsp_regs_get(in, RSP_REG_FTAG));
	if (in->avail[RSP_REG_FIOFF])
		fp->rip = (fp->rip & ~0xffffffffull) | rsp_regs_get(in, RSP_REG_FIOFF);
	if (in->avail[RSP_REG_FISEG])
		fp->rip = (fp->rip & 0xffffffffull) | (rsp_regs_get(in, RSP_REG_FISEG) & 0xffff) << 32;
	if (in->avail[RSP_REG_FOOFF])
		fp->rdp = (fp->rdp & ~0xffffffffull) | rsp_regs_get(in, RSP_REG_FOOFF);
	if (in->avail[RSP_REG_FOSEG])
		fp->rdp = (fp->rdp & 0xffffffffull) | (rsp_regs_get(in, RSP_REG_FOSEG) & 0xffff) << 32;
	if (in->avail[RSP_REG_FOP])
		fp->fop = (uint16_t)(rsp_regs_get(in, RSP_REG_FOP) & 0x7ff);
}

void stub_regs_to_user(const struct rsp_regs *in, struct user_regs_struct *gp,
		       struct user_fpregs_struct *fp)
{
	uint8_t *xmm = (uint8_t *)fp->xmm_space;

	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (in->avail[r] && rsp_reg_descs[r].user != RSP_USER_NONE)
			stub_regs_gp_put(gp, rsp_reg_descs[r].user, rsp_regs_get(in, r));
	stub_regs_x87_to(in, fp);
	for (int i = 0; i < 16; i++)
		if (in->avail[RSP_REG_XMM0 + i])
			memcpy(xmm + 16 * i, in->bytes + rsp_reg_descs[RSP_REG_XMM0 + i].offset, 16);
	if (in->avail[RSP_REG_MXCSR])
		fp->mxcsr = (uint32_t)rsp_regs_get(in, RSP_REG_MXCSR);
}

static int stub_regs_ptrace(int req, pid_t tid, void *data)
{
	if (ptrace(req, tid, NULL, data) < 0)
		return -errno;
	return 0;
}

/* The XSAVE area of @tid into @buf (STUB_XSTATE_MAX bytes); its size in
 * @size. */
static int stub_regs_get_xstate(pid_t tid, uint8_t *buf, size_t *size)
{
	struct iovec iov = { buf, STUB_XSTATE_MAX };

	memset(buf, 0, STUB_XSTATE_MAX);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return -errno;
	*size = iov.iov_len;
	return iov.iov_len >= STUB_XSTATE_YMM + 256 ? 0 : -EIO;
}

/* The XSAVE area with the YMM upper halves as the program sees them: the
 * processor leaves them stale in memory while they are in their initial
 * state (XSTATE_BV bit 2 clear), when they read as zero. */
static int stub_regs_load_xstate(pid_t tid, uint8_t *buf, size_t *size)
{
	int r = stub_regs_get_xstate(tid, buf, size);

	if (r == 0 && !(buf[STUB_XSTATE_BV] & STUB_XSTATE_YMM_BIT))
		memset(buf + STUB_XSTATE_YMM, 0, 256);
	return r;
}

static int stub_regs_read_ymm(pid_t tid, struct rsp_regs *out)
{
	uint8_t *buf = malloc(STUB_XSTATE_MAX);
	size_t size;
	int r;

	if (!buf)
		return -ENOMEM;
	r = stub_regs_load_xstate(tid, buf, &size);
	for (int i = 0; r == 0 && i < 16; i++)
		rsp_regs_set_bytes(out, RSP_REG_YMM0H + i, buf + STUB_XSTATE_YMM + 16 * i);
	free(buf);
	return r;
}

int stub_regs_read(pid_t tid, bool avx, struct rsp_regs *out)
{
	struct user_regs_struct gp;
	struct user_fpregs_struct fp;
	int r;

	memset(out, 0, sizeof(*out));
	r = stub_regs_ptrace(PTRACE_GETREGS, tid, &gp);
	if (r == 0)
		r = stub_regs_ptrace(PTRACE_GETFPREGS, tid, &fp);
	if (r < 0)
		return r;
	stub_regs_from_user(&gp, &fp, out);
	return avx ? stub_regs_read_ymm(tid, out) : 0;
}

static bool stub_regs_any_ymm(const struct rsp_regs *in)
{
	for (int i = 0; i < 16; i++)
		if (in->avail[RSP_REG_YMM0H + i])
			return true;
	return false;
}

static int stub_regs_write_ymm(pid_t tid, const struct rsp_regs *in)
{
	uint8_t *buf = malloc(STUB_XSTATE_MAX);
	struct iovec iov;
	size_t size;
	int r;

	if (!buf)
		return -ENOMEM;
	r = stub_regs_load_xstate(tid, buf, &size);
	for (int i = 0; r == 0 && i < 16; i++)
		if (in->avail[RSP_REG_YMM0H + i])
			memcpy(buf + STUB_XSTATE_YMM + 16 * i,
			       in->bytes + rsp_reg_descs[RSP_REG_YMM0H + i].offset, 16);
	buf[STUB_XSTATE_BV] |= STUB_XSTATE_YMM_BIT;
	iov.iov_base = buf;
	iov.iov_len = size;
	if (r == 0 && ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		r = -errno;
	free(buf);
	return r;
}

int stub_regs_write(pid_t tid, bool avx, const struct rsp_regs *in)
{
	struct user_regs_struct gp;
	struct user_fpregs_struct fp;
	int r;

	r = stub_regs_ptrace(PTRACE_GETREGS, tid, &gp);
	if (r == 0)
		r = stub_regs_ptrace(PTRACE_GETFPREGS, tid, &fp);
	if (r < 0)
		return r;
	stub_regs_to_user(in, &gp, &fp);
	r = stub_regs_ptrace(PTRACE_SETREGS, tid, &gp);
	if (r == 0)
		r = stub_regs_ptrace(PTRACE_SETFPREGS, tid, &fp);
	if (r == 0 && avx && stub_regs_any_ymm(in))
		r = stub_regs_write_ymm(tid, in);
	return r;
}

int stub_regs_get_pc(pid_t tid, uint64_t *pc)
{
	struct user_regs_struct gp;
	int r = stub_regs_ptrace(PTRACE_GETREGS, tid, &gp);

	if (r == 0)
		*pc = gp.rip;
	return r;
}

int stub_regs_set_pc(pid_t tid, uint64_t pc)
{
	struct user_regs_struct gp;
	int r = stub_regs_ptrace(PTRACE_GETREGS, tid, &gp);

	if (r < 0)
		return r;
	gp.rip = pc;
	return stub_regs_ptrace(PTRACE_SETREGS, tid, &gp);
}
