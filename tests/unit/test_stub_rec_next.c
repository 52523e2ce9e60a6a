/*
 * tests/unit/test_stub_rec_next.c: where an instruction goes, told before it
 * runs (stub/recorders/stub_rec_next.h), the check behind every recorded step. Jcc
 * conditions are compared with this CPU's own SETcc over every combination
 * of the five flags; branches are decoded from their bytes, with memory
 * operands read from this process through /proc/self/mem.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include <cmocka.h>

#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_rec_next.h"

#define SETCC(cc, op)                                                          \
	case cc:                                                               \
		__asm__ volatile("lea -128(%%rsp), %%rsp\n\t" /* red zone */  \
				 "push %1\n\tpopfq\n\t" op " %0\n\t"          \
				 "lea 128(%%rsp), %%rsp"                       \
				 : "=q"(r) : "r"(fl) : "cc", "memory");        \
		break

/* SETcc @cc run by this CPU with @fl in RFLAGS. */
static bool cpu_cc(unsigned cc, uint64_t fl)
{
	uint8_t r = 0;

	switch (cc) {
	SETCC(0, "seto"); SETCC(1, "setno"); SETCC(2, "setb"); SETCC(3, "setae");
	SETCC(4, "sete"); SETCC(5, "setne"); SETCC(6, "setbe"); SETCC(7, "seta");
	SETCC(8, "sets"); SETCC(9, "setns"); SETCC(10, "setp"); SETCC(11, "setnp");
	SETCC(12, "setl"); SETCC(13, "setge"); SETCC(14, "setle"); SETCC(15, "setg");
	}
	return r;
}

static void test_cc_against_cpu(void **state)
{
	static const uint64_t bit[5] = { 1u << 0, 1u << 2, 1u << 6, 1u << 7, 1u << 11 };
	(void)state;

	for (unsigned m = 0; m < 32; m++) {
		uint64_t fl = 0x202;       /* IF and the reserved bit 1 */

		for (int b = 0; b < 5; b++)
			if (m & (1u << b))
				fl |= bit[b];
		for (unsigned cc = 0; cc < 16; cc++)
			if (stub_rec_cc_holds(cc, fl) != cpu_cc(cc, fl))
				fail_msg("cc %u with flags %#llx: %d, the CPU says %d", cc,
					 (unsigned long long)fl, stub_rec_cc_holds(cc, fl),
					 cpu_cc(cc, fl));
	}
}

static ZydisDecoder dec;
static int mem_fd;

/* Where @bytes at @ip go with @regs: 1 and *@out, or 0. */
static int next_of(const uint8_t *bytes, size_t len, uint64_t ip,
		   const struct user_regs_struct *regs, uint64_t *out)
{
	struct stub_rec_insn insn;

	assert_int_equal(stub_rec_insn_decode(&dec, bytes, len, ip, &insn), 0);
	return stub_rec_next(&dec, &insn, regs, mem_fd, out);
}

static void expect_next(const uint8_t *bytes, size_t len, uint64_t ip,
			const struct user_regs_struct *regs, uint64_t want)
{
	uint64_t got = 0;

	assert_int_equal(next_of(bytes, len, ip, regs, &got), 1);
	assert_int_equal(got, want);
}

static void test_branches(void **state)
{
	struct user_regs_struct r;
	static const uint8_t jne[] = { 0x75, 0x05 }, loop[] = { 0xe2, 0xfe };
	static const uint8_t jecxz[] = { 0x67, 0xe3, 0x10 }, jrcxz[] = { 0xe3, 0x10 };
	static const uint8_t jg32[] = { 0x0f, 0x8f, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t call[] = { 0xe8, 0xfb, 0xff, 0xff, 0xff };
	static const uint8_t jmp8[] = { 0xeb, 0x80 }, mov[] = { 0x48, 0x89, 0xd8 };
	static const uint8_t jmprax[] = { 0xff, 0xe0 }, callr11[] = { 0x41, 0xff, 0xd3 };
	(void)state;

	memset(&r, 0, sizeof(r));
	r.eflags = 0x202;
	expect_next(jne, 2, 0x1000, &r, 0x1007);          /* ZF = 0: taken */
	r.eflags |= 0x40;
	expect_next(jne, 2, 0x1000, &r, 0x1002);
	r.eflags = 0x202;                                  /* jg: ZF = 0, SF = OF */
	expect_next(jg32, 6, 0x1000, &r, 0x1106);
	r.eflags |= 0x80;                                  /* SF != OF */
	expect_next(jg32, 6, 0x1000, &r, 0x1006);
	r.rcx = 5;                                         /* loop: rcx - 1 != 0 */
	expect_next(loop, 2, 0x2000, &r, 0x2000);
	r.rcx = 1;
	expect_next(loop, 2, 0x2000, &r, 0x2002);
	r.rcx = 0x100000000ull;                            /* ecx = 0, rcx != 0 */
	expect_next(jecxz, 3, 0x3000, &r, 0x3013);
	expect_next(jrcxz, 2, 0x3000, &r, 0x3002);
	expect_next(call, 5, 0x4000, &r, 0x4000);
	expect_next(jmp8, 2, 0x5000, &r, 0x5000 + 2 - 0x80);
	expect_next(mov, 3, 0x6000, &r, 0x6003);
	r.rax = 0xdeadbeef000;
	expect_next(jmprax, 2, 0x7000, &r, 0xdeadbeef000);
	r.r11 = 0x1234;
	expect_next(callr11, 3, 0x7000, &r, 0x1234);
}

static void test_through_memory(void **state)
{
	static volatile uint64_t slot = 0x7f0011223344ull;
	struct user_regs_struct r;
	uint64_t at = (uint64_t)(uintptr_t)&slot, got = 0;
	static const uint8_t ret[] = { 0xc3 }, ret8[] = { 0xc2, 0x08, 0x00 };
	static const uint8_t callrip[] = { 0xff, 0x15, 0x10, 0x00, 0x00, 0x00 };
	static const uint8_t jmpidx[] = { 0xff, 0x24, 0xc5, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t syscall_[] = { 0x0f, 0x05 }, iret[] = { 0x48, 0xcf };
	(void)state;

	memset(&r, 0, sizeof(r));
	r.rsp = at;
	expect_next(ret, 1, 0x1000, &r, slot);
	expect_next(ret8, 3, 0x1000, &r, slot);
	/* call *0x10(%rip), the slot 0x10 bytes past its end */
	expect_next(callrip, 6, at - 0x16, &r, slot);
	/* jmp *0x0(,%rax,8) */
	r.rax = at / 8;
	assert_int_equal(at % 8, 0);
	expect_next(jmpidx, 7, 0x1000, &r, slot);
	/* Not predicted: syscall (a kernel entry) and iretq (far). */
	assert_int_equal(next_of(syscall_, 2, 0x1000, &r, &got), 0);
	assert_int_equal(next_of(iret, 2, 0x1000, &r, &got), 0);
	/* A return through unreadable memory faults: not predicted. */
	r.rsp = 8;
	assert_int_equal(next_of(ret, 1, 0x1000, &r, &got), 0);
}

static void test_cpuid_flagged(void **state)
{
	static const uint8_t cpuid[] = { 0x0f, 0xa2 }, rdtsc[] = { 0x0f, 0x31 };
	struct stub_rec_insn insn;
	(void)state;

	assert_int_equal(stub_rec_insn_decode(&dec, cpuid, 2, 0x1000, &insn), 0);
	assert_true(insn.cpuid);
	assert_int_equal(insn.len, 2);
	assert_int_equal(stub_rec_insn_decode(&dec, rdtsc, 2, 0x1000, &insn), 0);
	assert_false(insn.cpuid);
}

static int setup(void **state)
{
	(void)state;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -1;
	mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	return mem_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	close(mem_fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cc_against_cpu),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_through_memory),
		cmocka_unit_test(test_cpuid_flagged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
