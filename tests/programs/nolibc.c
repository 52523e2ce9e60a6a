/*
 * nolibc.c: a static program without libc, which executes the same
 * instructions natively and under Valgrind (no dynamic loader, no CPUID,
 * nothing that depends on where the stack is): the program the Valgrind
 * recorder's history is checked against an independent single-stepper
 * with, address by address (tests/e2e/t_record_valgrind.sh).
 *
 * Build: cc -O1 -static -nostdlib -fno-stack-protector -fno-builtin
 *        -fno-pie -no-pie nolibc.c
 *
 * It exercises what makes control flow: loops (conditional branches
 * taken and not), direct and indirect calls and jumps (a table of
 * function pointers, a switch compiled to a jump table), recursion
 * (returns deeper than libipt's 64-entry return stack), rep string
 * instructions (one with a small constant count, which VEX unrolls in its
 * superblock, iteration by iteration), syscalls (write, getpid), a signal-free
 * path, and exits with a status computed from all of it.
 */
typedef unsigned long u64;

__asm__(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");

static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static __attribute__((noinline)) u64 fib(u64 n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) u64 deep(u64 n)
{
	return n ? deep(n - 1) + 1 : 0;
}

static __attribute__((noinline)) u64 op_add(u64 a, u64 b) { return a + b; }
static __attribute__((noinline)) u64 op_xor(u64 a, u64 b) { return a ^ b; }
static __attribute__((noinline)) u64 op_mul(u64 a, u64 b) { return a * b + 1; }
static u64 (*const ops[])(u64, u64) = { op_add, op_xor, op_mul };

static __attribute__((noinline)) u64 kind(u64 x)
{
	switch (x % 7) {
	case 0: return x + 11;
	case 1: return x * 3;
	case 2: return x ^ 0x55;
	case 3: return x - 1;
	case 4: return x << 2;
	case 5: return x >> 1;
	default: return 42;
	}
}

static char buf[512];
static char small[8];

static void fill(char *p, int c, u64 n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(c) : "memory");
}

static void copy(char *d, const char *s, u64 n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

void start_c(u64 *sp);

void start_c(u64 *sp)
{
	static const char msg[] = "nolibc: done\n";
	u64 argc = sp[0], acc = argc;

	for (u64 i = 0; i < 200; i++) {
		acc = ops[i % 3](acc, i);
		acc += kind(acc + i);
	}
	acc += fib(12) + deep(100);
	fill(small, 'y', sizeof(small)); /* VEX unrolls it in its superblock */
	fill(buf, 'x', sizeof(buf));
	copy(buf + 256, msg, sizeof(msg) - 1);
	fill(buf, 0, 0);
	acc += (u64)sys3(39, 0, 0, 0) * 0;     /* getpid: a syscall, no result kept */
	sys3(1, 1, (long)(buf + 256), sizeof(msg) - 1);
	sys3(231, (long)(acc & 0x7f), 0, 0);
	for (;;)
		;
}
