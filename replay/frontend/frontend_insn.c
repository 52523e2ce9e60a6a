/*
 * replay/frontend/frontend_insn.c: the code at an address as `hindsight replay`
 * shows it (see frontend_insn.h).
 */
#include "replay/frontend/frontend_insn.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_space.h"
#include "replay/decode/cursor.h"
#include "replay/frontend/frontend.h"
#include "replay/decode/insn.h"
#include "replay/decode/unwind.h"

bool replay_frontend_addr_name(struct replay_frontend *f, uint64_t addr, const char **name,
			       uint64_t *off)
{
	struct replay_symbol sym;

	if (dw_space_msymbol(replay_frontend_space(f), addr, name, off) == 0)
		return true;
	if (f->sym.lookup(f->sym.ctx, addr, &sym) == 0 && sym.function) {
		*name = sym.function;
		*off = addr - sym.start;
		return true;
	}
	return false;
}

void replay_frontend_addr_symbol(struct replay_frontend *f, uint64_t addr, char *buf, size_t size)
{
	const char *name;
	uint64_t off;

	buf[0] = 0;
	if (replay_frontend_addr_name(f, addr, &name, &off))
		snprintf(buf, size, off ? "<%s+%" PRIu64 ">" : "<%s>", name, off);
}

/* Appends " <sym+off>" after the address that ends @text ("... 0x1234"
 * of a branch, "# 0x1234" of a rip-relative operand). */
static void symbolize_tail(struct replay_frontend *f, uint64_t addr, char *text, size_t size)
{
	char name[256];
	size_t len = strlen(text);

	replay_frontend_addr_symbol(f, addr, name, sizeof(name));
	if (name[0])
		snprintf(text + len, size - len, " %s", name);
}

int replay_frontend_insn_text(struct replay_frontend *f, uint64_t addr, char *text, size_t size,
			      unsigned *len, uint8_t *raw)
{
	struct replay_insn in;
	uint8_t buf[16];
	int n = replay_frontend_read(f, addr, buf, sizeof(buf));
	const char *hash;

	if (n <= 0 || replay_insn_decode(&in, buf, (size_t)n, addr, 64) < 0 ||
	    replay_insn_format(&in, 64, REPLAY_SYNTAX_ATT, text, size) < 0)
		return -EIO;
	*len = in.size;
	if (raw)
		memcpy(raw, in.raw, sizeof(in.raw));
	hash = strstr(text, "# 0x");
	if (in.direct && in.kind != REPLAY_INSN_OTHER)
		symbolize_tail(f, in.target, text, size);
	else if (hash)
		symbolize_tail(f, strtoull(hash + 2, NULL, 16), text, size);
	return 0;
}

bool replay_frontend_starts_line(struct replay_frontend *f, uint64_t pc)
{
	return replay_pc_starts_line(&f->sym, pc);
}

bool replay_frontend_here_starts_line(struct replay_frontend *f)
{
	uint64_t pc;

	return replay_cursor_pc(replay_frontend_cursor(f), &pc) == 0 &&
	       replay_frontend_starts_line(f, pc);
}
