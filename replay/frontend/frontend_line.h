/*
 * replay/frontend/frontend_line.h: source lines of addresses as GDB 13
 * reads them, for `info line` and `disassemble /s` and `/m`, and the
 * addresses GDB's commands leave in $_ and $__ (x, info line, info
 * breakpoints).
 *
 * GDB does not use the DWARF line table as it is: its reader drops a row
 * of the same file and line as the one before once that line had a
 * nonzero discriminator, ends a file's rows with a line-0 marker where
 * the next file's start, and a line's addresses run to the next entry
 * of any file (dwarf2/read.c, buildsym.c, symtab.c's find_pc_sect_line).
 * This file rebuilds that table for a compilation unit and answers from
 * it. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_LINE_H
#define HINDSIGHT_REPLAY_FRONTEND_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_unit;
struct replay_frontend;

/* A line and its addresses, GDB's symtab_and_line. */
struct replay_frontend_sal {
	const char *file;          /* as GDB shows it; NULL: no line information */
	const char *path;          /* the full path, to read its text */
	unsigned line;
	uint64_t pc, end;          /* the entry's [pc, end); end 0 when unknown */
};

/* GDB's find_pc_line(@addr): 0 with *@out, or -ENOENT (no line
 * information: out->file NULL, out->pc @addr), -ENOMEM. */
int replay_frontend_line_at(struct replay_frontend *f, uint64_t addr,
			    struct replay_frontend_sal *out);

/* The same over the rows of unit @u (dwarf/dw_unit.h, lines loaded) at
 * load bias @bias: the table's rules alone, for tests. 0, -ENOENT, -ENOMEM. */
int replay_frontend_unit_line(const struct dw_unit *u, uint64_t bias, uint64_t addr,
			      struct replay_frontend_sal *out);

/* What `info line` says of a location. */
enum replay_frontend_info_line_kind {
	REPLAY_INFO_LINE_RANGE,    /* "Line L of "F" starts at address S and ends at E." */
	REPLAY_INFO_LINE_EMPTY,    /* "Line L of "F" is at address S but contains no code." */
	REPLAY_INFO_LINE_NO_INFO,  /* "No line number information available for address A" */
	REPLAY_INFO_LINE_OUT_OF_RANGE, /* "Line number L is out of range for "F"." */
};

struct replay_frontend_info_line {
	enum replay_frontend_info_line_kind kind;
	const char *file;
	unsigned line;
	uint64_t start, end;       /* RANGE, EMPTY (start); NO_INFO: start is the address */
};

/* `info line *@addr` (and FUNC, at its entry address). 0, or -ENOMEM. */
int replay_frontend_info_line_addr(struct replay_frontend *f, uint64_t addr,
				   struct replay_frontend_info_line *out);
/* `info line [FILE:]LINE`: @file NULL for the file of the current pc.
 * 0, -ENOENT (no such file: GDB's "No source file named FILE."), -ENOMEM. */
int replay_frontend_info_line_file(struct replay_frontend *f, const char *file, unsigned line,
				   struct replay_frontend_info_line *out);

/* One piece of `disassemble /s` or `/m`: an empty line, a file name line
 * ("FILE:"), source lines @first..@last of @path (none when @first is 0),
 * GDB's "--- no source info for this pc ---", the instructions [@lo, @hi),
 * an empty line. */
struct replay_frontend_src_chunk {
	bool blank_before;
	const char *header;        /* "prog.c", "unknown", or NULL */
	const char *file;          /* as GDB shows it (for a source not found) */
	const char *path;
	unsigned first, last;
	bool no_source;
	uint64_t lo, hi;
	bool blank_after;
};

/* The pieces of `disassemble /s` (@old_m false) or `/m` of [@lo, @hi),
 * as GDB 13's do_mixed_source_and_assembly and its _deprecated twin lay
 * them out; without line information at @lo, one piece of instructions
 * (GDB then disassembles plainly). The array is the caller's to free.
 * 0, -ENOMEM, or -EIO with *@bad the instruction /s could not read (GDB
 * reads them all before it prints). */
int replay_frontend_disas_source(struct replay_frontend *f, uint64_t lo, uint64_t hi, bool old_m,
				 struct replay_frontend_src_chunk **out, size_t *n, uint64_t *bad);

/* $_ to (void *) @addr, as info line and info breakpoints leave it. 0 or
 * -ENOMEM. */
int replay_frontend_set_last_address(struct replay_frontend *f, uint64_t addr);
/* After x: $_ to (intN_t *) @addr, the last unit examined (@size bytes),
 * $__ to its contents @bytes (NULL: void, as after x/s and x/i). 0 or
 * -ENOMEM. */
int replay_frontend_set_examined(struct replay_frontend *f, uint64_t addr, unsigned size,
				 const void *bytes);

#endif
