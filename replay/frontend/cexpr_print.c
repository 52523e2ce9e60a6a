/*
 * replay/frontend/cexpr_print.c: values as GDB 13 prints them with its default
 * settings: integers, chars (65 'A'), bool, enums (flag enums as
 * (A | B | unknown: 0x8)), floats (%g with 9, 17 or 21 digits), pointers
 * ((int *) 0x... <sym>, char pointers with their string, function
 * pointers), arrays with <repeats N times> (runs over 10) and the
 * 200-element limit, char arrays as strings, structs and unions,
 * <optimized out> and <unavailable>, and the print formats x o d u t c a
 * z s f on scalars and inside aggregates.
 */
#include "replay/frontend/cexpr_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT_THRESHOLD 10
#define PRINT_MAX 200

/* @v's part of type @t at byte @off, without copying (for printing). */
static struct cexpr_value sub(const struct cexpr_value *v, const struct dw_type *t, uint64_t off)
{
	struct cexpr_value s = { .type = t, .lval = v->lval, .addr = v->addr + off };
	uint64_t size = dw_type_size(t);

	s.size = off + size <= v->size ? size : (off < v->size ? v->size - off : 0);
	s.bytes = v->bytes ? v->bytes + (off < v->size ? off : 0) : NULL;
	s.state = v->state ? v->state + (off < v->size ? off : 0) : NULL;
	return s;
}

static void print_wchar(struct cx_buf *b, unsigned c, char quote)
{
	static const char esc[] = "\a\b\f\n\r\t\v", let[] = "abfnrtv";
	const char *e = c && c < 0x80 ? strchr(esc, (int)c) : NULL;

	if (c >= 0x20 && c < 0x7f) {
		if (c == (unsigned)quote || c == '\\')
			cx_putn(b, "\\", 1);
		cx_printf(b, "%c", (char)c);
	} else if (e) {
		cx_printf(b, "\\%c", let[e - esc]);
	} else {
		cx_printf(b, "\\%03o", c & 0xff);
	}
}

void cx_print_char(struct cx_buf *b, unsigned c, char quote)
{
	cx_putn(b, &quote, 1);
	print_wchar(b, c, quote);
	cx_putn(b, &quote, 1);
}

/* GDB's generic_printstr for 1-byte characters. */
static void print_string(struct cx_buf *b, const uint8_t *s, size_t len, bool force_ellipses)
{
	enum { START, SINGLE, REPEAT } last = START;
	size_t i = 0, shown = 0;

	if (!force_ellipses && len > 0 && s[len - 1] == 0)
		len--;
	if (len == 0) {
		cx_puts(b, "\"\"");
		return;
	}
	while (i < len && shown < PRINT_MAX) {
		size_t reps = 1;

		while (i + reps < len && s[i + reps] == s[i])
			reps++;
		if (reps > REPEAT_THRESHOLD) {
			if (last == SINGLE)
				cx_puts(b, "\"");
			if (last != START)
				cx_puts(b, ", ");
			cx_puts(b, "'");
			print_wchar(b, s[i], '"');
			cx_printf(b, "' <repeats %zu times>", reps);
			last = REPEAT;
		} else {
			if (last != SINGLE)
				cx_puts(b, last == START ? "\"" : ", \"");
			for (size_t k = 0; k < reps; k++)
				print_wchar(b, s[i], '"');
			last = SINGLE;
		}
		i += reps;
		shown += reps;
	}
	if (last == SINGLE)
		cx_puts(b, "\"");
	if (force_ellipses || i < len)
		cx_puts(b, "...");
}

static void print_symbol(struct cexpr *cx, struct cx_buf *b, uint64_t addr)
{
	char sym[256];

	if (cx->env.symbol && cx->env.symbol(cx->env.ctx, addr, sym, sizeof(sym)) == 0)
		cx_printf(b, " <%s>", sym);
}

/* Reads up to @len bytes at @addr: how many could be read (all at once,
 * else one by one up to the first that cannot). */
static size_t read_some(struct cexpr *cx, uint64_t addr, uint8_t *buf, uint8_t *st, size_t len)
{
	size_t n;

	memset(st, 0, len);
	if (cx->env.read(cx->env.ctx, addr, buf, len, st) == 0)
		return len;
	memset(st, 0, len);
	for (n = 0; n < len; n++)
		if (cx->env.read(cx->env.ctx, addr + n, buf + n, 1, st + n) < 0)
			break;
	return n;
}

/* The string a char pointer points to, as GDB's val_print_string: up to
 * 200 characters, "..." when more follow, <error: ...> where memory ends. */
static void print_pointed_string(struct cexpr *cx, struct cx_buf *b, uint64_t addr)
{
	uint8_t buf[PRINT_MAX + 1], st[PRINT_MAX + 1];
	size_t got = 0, n, lim;
	bool nul = false, more = false, ioerr = false;
	int missing = 0;

	/* Chunks that end at 64-byte boundaries: the page a string ends on
	 * may be the last one mapped. */
	while (got < PRINT_MAX + 1) {
		size_t want = 64 - ((addr + got) & 63), chunk;

		if (want > PRINT_MAX + 1 - got)
			want = PRINT_MAX + 1 - got;
		chunk = read_some(cx, addr + got, buf + got, st + got, want);
		got += chunk;
		if (chunk < want || memchr(buf, 0, got))
			break;
	}
	lim = got < PRINT_MAX ? got : PRINT_MAX;
	for (n = 0; n < lim; n++) {
		if (st[n]) {
			missing = st[n];
			break;
		}
		if (!buf[n]) {
			nul = true;
			n++;
			break;
		}
	}
	if (!missing && !nul && n == PRINT_MAX)
		more = got > PRINT_MAX && !st[PRINT_MAX] && buf[PRINT_MAX];
	else if (!missing && !nul)
		ioerr = true;
	cx_puts(b, " ");
	if (n > 0 || (!missing && !ioerr))
		print_string(b, buf, n, more);
	if (ioerr)
		cx_printf(b, "<error: Cannot access memory at address 0x%" PRIx64 ">", addr + n);
	else if (missing)
		cx_puts(b, "<error: value is not available>");
}

/* Is @t (through const and volatile only) the base type named "char"? */
static bool plain_char(const struct dw_type *t)
{
	while (t && (t->kind == DW_TYPE_CONST || t->kind == DW_TYPE_VOLATILE))
		t = t->target;
	return t && t->kind == DW_TYPE_BASE && t->name && !strcmp(t->name, "char");
}

static void print_pointer(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
			  bool top)
{
	const struct dw_type *t = dw_type_strip(v->type);
	const struct dw_type *target = dw_type_strip(t->target);
	uint64_t addr = cx_extract(v->bytes, v->size, false);
	bool text = target && cx_is_char(target);

	const struct dw_type *cv = v->type;

	while (cv->kind == DW_TYPE_CONST || cv->kind == DW_TYPE_VOLATILE)
		cv = cv->target;
	if (top && !(cv->kind == DW_TYPE_POINTER && plain_char(t->target))) {
		cx_puts(b, "(");
		cx_print_type_name(b, v->type, "");
		cx_puts(b, ") ");
	}
	cx_printf(b, "0x%" PRIx64, addr);
	print_symbol(cx, b, addr);
	if (text && addr)
		print_pointed_string(cx, b, addr);
}

static void print_float(struct cx_buf *b, const uint8_t *p, size_t size)
{
	long double x = cx_extract_float(p, size);
	int digits = size == 4 ? 9 : size == 8 ? 17 : 21;

	if (isnan(x)) {
		uint64_t bits = cx_extract(p, size < 8 ? size : 8, false);
		/* x87's 80 bits: the whole significand, its integer bit too. */
		uint64_t mask = size == 4 ? 0x7fffff : size == 8 ? 0xfffffffffffffull : ~0ull;
		uint64_t mant = bits & mask;

		cx_printf(b, "%snan(0x%" PRIx64 ")", signbit(x) ? "-" : "", mant);
	} else if (isinf(x)) {
		cx_puts(b, x < 0 ? "-inf" : "inf");
	} else {
		cx_printf(b, "%.*Lg", digits, x);
	}
}

static void print_enum(struct cx_buf *b, const struct dw_type *t, uint64_t x)
{
	bool flags = true, first = true;
	uint64_t mask = 0;

	for (size_t i = 0; i < t->nenumerators; i++)
		if ((uint64_t)t->enumerators[i].value == x) {
			cx_puts(b, t->enumerators[i].name);
			return;
		}
	for (size_t i = 0; i < t->nenumerators; i++) {
		int64_t e = t->enumerators[i].value;

		if (e < 0 || __builtin_popcountll((uint64_t)e) > 1 || (mask & (uint64_t)e))
			flags = false;
		mask |= (uint64_t)e;
	}
	if (!flags) {
		cx_printf(b, "%" PRId64, (int64_t)x);
		return;
	}
	for (size_t i = 0; i < t->nenumerators; i++) {
		uint64_t e = (uint64_t)t->enumerators[i].value;

		if (x & e) {
			cx_puts(b, first ? "(" : " | ");
			cx_puts(b, t->enumerators[i].name);
			x &= ~e;
			first = false;
		}
	}
	if (x)
		cx_printf(b, "%sunknown: 0x%" PRIx64 ")", first ? "(" : " | ", x);
	else
		cx_puts(b, first ? "0" : ")");
}

static void print_eflags(struct cx_buf *b, uint64_t x)
{
	cx_puts(b, "[");
	for (size_t i = 0; i < cx_eflags_type.nenumerators; i++)
		if (x & (uint64_t)cx_eflags_type.enumerators[i].value)
			cx_printf(b, " %s", cx_eflags_type.enumerators[i].name);
	cx_puts(b, " ]");
}

static void print_binary(struct cx_buf *b, uint64_t x)
{
	char tmp[65];
	int n = 64;

	tmp[64] = 0;
	do {
		tmp[--n] = '0' + (x & 1);
		x >>= 1;
	} while (x);
	cx_puts(b, tmp + n);
}

/* A scalar in format @fmt (not 0, s or r). */
static void print_formatted(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
			    char fmt)
{
	size_t n = v->size < 8 ? v->size : 8;
	uint64_t raw = cx_extract(v->bytes, n, false), mask = n == 8 ? ~0ull : (1ull << n * 8) - 1;
	int64_t sgn = (int64_t)cx_extract(v->bytes, n, true);

	if (v->size > 8 && fmt == 'x') {
		size_t top = cx_is_float(v->type) && v->size == 16 ? 10 : v->size;

		while (top > 1 && !v->bytes[top - 1])
			top--;
		cx_printf(b, "0x%x", v->bytes[top - 1]);
		while (--top)
			cx_printf(b, "%02x", v->bytes[top - 1]);
		return;
	}
	switch (fmt) {
	case 'x': cx_printf(b, "0x%" PRIx64, raw); break;
	case 'z': cx_printf(b, "0x%0*" PRIx64, (int)n * 2, raw); break;
	case 'o': cx_printf(b, raw ? "0%" PRIo64 : "%" PRIo64, raw); break;
	case 't': print_binary(b, raw); break;
	case 'd': cx_printf(b, "%" PRId64, sgn); break;
	case 'u': cx_printf(b, "%" PRIu64, raw & mask); break;
	case 'a':
		if (cx_is_float(v->type))  /* GDB takes a float's value as the address */
			raw = cx_as_int(v);
		cx_printf(b, "0x%" PRIx64, raw);
		print_symbol(cx, b, raw);
		break;
	case 'c': {
		uint64_t x = cx_as_int(v) & 0xff;
		bool uns = !cx_is_signed(v->type);

		cx_printf(b, "%d ", uns ? (int)x : (int)(int8_t)x);
		cx_print_char(b, (unsigned)x, '\'');
		break;
	}
	case 'f':
		if (cx_is_float(v->type) || v->size == 4 || v->size == 8)
			print_float(b, v->bytes, v->size);
		else
			cx_printf(b, "%" PRId64, cx_is_signed(v->type) ? sgn : (int64_t)raw);
		break;
	default: cx_printf(b, "%" PRId64, sgn); break;
	}
}

static void print_base(struct cx_buf *b, const struct cexpr_value *v)
{
	const struct dw_type *t = dw_type_strip(v->type);
	uint64_t x = cx_extract(v->bytes, v->size, cx_is_signed(t));

	if (t->enc == DW_ENC_FLOAT) {
		print_float(b, v->bytes, v->size);
	} else if (t->enc == DW_ENC_BOOL) {
		if (x <= 1)
			cx_puts(b, x ? "true" : "false");
		else
			cx_printf(b, "%" PRIu64, x);
	} else if (cx_is_char(t)) {
		cx_printf(b, "%d ", (int)(int64_t)x);
		cx_print_char(b, (unsigned)(x & 0xff), '\'');
	} else if (cx_is_signed(t)) {
		cx_printf(b, "%" PRId64, (int64_t)x);
	} else {
		cx_printf(b, "%" PRIu64, x);
	}
}

static bool same_element(const struct cexpr_value *v, size_t a, size_t c, size_t esize)
{
	if (memcmp(v->bytes + a, v->bytes + c, esize))
		return false;
	return !v->state || !memcmp(v->state + a, v->state + c, esize);
}

static void print_array(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
			char fmt)
{
	const struct dw_type *t = dw_type_strip(v->type);
	uint64_t esize = dw_type_size(t->target), count = esize ? v->size / esize : t->count;
	uint64_t i, things = 0;
	bool code = dw_type_strip(t->target)->kind == DW_TYPE_FUNCTION;

	if (!t->count_known) {
		/* GDB shows an array of unknown bounds by its address, and the
		 * symbol there (a flexible array member ends its struct:
		 * whatever follows it in memory). */
		cx_printf(b, "0x%" PRIx64, v->addr);
		print_symbol(cx, b, v->addr);
		if (cx_is_char(t->target) && (!fmt || fmt == 's'))
			print_pointed_string(cx, b, v->addr);
		return;
	}
	if (cx_is_char(t->target) && (!fmt || fmt == 's') && !cx_missing(v, 0, v->size)) {
		print_string(b, v->bytes, v->size, false);
		return;
	}
	cx_puts(b, "{");
	for (i = 0; i < count && things < PRINT_MAX; i++) {
		struct cexpr_value e = sub(v, t->target, i * (code ? 1 : esize));
		uint64_t reps = 1;

		while (esize && i + reps < count &&
		       same_element(v, i * esize, (i + reps) * esize, esize))
			reps++;
		if (i)
			cx_puts(b, ", ");
		cx_print_value(cx, b, &e, fmt, false);
		if (reps > REPEAT_THRESHOLD) {
			cx_printf(b, " <repeats %" PRIu64 " times>", reps);
			i += reps - 1;
			things += REPEAT_THRESHOLD;
		} else {
			things++;
		}
	}
	if (i < count)
		cx_puts(b, "...");
	cx_puts(b, "}");
}

static void print_bitfield(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
			   const struct dw_member *m, char fmt)
{
	uint64_t nbytes = (m->bit_offset + m->bit_size + 7) / 8, raw, mask;
	struct cexpr_value f = sub(v, m->type, m->offset);
	uint8_t bytes[8];

	if (nbytes > 8 || m->offset + nbytes > v->size) {
		cx_puts(b, "<bit-field>");
		return;
	}
	raw = cx_extract(v->bytes + m->offset, nbytes, false) >> m->bit_offset;
	mask = m->bit_size >= 64 ? ~0ull : (1ull << m->bit_size) - 1;
	raw &= mask;
	if (cx_is_signed(m->type) && (raw >> (m->bit_size - 1)) & 1)
		raw |= ~mask;
	memcpy(bytes, &raw, 8);
	f.bytes = bytes;
	f.size = f.size > 8 ? 8 : f.size;
	f.state = cx_missing(v, m->offset, nbytes) ? v->state + m->offset : NULL;
	cx_print_value(cx, b, &f, fmt, false);
}

static void print_struct(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
			 char fmt)
{
	const struct dw_type *t = dw_type_strip(v->type);

	if (!t->nmembers) {
		cx_puts(b, t->declaration ? "<incomplete type>" : "{<No data fields>}");
		return;
	}
	cx_puts(b, "{");
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct dw_member *m = &t->members[i];
		struct cexpr_value f = sub(v, m->type, m->offset);

		if (i)
			cx_puts(b, ", ");
		if (m->name)
			cx_printf(b, "%s = ", m->name);
		if (m->bit_size)
			print_bitfield(cx, b, v, m, fmt);
		else
			cx_print_value(cx, b, &f, fmt, false);
	}
	cx_puts(b, "}");
}

/* <optimized out> / <unavailable> when @v is that as a whole (or, for a
 * scalar, in part): true if printed. */
static bool print_missing(struct cx_buf *b, const struct cexpr_value *v, bool scalar)
{
	int first = v->size ? cx_missing(v, 0, 1) : 0, any = cx_missing(v, 0, v->size);
	bool whole = first != 0;

	for (size_t i = 1; whole && i < v->size; i++)
		whole = v->state[i] == first;
	if (!whole && scalar && any)
		first = any, whole = true;
	if (!whole)
		return false;
	cx_puts(b, first == CEXPR_BYTE_OPTIMIZED_OUT ? "<optimized out>" : "<unavailable>");
	return true;
}

void cx_print_value(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
		    char fmt, bool top)
{
	const struct dw_type *t = dw_type_strip(v->type);
	bool scalar = t->kind == DW_TYPE_BASE || t->kind == DW_TYPE_ENUM ||
		      t->kind == DW_TYPE_POINTER;

	if (t->kind == DW_TYPE_VOID) {
		cx_puts(b, "void");
		return;
	}
	if (t->kind == DW_TYPE_FUNCTION && fmt && fmt != 's' && fmt != 'r') {
		/* GDB has printed "$N = " when it finds this out. */
		cx_puts(b, "Value can't be converted to integer.");
		return;
	}
	if (t->kind == DW_TYPE_FUNCTION) {
		cx_puts(b, "{");
		cx_print_type_name(b, v->type, "");
		cx_printf(b, "} 0x%" PRIx64, v->addr);
		print_symbol(cx, b, v->addr);
		return;
	}
	if (!v->bytes) {
		cx_puts(b, "<unavailable>");
		return;
	}
	if (print_missing(b, v, scalar))
		return;
	if (fmt == 'r')
		fmt = 0;
	if (scalar && fmt && fmt != 's') {
		print_formatted(cx, b, v, fmt);
		return;
	}
	switch (t->kind) {
	case DW_TYPE_BASE:
		print_base(b, v);
		break;
	case DW_TYPE_ENUM:
		if (t == &cx_eflags_type)
			print_eflags(b, cx_extract(v->bytes, v->size, false));
		else
			print_enum(b, t, cx_extract(v->bytes, v->size, t->enc == DW_ENC_SIGNED));
		break;
	case DW_TYPE_POINTER:
		print_pointer(cx, b, v, top);
		break;
	case DW_TYPE_ARRAY:
		print_array(cx, b, v, fmt);
		break;
	case DW_TYPE_STRUCT: case DW_TYPE_UNION:
		print_struct(cx, b, v, fmt);
		break;
	default:
		cx_puts(b, "<unknown type>");
	}
}

/* Prints @v, read first if it was not. */
static char *format(struct cexpr *cx, const struct cexpr_value *v, char fmt, bool top)
{
	struct cx_buf b = { 0 };
	struct cexpr_value *copy = NULL;

	if (v->lazy) {
		copy = cexpr_value_copy(v);
		if (!copy)
			return NULL;
		if (cx_fetch(cx, copy) < 0) {
			cx_printf(&b, "<error: %s>", cx->err);
			cexpr_value_free(copy);
			return cx_buf_take(&b);
		}
		v = copy;
	}
	cx_print_value(cx, &b, v, fmt, top);
	cexpr_value_free(copy);
	return cx_buf_take(&b);
}

char *cexpr_format_value(struct cexpr *cx, const struct cexpr_value *v, char fmt)
{
	return format(cx, v, fmt, true);
}

char *cexpr_format_value_plain(struct cexpr *cx, const struct cexpr_value *v, char fmt)
{
	return format(cx, v, fmt, false);
}

char *cexpr_format_frame_arg(struct cexpr *cx, const struct cexpr_value *v)
{
	const struct dw_type *t = dw_type_strip(v->type);

	if (t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION || t->kind == DW_TYPE_ARRAY)
		return strdup("...");
	return cexpr_format_value_plain(cx, v, 0);
}
