/*
 * cli/cli_replay_disas.c: `hindsight replay`'s disassemble as GDB 13
 * prints it ("Dump of assembler code for function main:", "=> " at the
 * selected frame's pc, <+off> after each address, /r raw bytes), over
 * the recording's memory at the current time and Zydis's AT&T printer
 * (replay/insn.h); and the instruction line x/i and display/i share.
 */
#include "cli/cli_replay_disas.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_space.h"
#include "replay/dwarf_symbols.h"
#include "replay/frontend.h"
#include "replay/insn.h"

void cli_replay_addr_symbol(struct cli_session *s, uint64_t addr, char *buf, size_t size)
{
	struct replay_symbol sym;
	const char *name;
	uint64_t off;

	buf[0] = 0;
	if (dw_space_msymbol(replay_dwarf_symbols_space(s->f->ds), addr, &name, &off) == 0) {
		snprintf(buf, size, off ? "<%s+%" PRIu64 ">" : "<%s>", name, off);
		return;
	}
	if (s->f->sym.lookup(s->f->sym.ctx, addr, &sym) == 0 && sym.function)
		snprintf(buf, size, addr == sym.start ? "<%s>" : "<%s+%" PRIu64 ">",
			 sym.function, addr - sym.start);
}

/* Appends " <sym+off>" after the address that ends @text ("... 0x1234"
 * of a branch, "# 0x1234" of a rip-relative operand). */
static void symbolize_tail(struct cli_session *s, uint64_t addr, char *text, size_t size)
{
	char name[256];
	size_t len = strlen(text);

	cli_replay_addr_symbol(s, addr, name, sizeof(name));
	if (name[0])
		snprintf(text + len, size - len, " %s", name);
}

int cli_replay_insn_text(struct cli_session *s, uint64_t addr, char *text, size_t size,
			 unsigned *len, uint8_t *raw)
{
	struct replay_insn in;
	uint8_t buf[16];
	int n = replay_frontend_read(s->f, addr, buf, sizeof(buf));
	const char *hash;

	if (n <= 0 || replay_insn_decode(&in, buf, (size_t)n, addr, 64) < 0 ||
	    replay_insn_format(&in, 64, REPLAY_SYNTAX_ATT, text, size) < 0)
		return -EIO;
	*len = in.size;
	if (raw)
		memcpy(raw, in.raw, sizeof(in.raw));
	hash = strstr(text, "# 0x");
	if (in.direct && in.kind != REPLAY_INSN_OTHER)
		symbolize_tail(s, in.target, text, size);
	else if (hash)
		symbolize_tail(s, strtoull(hash + 2, NULL, 16), text, size);
	return 0;
}
