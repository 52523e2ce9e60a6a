/*
 * symgap.c: code no sized symbol covers, for tests/e2e/t_replay_symgap.sh.
 * gapfn is written in top-level asm; its .size covers its first byte only,
 * so the rest of its code (the call of leaf, the return) has no symbol, as
 * the static functions of a stripped program have none: GDB names those
 * addresses "??". The asm has CFI so that both unwind through it.
 */
#include <stdio.h>

__asm__(".text\n"
	".globl gapfn\n"
	".type gapfn, @function\n"
	"gapfn:\n"
	".cfi_startproc\n"
	"	nop\n"
	".size gapfn, 1\n"
	"	push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_offset %rbx, -16\n"
	"	call leaf\n"
	"	pop %rbx\n"
	".cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	".cfi_endproc\n");

int gapfn(int x);

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	printf("%d\n", gapfn(4));
	return 0;
}
