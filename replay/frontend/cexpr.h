/*
 * replay/frontend/cexpr.h: C expressions over a recording's past, computed and
 * printed the way GDB 13 does (`print`, `output`, `ptype`, `whatis`,
 * `$N` history), for `hindsight replay`.
 *
 * A struct cexpr is one session's evaluator: it owns the value history,
 * the types an expression makes up (`int *` for `&x`, arrays for `@`),
 * and every value made during one evaluation (freed when the next one
 * starts, except what was copied out or into the history). The program's
 * own types (struct dw_type from dwarf/dw_type.h) are borrowed: they must
 * outlive the cexpr.
 *
 * The world is reached through struct cexpr_env's callbacks (the lead's
 * glue: frames, DWARF lookup, the state log's memory and registers).
 * Errors are negative errnos with GDB's message in cexpr_error():
 * "No symbol \"x\" in current context.", "Cannot access memory at address
 * 0x10", "A syntax error in expression, near `)'.", "Division by zero".
 * Nothing here prints.
 *
 * Not (yet) as GDB: wide characters (wchar_t, L"..."), minimal symbols
 * without debug information ({<text variable, no debug info>}), C++,
 * `set print` settings other than the defaults, ptype/o, print's -options;
 * bytes >= 0x80 in strings are escaped in octal as GDB does in the C
 * locale (under UTF-8 GDB shows valid sequences as they are).
 *
 * Tested: tests/unit/test_cexpr.c gives 800+ commands to `gdb -batch` and
 * to cexpr over the same program and compares every answer.
 */
#ifndef HINDSIGHT_REPLAY_CEXPR_H
#define HINDSIGHT_REPLAY_CEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_type.h"

struct cexpr;

/* What the recording knows of one byte of a value. */
enum cexpr_byte {
	CEXPR_BYTE_KNOWN = 0,
	CEXPR_BYTE_UNAVAILABLE = 1,  /* GDB's <unavailable>: the recording lacks it */
	CEXPR_BYTE_OPTIMIZED_OUT = 2, /* GDB's <optimized out>: the program lacks it */
};

/* Where a value lives. */
enum cexpr_lval {
	CEXPR_NOT_LVAL,     /* computed: a literal, a sum, a DW_OP_stack_value */
	CEXPR_LVAL_MEMORY,  /* at @addr */
	CEXPR_LVAL_REGISTER, /* in register @reg */
};

/* A typed value. Made with the cexpr_value_* constructors below (the
 * environment's lookup makes its answers with them too); owned by the
 * cexpr's current evaluation unless cexpr_eval handed it out. */
struct cexpr_value {
	const struct dw_type *type;
	enum cexpr_lval lval;
	uint64_t addr;           /* LVAL_MEMORY: where it starts */
	char reg[16];            /* LVAL_REGISTER: "rax", "eflags" */
	unsigned bit_size;       /* a bit-field member read out: its width (else 0) */
	unsigned bit_pos;        /* ... its first bit from @addr's byte */
	bool lazy;               /* memory not read yet (bytes NULL) */
	size_t size;             /* bytes */
	uint8_t *bytes;          /* owned: @size bytes, little-endian as the target's */
	uint8_t *state;          /* owned: NULL when every byte is known, else
				  * @size enum cexpr_byte */
	struct cexpr_value *next_in_pool; /* private */
};

/* The world an expression reads: set by the caller, borrowed. Every
 * callback gets @ctx. Callbacks write a one-line message into @err on
 * failures that are not the plain "not found". */
struct cexpr_env {
	void *ctx;
	/* The variable, function or enumerator @name as seen from the current
	 * frame: 0 with *out made by a cexpr_value_* constructor; -ENOENT when
	 * there is none (then "No symbol \"name\" in current context.");
	 * another negative errno with @err set. */
	int (*lookup)(void *ctx, struct cexpr *cx, const char *name,
		      struct cexpr_value **out, char *err, size_t errsize);
	/* The type spelled @name: "int", "unsigned long", "struct node",
	 * "union u", "enum color", "node_t" (a typedef). NULL if unknown
	 * (cexpr then falls back to its own C base types for base names). */
	const struct dw_type *(*type_named)(void *ctx, const char *name);
	/* Reads @len bytes at @addr into @buf. 0 when the bytes exist: @state
	 * (@len bytes, all CEXPR_BYTE_KNOWN on entry) marks those the
	 * recording does not know CEXPR_BYTE_UNAVAILABLE. -EIO when the
	 * address is not mapped ("Cannot access memory at address 0x..."). */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len, uint8_t *state);
	/* The full 64-bit register @name ("rax" .. "r15", "rip", "rsp",
	 * "rbp", "eflags", "cs" .. "gs", "fs_base", "gs_base", "orig_rax"):
	 * 0; -ENOENT if there is no such register; -ENODATA with @err set
	 * when the recording has none here (GDB: "No registers."). */
	int (*reg)(void *ctx, const char *name, uint64_t *value, char *err, size_t errsize);
	/* The symbol GDB would show as <name+off> after the address @addr
	 * (pointers, function pointers, $pc, /a): 0 with "main+4" (or "main"
	 * at offset 0) in @buf; -ENOENT if none. GDB's rule: the ELF symbol
	 * (function or object, any loaded object file) whose [start, start +
	 * size) holds @addr; heap and stack addresses have none. May be NULL. */
	int (*symbol)(void *ctx, uint64_t addr, char *buf, size_t size);
};

/* A new evaluator over @env (borrowed, must outlive it). NULL on ENOMEM. */
struct cexpr *cexpr_new(const struct cexpr_env *env);

/* Frees @cx, its history and every value and type it made. NULL is fine. */
void cexpr_free(struct cexpr *cx);

/* The message of the last failure (GDB's words), "" if none. */
const char *cexpr_error(const struct cexpr *cx);

/* Parses and evaluates @text. 0 with *out a value the caller owns (free
 * it with cexpr_value_free), read from memory already (GDB's print reads
 * it all before printing); -EINVAL for a syntax error or a C type error,
 * -EIO when memory cannot be read, -ENOENT for an unknown name, -EPERM
 * for what a recording cannot do (assignment, ++, calls), with the
 * message in cexpr_error(). */
int cexpr_eval(struct cexpr *cx, const char *text, struct cexpr_value **out);

/* The memory @text names, without reading it (for `watch` and `last`):
 * 0 with its address and length in bytes; -EINVAL "Not an lvalue in
 * memory." when it names none (a register, a computed value, a
 * bit-field gives its bytes), or the errors of cexpr_eval. */
int cexpr_lvalue(struct cexpr *cx, const char *text, uint64_t *addr, uint64_t *len);

/* Parses @text as a type name ("struct node *", "int (*)[3]",
 * "unsigned char"): 0 with *out (borrowed from the environment or @cx);
 * -ENOENT if it is not a type name (no message: it may be an expression);
 * -EINVAL with a message ("No struct type named x.") if it names a type
 * that does not exist. */
int cexpr_parse_type(struct cexpr *cx, const char *text, const struct dw_type **out);
/* The same from inside an evaluation of @cx (a lookup callback): what the
 * evaluation holds is kept (cexpr_parse_type starts afresh, freeing the
 * tree being evaluated); the type lives as long as the evaluation's
 * values. */
int cexpr_parse_type_within(struct cexpr *cx, const char *text, const struct dw_type **out);

/* Values: constructors for the environment's lookup (owned by the current
 * evaluation). NULL on ENOMEM. */
/* The object of type @t at @addr: an lvalue, read when needed. */
struct cexpr_value *cexpr_value_at(struct cexpr *cx, const struct dw_type *t, uint64_t addr);
/* A value of type @t made of @bytes (dw_type_size(@t) of them), @state
 * per byte (NULL: all known), in register @reg (NULL: computed). */
struct cexpr_value *cexpr_value_bytes(struct cexpr *cx, const struct dw_type *t,
				      const void *bytes, const uint8_t *state, const char *reg);
/* A value of type @t whose every byte is @what (CEXPR_BYTE_OPTIMIZED_OUT
 * or CEXPR_BYTE_UNAVAILABLE). */
struct cexpr_value *cexpr_value_missing(struct cexpr *cx, const struct dw_type *t,
					enum cexpr_byte what);

/* Reads @v's bytes when it is lazy (a constructor's lvalue not read yet):
 * 0, or -EIO with GDB's "Cannot access memory at address 0x..." in
 * cexpr_error(). */
int cexpr_value_fetch(struct cexpr *cx, struct cexpr_value *v);
/* A copy of @v the caller owns (a lazy value stays lazy): NULL on ENOMEM. */
struct cexpr_value *cexpr_value_copy(const struct cexpr_value *v);
/* Frees a value cexpr_eval or cexpr_value_copy handed out. NULL is fine. */
void cexpr_value_free(struct cexpr_value *v);

/* The address @v stands for, as GDB's x and break take it: a pointer's or
 * an integer's value, the address of an array or function in memory.
 * 0, or -EINVAL for other values (structs, floats, computed arrays). */
int cexpr_value_address(const struct cexpr_value *v, uint64_t *addr);

/* Sets the convenience variable @name ("$_", "$__", "$_exitcode", with
 * its $) to a copy of @v (read if it was not), as x and the run commands
 * do in GDB; `print $i = 3` sets them too. 0, or -EINVAL if @name is a
 * register or the history, -EIO / -ENOMEM with the message. */
int cexpr_set_convenience(struct cexpr *cx, const char *name, struct cexpr_value *v);

/* Value history. Adds a copy of @v: its number (1, 2, ...), or -ENOMEM. */
int cexpr_history_add(struct cexpr *cx, const struct cexpr_value *v);
/* Entry @n (1-based; borrowed) or NULL; 0 is the last. */
const struct cexpr_value *cexpr_history_get(const struct cexpr *cx, int n);
/* How many values the history holds. */
int cexpr_history_count(const struct cexpr *cx);

/* Printing: each returns a malloc'd string the caller frees, or NULL on
 * ENOMEM. A value not read yet (cexpr_value_at) is read first; if that
 * fails the text is GDB's "<error: Cannot access memory at address
 * 0x10>". @fmt is 0 (natural) or a print format letter: x o d u t c a z
 * s f. cexpr_format_value: what GDB prints after "$N = " for @v. */
char *cexpr_format_value(struct cexpr *cx, const struct cexpr_value *v, char fmt);
/* The same as GDB's `info locals`, `info args` and frame lines show a
 * value: no "(type *) " before a pointer (print shows one). */
char *cexpr_format_value_plain(struct cexpr *cx, const struct cexpr_value *v, char fmt);
/* A function argument in a frame line, as GDB's default `print
 * frame-arguments scalars`: scalars as cexpr_format_value_plain, structs,
 * unions and arrays as "...". */
char *cexpr_format_frame_arg(struct cexpr *cx, const struct cexpr_value *v);
/* `whatis`: the type's name as written ("node_t *", "int [3]"). */
char *cexpr_format_type_name(const struct dw_type *t);
/* `ptype`: @t with the struct, union or enum named at its root spelled out
 * (typedefs resolved one level at the root, as GDB). */
char *cexpr_format_type_full(const struct dw_type *t);

/* Whole commands, as GDB 13 answers them: @args is what follows the
 * command word. Each returns 0 with *out the malloc'd output (no trailing
 * newline; for print "$N = ..."; GDB's warnings first, each a line of its
 * own: "warning: left shift count >= width of type\n$1 = 0"), or a
 * negative errno with the message in cexpr_error(). print records the
 * value in the history; print with no expression shows the last value
 * again (as a new entry); ptype and whatis take a type name or an
 * expression, which they evaluate without reading through pointers. */
int cexpr_cmd_print(struct cexpr *cx, const char *args, char **out);
int cexpr_cmd_output(struct cexpr *cx, const char *args, char **out);
int cexpr_cmd_ptype(struct cexpr *cx, const char *args, char **out);
int cexpr_cmd_whatis(struct cexpr *cx, const char *args, char **out);

/* Builtin C types (static): for the environment and for tests. @name is
 * GDB's spelling: "int", "unsigned long", "char", "_Bool", "double",
 * "long double", "void", "int64_t" ... NULL if not one. */
const struct dw_type *cexpr_builtin_type(const char *name);

/* A pointer to @t, made by @cx (deduplicated, lives as long as @cx). */
const struct dw_type *cexpr_pointer_to(struct cexpr *cx, const struct dw_type *t);

#endif
