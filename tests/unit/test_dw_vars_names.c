/* Tests of dwarf/dw_vars.h's names (dw_vars_names.c) and dw_types.c against
 * GDB on the file: build/tests/programs/cvars (-O0), cvars_O2 (-O2) and
 * cvars_O2_dwarf4 (-O2 -gdwarf-4), all of tests/programs/cvars.c. Globals
 * (addresses, sizes, enumerators), types (`ptype/o`: member names,
 * offsets, bit positions, sizes; array counts) and functions (addresses,
 * parameter counts) are compared with one GDB session on the file; the
 * shapes GDB prints in no one number, an opaque type completed from
 * another unit, and the same answers through a space at a bias. Scopes at
 * a pc are test_dw_vars.c's. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dwarf/dw_image.h"
#include "dwarf/dw_loc.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_vars.h"

#include "dw_vars_testlib.h"

/* --- globals, types and functions against GDB on the file --- */

static const char *const globals[] = {
	"g_int", "s_counter", "g_str", "g_point", "g_points", "g_word", "g_color", "g_small",
	"g_matrix", "g_buf", "g_op", "g_flags", "g_list", "g_second", "g_cheap",
	"g_typedef_point", "g_cstr", "g_ulong", "g_long", "g_short", "g_uchar", "g_schar",
	"g_float", "g_double", "g_ldouble", "g_bool", "g_intp", "g_voidp", "g_cv", "g_marker",
	"g_jmp", "g_signals", "k_limit", "k_half", "k_name", "calls", "RED", "GREEN", "BLUE", "S_ZERO", "S_TWO", "no_such_thing",
};
static const char *const structs[] = {
	"struct point", "struct node", "struct flags", "struct cheap", "union word",
};
static const char *const type_names[] = {
	"struct point", "struct node", "struct flags", "struct cheap", "union word", "enum color",
	"enum small", "node_t", "point_t", "cstr_t", "binop_fn", "int", "unsigned long",
	"long unsigned int", "short", "unsigned short", "char", "signed char", "unsigned char",
	"long long", "unsigned long long", "long double", "double", "float", "_Bool",
};
static const char *const functions[] = {
	"main", "walk", "descend", "stop_here_1", "stop_here_7", "add", "scale_clamp", "jumper",
	"on_usr1", "list_build",
};
static const char *const arrays[] = { "g_matrix", "g_matrix[0]", "g_points", "g_buf",
				      "g_cheap.corners", "g_cheap.label" };

static char *gdb_out;
static unsigned c_consts;   /* constants among the globals checked */

/* GDB's answer to @tag (a "@@tag|" line's rest), or NULL. */
static const char *gdb_answer(const char *tag)
{
	static char buf[4096];
	char key[256];
	const char *p;

	snprintf(key, sizeof(key), "@@%s|", tag);
	p = strstr(gdb_out, key);
	if (!p)
		return NULL;
	p += strlen(key);
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* "$1 = 42" → 42. */
static bool gdb_number(const char *s, long long *v)
{
	const char *eq = s ? strstr(s, "= ") : NULL;

	if (!eq || strncmp(s, "ERR", 3) == 0)
		return false;
	*v = strtoll(eq + 2, NULL, 0);
	return true;
}

static void add_query(char **script, size_t *cap, const char *tag, const char *cmd)
{
	size_t n = strlen(*script);

	if (n + strlen(tag) + strlen(cmd) + 256 > *cap) {
		*cap = *cap * 2 + strlen(cmd) + 256;
		*script = realloc(*script, *cap);
		assert_non_null(*script);
	}
	snprintf(*script + n, *cap - n, "hs_q(\"%s\", \"%s\")\n", tag, cmd);
}

/* One GDB session answering every query of the test. */
static void gdb_queries(const char *prog)
{
	size_t cap = 1 << 14;
	char *script = malloc(cap);
	char tag[256], cmd[512];

	assert_non_null(script);
	snprintf(script, cap, "set width 0\npython\nimport gdb\ndef hs_q(tag, cmd):\n"
		 "    try:\n        out = gdb.execute(cmd, to_string=True).strip()\n"
		 "    except gdb.error as e:\n        out = 'ERR ' + str(e)\n"
		 "    print('@@%%s|%%s' %% (tag, out.replace('\\n', '\\\\n')))\n");
	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		snprintf(tag, sizeof(tag), "addr %s", globals[i]);
		snprintf(cmd, sizeof(cmd), "print &%s", globals[i]);
		add_query(&script, &cap, tag, cmd);
		snprintf(tag, sizeof(tag), "size %s", globals[i]);
		snprintf(cmd, sizeof(cmd), "print sizeof(%s)", globals[i]);
		add_query(&script, &cap, tag, cmd);
		snprintf(tag, sizeof(tag), "value %s", globals[i]);
		snprintf(cmd, sizeof(cmd), "print/d %s", globals[i]);
		add_query(&script, &cap, tag, cmd);
	}
	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++) {
		snprintf(tag, sizeof(tag), "ptype %s", structs[i]);
		snprintf(cmd, sizeof(cmd), "ptype/o %s", structs[i]);
		add_query(&script, &cap, tag, cmd);
	}
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		snprintf(tag, sizeof(tag), "tsize %s", type_names[i]);
		snprintf(cmd, sizeof(cmd), "print sizeof(%s)", type_names[i]);
		add_query(&script, &cap, tag, cmd);
	}
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		snprintf(tag, sizeof(tag), "faddr %s", functions[i]);
		snprintf(cmd, sizeof(cmd), "print/x (long)&%s", functions[i]);
		add_query(&script, &cap, tag, cmd);
		snprintf(tag, sizeof(tag), "ftype %s", functions[i]);
		snprintf(cmd, sizeof(cmd), "ptype %s", functions[i]);
		add_query(&script, &cap, tag, cmd);
	}
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		snprintf(tag, sizeof(tag), "count %s", arrays[i]);
		snprintf(cmd, sizeof(cmd), "print sizeof(%s)/sizeof(%s[0])", arrays[i], arrays[i]);
		add_query(&script, &cap, tag, cmd);
		snprintf(tag, sizeof(tag), "esize %s", arrays[i]);
		snprintf(cmd, sizeof(cmd), "print sizeof(%s[0])", arrays[i]);
		add_query(&script, &cap, tag, cmd);
	}
	strcat(script, "end\n");
	free(gdb_out);
	gdb_out = gdb_run(prog, script);
	free(script);
}

/* An enum's or integer constant's bytes as a signed number. */
static long long const_value(const struct dw_var *v)
{
	const struct dw_type *t = dw_type_strip(v->type);
	uint64_t u = 0;

	for (size_t i = 0; i < v->nbytes && i < 8; i++)
		u |= (uint64_t)v->bytes[i] << (8 * i);
	if (t && (t->enc == DW_ENC_SIGNED || t->enc == DW_ENC_SIGNED_CHAR) && v->nbytes < 8 &&
	    (u >> (8 * v->nbytes - 1)) & 1)
		u |= ~0ull << (8 * v->nbytes);
	return (long long)u;
}

static void global_check(struct dw_image *img, const char *name)
{
	char tag[256], addr[512];
	const char *hex;
	long long size, value;
	struct dw_var v;
	struct dw_loc loc;
	struct dw_loc_env env = { 0 };
	int rc = dw_image_global(img, 0, name, &v);

	snprintf(tag, sizeof(tag), "addr %s", name);
	assert_non_null(gdb_answer(tag));
	snprintf(addr, sizeof(addr), "%s", gdb_answer(tag));
	if (strstr(addr, "No symbol")) {
		if (rc != -ENOENT)
			fail_msg("%s: GDB does not know it, dw_image_global says %d", name, rc);
		return;
	}
	if (rc != 0)
		fail_msg("%s: GDB: %s; dw_image_global: %d", name, addr, rc);
	snprintf(tag, sizeof(tag), "size %s", name);
	assert_true(gdb_number(gdb_answer(tag), &size));
	if ((long long)dw_type_size(v.type) != size)
		fail_msg("%s: size %llu, GDB %lld", name, (unsigned long long)dw_type_size(v.type), size);
	if (v.where == DW_VAR_OPTIMIZED_OUT) {
		snprintf(tag, sizeof(tag), "value %s", name);
		if (!strstr(gdb_answer(tag), "<optimized out>"))
			fail_msg("%s: optimized out, GDB: %s", name, gdb_answer(tag));
		return;
	}
	if (v.where == DW_VAR_CONST) {
		const struct dw_type *t = dw_type_strip(v.type);

		snprintf(tag, sizeof(tag), "value %s", name);
		assert_int_equal(v.nbytes, dw_type_size(v.type));
		if (t->kind == DW_TYPE_ENUM || (t->kind == DW_TYPE_BASE && t->enc != DW_ENC_FLOAT)) {
			assert_true(gdb_number(gdb_answer(tag), &value));
			assert_int_equal(const_value(&v), value);
		}
		c_consts++;
		return;
	}
	assert_int_equal(v.where, DW_VAR_EXPR);
	assert_int_equal(dw_loc_eval(v.expr, v.exprlen, &env, &loc), 0);
	assert_int_equal(loc.npieces, 1);
	assert_int_equal(loc.pieces[0].kind, DW_LOC_MEMORY);
	hex = gdb_hex(addr);
	if (!hex || strtoull(hex, NULL, 16) != loc.pieces[0].addr)
		fail_msg("%s: at 0x%llx, GDB: %s", name, (unsigned long long)loc.pieces[0].addr, addr);
}

/* A member line of `ptype/o`: offset[: bit] | size, then the declaration. */
struct gmember {
	char name[64];
	long long off, bit, size;
};

/* The last identifier of a C declaration ("struct node *next;" → next). */
static void decl_name(const char *decl, char *out, size_t size)
{
	char d[256];
	char *p;

	snprintf(d, sizeof(d), "%s", decl);
	if ((p = strchr(d, ';')))
		*p = 0;
	if ((p = strstr(d, " : ")))
		*p = 0;
	if ((p = strchr(d, '[')))
		*p = 0;
	p = d + strlen(d);
	while (p > d && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
			 ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z')))
		p--;
	snprintf(out, size, "%.63s", p);
}

/* The top-level members of `ptype/o` output (lines separated by "\n"). */
static size_t ptype_members(const char *text, struct gmember *m, size_t max, long long *total)
{
	size_t n = 0;
	int depth = 0;
	struct gmember pending = { 0 };

	*total = -1;
	for (const char *line = text; line && *line;) {
		const char *end = strstr(line, "\\n");
		char l[512];
		long long a = -1, b = -1, c = -1;
		const char *close;

		snprintf(l, sizeof(l), "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
		line = end ? end + 2 : NULL;
		close = strstr(l, "} ");
		if (depth == 1 && strstr(l, "total size (bytes):"))
			*total = strtoll(strchr(l, ':') + 1, NULL, 10);
		if (strstr(l, "/* XXX") || !strstr(l, "*/")) {
			if (close && depth == 2 && n < max) {
				decl_name(close + 2, pending.name, sizeof(pending.name));
				m[n++] = pending;
			}
			depth -= close != NULL;
			continue;
		}
		if (strstr(l, "type = ")) {
			depth = 1;
			continue;
		}
		if (sscanf(l, "/* %lld: %lld | %lld */", &a, &b, &c) != 3 &&
		    (b = -1, sscanf(l, "/* %lld | %lld */", &a, &c) != 2) &&
		    (a = -1, sscanf(l, "/* %lld */", &c) != 1))
			continue;
		if (depth == 1) {
			struct gmember g = { .off = a < 0 ? 0 : a, .bit = b, .size = c };

			if (l[strlen(l) - 1] == '{') {
				pending = g;
			} else if (n < max) {
				decl_name(strstr(l, "*/") + 2, g.name, sizeof(g.name));
				m[n++] = g;
			}
		}
		if (l[strlen(l) - 1] == '{')
			depth++;
	}
	return n;
}

static void struct_check(struct dw_image *img, const char *name)
{
	struct gmember gm[64];
	char tag[256];
	long long total;
	const struct dw_type *t;
	size_t n;

	snprintf(tag, sizeof(tag), "ptype %s", name);
	n = ptype_members(gdb_answer(tag), gm, 64, &total);
	assert_int_equal(dw_image_type(img, 0, name, &t), 0);
	t = dw_type_strip(t);
	assert_int_equal(t->size, total);
	if (t->nmembers != n)
		fail_msg("%s: %zu members, GDB's ptype/o %zu", name, t->nmembers, n);
	for (size_t i = 0; i < n; i++) {
		const struct dw_member *m = &t->members[i];

		if (strcmp(m->name ? m->name : "", gm[i].name) != 0 ||
		    (long long)m->offset != gm[i].off || (long long)dw_type_size(m->type) != gm[i].size)
			fail_msg("%s member %zu: %s at %llu size %llu, GDB: %s at %lld size %lld", name,
				 i, m->name, (unsigned long long)m->offset,
				 (unsigned long long)dw_type_size(m->type), gm[i].name, gm[i].off,
				 gm[i].size);
		if (gm[i].bit >= 0) {
			assert_true(m->bit_size > 0);
			assert_int_equal(m->bit_offset, gm[i].bit);
		} else {
			assert_int_equal(m->bit_size, 0);
		}
	}
}

/* Parameters in `ptype f`'s "type = int (struct node *, int)". */
static long long gdb_param_count(const char *s)
{
	const char *open = strchr(s, '(');
	long long n = 1;

	assert_non_null(open);
	if (strncmp(open, "(void)", 6) == 0)
		return 0;
	for (const char *p = open; *p && *p != ')'; p++)
		n += *p == ',';
	return n;
}

static void function_check(struct dw_image *img, const char *name)
{
	char tag[256];
	const struct dw_type *t;
	uint64_t entry;
	long long addr;
	int rc = dw_image_function(img, 0, name, &t, &entry);

	snprintf(tag, sizeof(tag), "faddr %s", name);
	if (!gdb_number(gdb_answer(tag), &addr)) {
		if (rc != -ENOENT)
			fail_msg("%s: GDB has no address (%s), we say %d", name, gdb_answer(tag), rc);
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(entry, addr);
	assert_int_equal(t->kind, DW_TYPE_FUNCTION);
	snprintf(tag, sizeof(tag), "ftype %s", name);
	assert_int_equal(t->nparams, gdb_param_count(gdb_answer(tag)));
}

/* An array expression's type: a global, an element of one, a member. */
static const struct dw_type *array_type(struct dw_image *img, const char *expr)
{
	char base[300];
	const char *mem;
	struct dw_var v;
	const struct dw_type *t;

	snprintf(base, sizeof(base), "%.*s", (int)strcspn(expr, ".["), expr);
	assert_int_equal(dw_image_global(img, 0, base, &v), 0);
	t = dw_type_strip(v.type);
	if (strstr(expr, "[0]"))
		t = dw_type_strip(t->target);
	if ((mem = strchr(expr, '.')))
		for (size_t i = 0; i < t->nmembers; i++)
			if (strcmp(t->members[i].name, mem + 1) == 0) {
				t = dw_type_strip(t->members[i].type);
				break;
			}
	assert_int_equal(t->kind, DW_TYPE_ARRAY);
	return t;
}

static void names_against_gdb(const char *name)
{
	const char *prog = prog_path(name);
	struct dw_image *img;
	char tag[256];
	long long v;

	gdb_queries(prog);
	assert_int_equal(dw_image_open(prog, &img), 0);
	c_consts = 0;
	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++)
		global_check(img, globals[i]);
	assert_true(c_consts >= 5); /* the enumerators at least */
	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
		struct_check(img, structs[i]);
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		const struct dw_type *t;

		snprintf(tag, sizeof(tag), "tsize %s", type_names[i]);
		assert_true(gdb_number(gdb_answer(tag), &v));
		assert_int_equal(dw_image_type(img, 0, type_names[i], &t), 0);
		if ((long long)dw_type_size(t) != v)
			fail_msg("sizeof(%s): %llu, GDB %lld", type_names[i],
				 (unsigned long long)dw_type_size(t), v);
	}
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		function_check(img, functions[i]);
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		const struct dw_type *t = array_type(img, arrays[i]);

		snprintf(tag, sizeof(tag), "count %s", arrays[i]);
		assert_true(gdb_number(gdb_answer(tag), &v));
		assert_true(t->count_known);
		assert_int_equal(t->count, v);
		snprintf(tag, sizeof(tag), "esize %s", arrays[i]);
		assert_true(gdb_number(gdb_answer(tag), &v));
		assert_int_equal(dw_type_size(t->target), v);
	}
	dw_image_free(img);
	free(gdb_out);
	gdb_out = NULL;
}

static void test_names_O0(void **state)
{
	(void)state;
	names_against_gdb("cvars");
}

static void test_names_O2(void **state)
{
	(void)state;
	names_against_gdb("cvars_O2");
}

static void test_names_dwarf4(void **state)
{
	(void)state;
	names_against_gdb("cvars_O2_dwarf4");
}

/* The types' shapes GDB does not print in one number: cycles, typedef
 * chains, qualifiers, enum signedness, bit-fields, flexible arrays. */
static void test_type_shapes(void **state)
{
	struct dw_image *img;
	const struct dw_type *t, *u;

	(void)state;
	assert_int_equal(dw_image_open(prog_path("cvars"), &img), 0);
	assert_int_equal(dw_image_type(img, 0, "struct node", &t), 0);
	assert_int_equal(t->kind, DW_TYPE_STRUCT);
	assert_int_equal(t->nmembers, 3);
	u = t->members[2].type; /* struct node *next: the same struct, by pointer */
	assert_int_equal(u->kind, DW_TYPE_POINTER);
	assert_ptr_equal(u->target, t);
	assert_int_equal(t->members[1].type->kind, DW_TYPE_POINTER); /* const char * */
	assert_int_equal(t->members[1].type->target->kind, DW_TYPE_CONST);
	assert_int_equal(dw_type_strip(t->members[1].type->target)->enc, DW_ENC_SIGNED_CHAR);
	assert_int_equal(dw_image_type(img, 0, "node_t", &u), 0);
	assert_int_equal(u->kind, DW_TYPE_TYPEDEF);
	assert_ptr_equal(u->target, t);
	assert_int_equal(dw_image_type(img, 0, "enum color", &t), 0);
	assert_int_equal(t->enc, DW_ENC_SIGNED);
	assert_int_equal(t->nenumerators, 3);
	assert_int_equal(t->enumerators[2].value, -1);
	assert_int_equal(dw_image_type(img, 0, "enum small", &t), 0);
	assert_int_equal(t->enc, DW_ENC_UNSIGNED);
	assert_int_equal(dw_image_type(img, 0, "struct flags", &t), 0);
	assert_int_equal(t->members[2].bit_size, 5); /* signed int delta : 5 */
	assert_int_equal(dw_type_strip(t->members[2].type)->enc, DW_ENC_SIGNED);
	assert_int_equal(dw_image_type(img, 0, "struct cheap", &t), 0);
	u = t->members[t->nmembers - 1].type; /* int tail[] */
	assert_int_equal(u->kind, DW_TYPE_ARRAY);
	assert_false(u->count_known);
	assert_int_equal(dw_image_type(img, 0, "binop_fn", &t), 0);
	u = dw_type_strip(t)->target;
	assert_int_equal(u->kind, DW_TYPE_FUNCTION);
	assert_int_equal(u->nparams, 2);
	assert_true(u->prototyped);
	assert_false(u->varargs);
	assert_int_equal(dw_image_type(img, 0, "unsigned short", &t), 0); /* made up */
	assert_int_equal(t->size, 2);
	assert_int_equal(t->enc, DW_ENC_UNSIGNED);
	assert_int_equal(dw_image_type(img, 0, "struct no_such", &t), -ENOENT);
	assert_int_equal(dw_image_type(img, 0, "unsigned unsigned", &t), -ENOENT);
	dw_image_free(img);
}

/* --- an opaque type, and a space --- */

static const char opaque_a[] =
	"struct opaque;\n"
	"struct opaque *g_opaque;\n"
	"struct opaque *make(void);\n"
	"int main(void) { g_opaque = make(); return 0; }\n";
static const char opaque_b[] =
	"#include <stdlib.h>\n"
	"struct opaque { int a; long b; char c[5]; };\n"
	"struct opaque *make(void) { return calloc(1, sizeof(struct opaque)); }\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

/* a.c knows struct opaque by name only; b.c defines it: GDB and dw_types
 * both give g_opaque the full struct. */
static void test_opaque_type(void **state)
{
	char dir[] = "/tmp/hindsight-dwvars-XXXXXX", path[256], cmd[1024];
	struct dw_image *img;
	struct dw_var v;
	const struct dw_type *t;
	long long size;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.c", dir);
	write_file(path, opaque_a);
	snprintf(path, sizeof(path), "%s/b.c", dir);
	write_file(path, opaque_b);
	snprintf(cmd, sizeof(cmd), "cd %s && gcc -g -O0 a.c b.c -o prog", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/prog", dir);
	gdb_out = gdb_run(path, "python\nimport gdb\nprint('@@size|' + gdb.execute("
			  "'print sizeof(*g_opaque)', to_string=True).strip())\nend\n");
	assert_true(gdb_number(gdb_answer("size"), &size));
	assert_int_equal(size, 24);
	assert_int_equal(dw_image_open(path, &img), 0);
	assert_int_equal(dw_image_global(img, 0, "g_opaque", &v), 0);
	t = dw_type_strip(v.type);
	assert_int_equal(t->kind, DW_TYPE_POINTER);
	t = dw_type_strip(t->target);
	assert_int_equal(t->kind, DW_TYPE_STRUCT);
	assert_false(t->declaration);
	assert_int_equal(t->size, size);
	assert_int_equal(t->nmembers, 3);
	dw_image_free(img);
	free(gdb_out);
	gdb_out = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Through a space at a made-up bias: the same answers, moved. */
static void test_space(void **state)
{
	const char *prog = prog_path("cvars");
	const uint64_t bias = 0x555555554000ull;
	struct dw_image *img;
	struct dw_space *sp;
	struct dw_scope *a, *b;
	const struct dw_type *t, *u;
	struct dw_var v;
	uint64_t entry, rentry, vbias = 0;

	(void)state;
	assert_int_equal(dw_image_open(prog, &img), 0);
	assert_int_equal(dw_space_new(&sp), 0);
	assert_int_equal(dw_space_add(sp, prog, bias, bias, bias + 0x10000), 0);
	assert_int_equal(dw_image_function(img, 0, "walk", &t, &entry), 0);
	assert_int_equal(dw_space_function(sp, bias + entry, "walk", &u, &rentry), 0);
	assert_int_equal(rentry, entry + bias);
	assert_int_equal(u->nparams, t->nparams);
	assert_int_equal(dw_image_scope(img, entry + 8, &a), 0);
	assert_int_equal(dw_space_scope(sp, bias + entry + 8, &b), 0);
	assert_int_equal(b->bias, bias);
	assert_int_equal(b->nlevels, a->nlevels);
	assert_int_equal(b->levels[0].nlocals, a->levels[0].nlocals);
	assert_string_equal(b->levels[0].function, "walk");
	dw_scope_free(a);
	dw_scope_free(b);
	assert_int_equal(dw_space_scope(sp, 0x1000, &b), -ESRCH);
	assert_int_equal(dw_space_global(sp, bias + entry, "g_list", &v, &vbias), 0);
	assert_int_equal(vbias, bias);
	assert_int_equal(dw_space_type(sp, 0, "struct cheap", &t), 0); /* no image at 0: any */
	assert_int_equal(t->kind, DW_TYPE_STRUCT);
	assert_int_equal(dw_space_global(sp, 0, "no_such_thing", &v, NULL), -ENOENT);
	dw_space_free(sp);
	dw_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_shapes),
		cmocka_unit_test(test_opaque_type),
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_names_O0),
		cmocka_unit_test(test_names_O2),
		cmocka_unit_test(test_names_dwarf4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
