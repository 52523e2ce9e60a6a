/* Tests of dwarf/dw_vars.h, dw_types.c and dw_loc.h against GDB natively:
 * build/tests/programs/cvars (-O0), cvars_O2 (-O2) and cvars_O2_dwarf4 (-O2
 * -gdwarf-4), all of tests/programs/cvars.c,
 * run under `gdb -batch`, which stops at every stop_here_N and, in every
 * caller frame of the program, prints `info locals`, `info args`, the
 * frame's registers and `print &x` of each variable (a Python helper
 * walks the frames). At each of those frames:
 *   - the names and order of `info locals` / `info args` equal the scope's
 *     (dw_image_scope at the frame's pc, GDB's pc - 1 for a caller);
 *   - every variable's location, run by dw_loc_eval over GDB's registers
 *     and the CFA from the image's CFI, is the address `print &x` gives, or
 *     the register it names ("which is in register $rbx"), or a value GDB
 *     will not take the address of; optimized-out ones are GDB's
 *     <optimized out>; entry values GDB resolves, resolved through the
 *     caller's call site (dw_image_call_value), are GDB's values.
 * Globals (addresses, sizes, enumerators), types (`ptype/o`: member names,
 * offsets, bit positions, sizes; array counts) and functions (addresses,
 * parameter counts) are compared with a second GDB session on the file.
 * Also: dw_loc_eval on hand-made expressions and on random bytes. */
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

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_loc.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_vars.h"

#define MAXV 48
#define MAXF 64

static const char *const regnames[DW_LOC_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* One frame as GDB printed it. */
struct gvar {
	char name[64];
	char value[256];
	char addr[256];     /* `print &name`'s answer, "ERR message" on an error */
};

struct gframe {
	unsigned level;
	uint64_t pc, lookup;
	char name[64];
	bool inlined;
	uint64_t regs[DW_LOC_NREGS];
	bool known[DW_LOC_NREGS];
	struct gvar locals[MAXV], args[MAXV];
	size_t nlocals, nargs;
};

static struct gframe frames[MAXF];
static size_t nframes;
static uint64_t gdb_main;   /* &main in the running program */

/* build/tests/programs/NAME beside this test's binary. */
static const char *prog_path(const char *name)
{
	static char buf[PATH_MAX + 64];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(buf, sizeof(buf), "%s/programs/%s", exe, name);
	assert_int_equal(access(buf, R_OK), 0);
	return buf;
}

/* Runs `gdb -batch -nx -x SCRIPT PROG` with @script written to a file;
 * returns its output (malloc'ed). */
static char *gdb_run(const char *prog, const char *script)
{
	char path[] = "/tmp/hindsight-dwvars-XXXXXX";
	char cmd[PATH_MAX + 128];
	int fd = mkstemp(path);
	size_t n = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *p;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	snprintf(cmd, sizeof(cmd), "gdb -batch -nx -x %s %s 2>&1 </dev/null", path, prog);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(out);
	for (;;) {
		size_t k;

		if (cap - n < 4096) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		k = fread(out + n, 1, cap - n - 1, p);
		if (k == 0)
			break;
		n += k;
	}
	out[n] = 0;
	pclose(p);
	unlink(path);
	return out;
}

/* The Python helper: every frame of the program above the stop. A
 * caller's pc is looked up at pc - 1 as GDB's get_frame_address_in_block
 * does. */
static const char py_helper[] =
	"set pagination off\nset width 0\nset confirm off\nhandle SIGUSR1 nostop noprint pass\n"
	"python\n"
	"import gdb, re\n"
	"REGS = ['rax','rdx','rcx','rbx','rsi','rdi','rbp','rsp','r8','r9','r10','r11',\n"
	"        'r12','r13','r14','r15','rip']\n"
	"def hs_lookup(f):\n"
	"    n = f.newer()\n"
	"    while n is not None and n.type() == gdb.INLINE_FRAME:\n"
	"        n = n.newer()\n"
	"    if n is not None and n.type() == gdb.NORMAL_FRAME:\n"
	"        return f.pc() - 1\n"
	"    return f.pc()\n"
	"def hs_vars(kind, text):\n"
	"    names = []\n"
	"    for m in re.finditer(r'^([A-Za-z_]\\w*) = (.*)$', text, re.M):\n"
	"        print('@@%s %s %s' % (kind, m.group(1), m.group(2)))\n"
	"        names.append(m.group(1))\n"
	"    return names\n"
	"def hs_dump(level=1):\n"
	"    print('@@MAIN %x' % int(gdb.parse_and_eval('&main')))\n"
	"    f = gdb.selected_frame()\n"
	"    if level:\n"
	"        f = f.older()\n"
	"    while f is not None:\n"
	"        if gdb.solib_name(f.pc()) is None and f.name() and \\\n"
	"           f.type() in (gdb.NORMAL_FRAME, gdb.INLINE_FRAME):\n"
	"            f.select()\n"
	"            print('@@FRAME %d %x %x %s %d' % (level, f.pc(), hs_lookup(f), f.name(),\n"
	"                  f.type() == gdb.INLINE_FRAME))\n"
	"            for i, r in enumerate(REGS):\n"
	"                try:\n"
	"                    print('@@REG %d %x' % (i, int(f.read_register(r)) & (2**64 - 1)))\n"
	"                except Exception:\n"
	"                    pass\n"
	"            names = hs_vars('LOCAL', gdb.execute('info locals', to_string=True))\n"
	"            names += hs_vars('ARG', gdb.execute('info args', to_string=True))\n"
	"            for n in names:\n"
	"                try:\n"
	"                    out = gdb.execute('print &' + n, to_string=True).strip()\n"
	"                except gdb.error as e:\n"
	"                    out = 'ERR ' + str(e)\n"
	"                print('@@ADDR %s %s' % (n, out))\n"
	"            if f.name() == 'main':\n"
	"                break\n"
	"        f = f.older()\n"
	"        level += 1\n"
	"end\n";

static void gvar_set(struct gvar *v, const char *rest)
{
	size_t n = strcspn(rest, " ");

	snprintf(v->name, sizeof(v->name), "%.*s", (int)n, rest);
	snprintf(v->value, sizeof(v->value), "%s", rest[n] ? rest + n + 1 : "");
}

static void parse_line(const char *line)
{
	struct gframe *f = nframes ? &frames[nframes - 1] : NULL;
	unsigned inl = 0, reg;
	unsigned long long a, b, v;

	if (sscanf(line, "@@MAIN %llx", &v) == 1) {
		gdb_main = v;
	} else if (strncmp(line, "@@FRAME ", 8) == 0) {
		assert_true(nframes < MAXF);
		f = &frames[nframes++];
		memset(f, 0, sizeof(*f));
		assert_int_equal(sscanf(line + 8, "%u %llx %llx %63s %u", &f->level, &a, &b, f->name,
					&inl), 5);
		f->pc = a, f->lookup = b, f->inlined = inl;
	} else if (f && sscanf(line, "@@REG %u %llx", &reg, &v) == 2 && reg < DW_LOC_NREGS) {
		f->regs[reg] = v;
		f->known[reg] = true;
	} else if (f && strncmp(line, "@@LOCAL ", 8) == 0 && f->nlocals < MAXV) {
		gvar_set(&f->locals[f->nlocals++], line + 8);
	} else if (f && strncmp(line, "@@ARG ", 6) == 0 && f->nargs < MAXV) {
		gvar_set(&f->args[f->nargs++], line + 6);
	} else if (f && strncmp(line, "@@ADDR ", 7) == 0) {
		size_t n = strcspn(line + 7, " ");

		for (size_t i = 0; i < f->nlocals + f->nargs; i++) {
			struct gvar *g = i < f->nlocals ? &f->locals[i] : &f->args[i - f->nlocals];

			if (strlen(g->name) == n && strncmp(g->name, line + 7, n) == 0 && !g->addr[0])
				snprintf(g->addr, sizeof(g->addr), "%s", line + 8 + n);
		}
	}
}

/* Runs @prog through @stops (GDB commands calling hs_dump) and reads what
 * GDB says of its frames. */
static void gdb_frames(const char *prog, const char *stops)
{
	char script[sizeof(py_helper) + 1024];
	char *out, *line, *save = NULL;

	snprintf(script, sizeof(script), "%s%s", py_helper, stops);
	nframes = 0;
	out = gdb_run(prog, script);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_line(line);
	free(out);
}

/* --- comparing one frame --- */

struct cmp {
	struct dw_image *img;
	uint64_t bias;
	unsigned vars, memory, registers, values, optout, entry_values, entry_resolved;
};

/* The frame's CFA from the image's CFI, over GDB's registers. */
static bool frame_cfa(struct cmp *c, const struct gframe *f, uint64_t *cfa)
{
	struct dw_cfi_row row;

	if (dw_image_cfi_row(c->img, f->lookup - c->bias, &row) != 0 || row.cfa_expr ||
	    row.cfa_reg >= DW_LOC_NREGS || !f->known[row.cfa_reg])
		return false;
	*cfa = f->regs[row.cfa_reg] + (uint64_t)row.cfa_offset;
	return true;
}

static bool has_entry_value(const struct dw_var *v)
{
	for (size_t i = 0; v->where == DW_VAR_EXPR && i < v->exprlen;) {
		int n = dw_loc_op_size(v->expr, v->exprlen, i);

		if (n < 0)
			return false;
		if (v->expr[i] == 0xa3 || v->expr[i] == 0xf3)
			return true;
		i += (size_t)n;
	}
	return false;
}

/* The address in "$1 = (int *) 0x4050 <g_int>" or "$2 = 0x7ffe... "a"". */
static const char *gdb_hex(const char *s)
{
	const char *eq = strstr(s, "= ");

	return eq ? strstr(eq, "0x") : NULL;
}

static bool gdb_lvalue_refused(const char *addr)
{
	return strstr(addr, "isn't an lvalue") || strstr(addr, "optimized out");
}

/* DW_OP_entry_value(DW_OP_regN) in frame @callee through its caller's call
 * site, whose value may be an entry value of the caller's in turn. */
struct entry_ctx {
	struct cmp *c;
	const struct gframe *callee;
};

static int entry_value(void *ctx, const uint8_t *e, size_t len, uint64_t *out)
{
	struct entry_ctx *ec = ctx, up = { ec->c, ec->callee + 1 };
	const struct gframe *cf = ec->callee + 1;
	struct dw_loc_env env = { .regs = cf->regs, .known = cf->known, .bias = ec->c->bias };
	const struct dw_loc_entry upper = { entry_value, &up };
	struct dw_loc l;
	struct dw_scope *cs;
	const uint8_t *x;
	size_t xl;
	unsigned reg;
	int rc;

	if (ec->callee->inlined || cf >= frames + nframes || cf->level != ec->callee->level + 1)
		return -ENOENT;
	if (len == 1 && e[0] >= 0x50 && e[0] <= 0x6f)
		reg = e[0] - 0x50u;
	else if (len == 2 && e[0] == 0x90 && e[1] < 0x80)
		reg = e[1];
	else
		return -ENOTSUP;
	if (dw_image_call_value(ec->c->img, cf->pc - ec->c->bias, reg, &x, &xl) < 0 ||
	    dw_image_scope(ec->c->img, cf->lookup - ec->c->bias, &cs) < 0)
		return -ENOENT;
	env.frame_base = cs->frame_base;
	env.frame_base_len = cs->frame_base_len;
	env.cfa_known = frame_cfa(ec->c, cf, &env.cfa);
	/* the call value, an entry value of the caller's itself maybe */
	rc = dw_loc_eval_entry(x, xl, &env, &upper, &l);
	dw_scope_free(cs);
	if (rc < 0 || l.npieces != 1)
		return rc < 0 ? rc : -ENOTSUP;
	if (l.pieces[0].kind == DW_LOC_MEMORY)
		*out = l.pieces[0].addr; /* a plain expression's value: the top of the stack */
	else if (l.pieces[0].kind == DW_LOC_VALUE)
		*out = l.pieces[0].value;
	else if (l.pieces[0].kind == DW_LOC_REGISTER && l.pieces[0].reg < DW_LOC_NREGS &&
		 cf->known[l.pieces[0].reg])
		*out = cf->regs[l.pieces[0].reg];
	else
		return -ENOENT;
	return 0;
}

/* GDB's value as a number: "3", "-7", "0x5555555592e0 <...>"; false for
 * anything else (structs, characters, floating point). */
static bool gdb_scalar(const char *s, uint64_t *v)
{
	char *end;

	*v = strncmp(s, "0x", 2) == 0 ? strtoull(s, &end, 16) : (uint64_t)strtoll(s, &end, 10);
	return end != s && (*end == 0 || (*end == ' ' && strncmp(s, "0x", 2) == 0));
}

/* A variable GDB gives a value for where we have an entry value: resolved
 * through the caller's call site, it must be GDB's value. */
static void entry_check(struct cmp *c, const struct gframe *f, const struct dw_var *v,
			const struct gvar *g, struct dw_loc_env *env, bool gdb_out)
{
	struct entry_ctx ec = { .c = c, .callee = f };
	const struct dw_loc_entry entry = { entry_value, &ec };
	struct dw_loc l;
	uint64_t want;

	assert_int_equal(dw_loc_eval_entry(v->expr, v->exprlen, env, &entry, &l), 0);
	if (gdb_out) {
		/* what GDB cannot resolve, neither do we */
		if (l.npieces == 1 && l.pieces[0].kind != DW_LOC_OPTIMIZED_OUT)
			fail_msg("%s in %s: entry value resolved (kind %d), GDB: <optimized out>",
				 v->name, f->name, l.pieces[0].kind);
		return;
	}
	if (gdb_scalar(g->value, &want)) {
		uint64_t mask = dw_type_size(v->type) >= 8 ? ~0ull :
				(1ull << (8 * dw_type_size(v->type))) - 1;

		if (l.npieces != 1 || l.pieces[0].kind != DW_LOC_VALUE ||
		    (l.pieces[0].value & mask) != (want & mask))
			fail_msg("%s in %s: entry value kind %d 0x%llx, GDB %s", v->name, f->name,
				 l.pieces[0].kind, (unsigned long long)l.pieces[0].value, g->value);
		c->entry_resolved++;
	}
}

/* One variable: where dw_loc puts it against what GDB says. */
static void var_check(struct cmp *c, const struct gframe *f, const struct dw_scope *s,
		      const struct dw_var *v, const struct gvar *g)
{
	struct dw_loc_env env = { .regs = f->regs, .known = f->known, .frame_base = s->frame_base,
				  .frame_base_len = s->frame_base_len, .bias = c->bias };
	bool gdb_out = strcmp(g->value, "<optimized out>") == 0;
	struct dw_loc loc = { 0 };
	const struct dw_loc_piece *p = &loc.pieces[0];

	c->vars++;
	env.cfa_known = frame_cfa(c, f, &env.cfa);
	if (v->where == DW_VAR_EXPR)
		assert_int_equal(dw_loc_eval(v->expr, v->exprlen, &env, &loc), 0);
	if (v->where == DW_VAR_OPTIMIZED_OUT ||
	    (loc.npieces == 1 && p->kind == DW_LOC_OPTIMIZED_OUT)) {
		c->optout++;
		/* GDB resolves some entry values through the caller's call site */
		c->entry_values += !gdb_out;
		if (!gdb_out && !has_entry_value(v))
			fail_msg("%s in %s: optimized out, GDB says %s", v->name, f->name, g->value);
		if (has_entry_value(v))
			entry_check(c, f, v, g, &env, gdb_out);
		return;
	}
	if (gdb_out)
		fail_msg("%s in %s: GDB says <optimized out>, we have a location", v->name, f->name);
	if (v->where == DW_VAR_CONST || loc.npieces > 1 || p->kind == DW_LOC_VALUE ||
	    p->kind == DW_LOC_IMPLICIT) {
		c->values++;
		if (!gdb_lvalue_refused(g->addr))
			fail_msg("%s in %s: a value, GDB gives &: %s", v->name, f->name, g->addr);
		return;
	}
	if (p->kind == DW_LOC_REGISTER) {
		char want[64];

		c->registers++;
		if (p->reg < DW_LOC_NREGS)
			snprintf(want, sizeof(want), "in register $%s", regnames[p->reg]);
		else
			snprintf(want, sizeof(want), "in register $xmm%u", p->reg - 17);
		if (!strstr(g->addr, want))
			fail_msg("%s in %s: %s, GDB: %s", v->name, f->name, want, g->addr);
		return;
	}
	assert_int_equal(p->kind, DW_LOC_MEMORY);
	const char *hex = gdb_hex(g->addr);

	c->memory++;
	if (!hex || strtoull(hex, NULL, 16) != p->addr)
		fail_msg("%s in %s: at 0x%llx, GDB: %s", v->name, f->name, (unsigned long long)p->addr,
			 g->addr);
}

/* GDB's list (names in order) against the scope level's. */
static void names_check(const struct gframe *f, const struct gvar *g, size_t ng,
			const struct dw_var *v, size_t nv, const char *what)
{
	for (size_t i = 0; i < ng || i < nv; i++)
		if (i >= ng || i >= nv || strcmp(g[i].name, v[i].name) != 0)
			fail_msg("%s of %s (pc 0x%llx): #%zu is %s, GDB's %s", what, f->name,
				 (unsigned long long)f->lookup, i, i < nv ? v[i].name : "(none)",
				 i < ng ? g[i].name : "(none)");
}

static void frame_check(struct cmp *c, const struct gframe *f, size_t level)
{
	struct dw_scope *s;
	const struct dw_scope_level *lv;

	assert_int_equal(dw_image_scope(c->img, f->lookup - c->bias, &s), 0);
	if (level >= s->nlevels)
		fail_msg("frame %u %s at 0x%llx: level %zu of %zu", f->level, f->name,
			 (unsigned long long)f->lookup, level, s->nlevels);
	lv = &s->levels[level];
	assert_string_equal(lv->function, f->name);
	assert_int_equal(lv->inlined, f->inlined);
	names_check(f, f->locals, f->nlocals, lv->locals, lv->nlocals, "info locals");
	names_check(f, f->args, f->nargs, lv->args, lv->nargs, "info args");
	for (size_t i = 0; i < lv->nlocals; i++)
		var_check(c, f, s, &lv->locals[i], &f->locals[i]);
	for (size_t i = 0; i < lv->nargs; i++)
		var_check(c, f, s, &lv->args[i], &f->args[i]);
	dw_scope_free(s);
}

/* The runtime address of main (GDB's) minus its file address (ours). */
static uint64_t main_bias(struct dw_image *img)
{
	const struct dw_type *t;
	uint64_t entry;

	assert_int_equal(dw_image_function(img, 0, "main", &t, &entry), 0);
	assert_true(gdb_main != 0);
	return gdb_main - entry;
}

static const char *const must_see[] = { "walk", "descend", "scale_clamp", "on_usr1", "jumper",
					"main" };

/* Every frame GDB showed of @prog against the scope at its pc. */
static void frames_check(const char *prog, struct cmp *cp)
{
	struct cmp c = { 0 };
	size_t level = 0;

	assert_int_equal(dw_image_open(prog, &c.img), 0);
	c.bias = main_bias(c.img);
	for (size_t i = 0; i < nframes; i++) {
		/* frames of one inlined chain share a pc: level 0, 1, ... */
		level = i > 0 && frames[i - 1].inlined && frames[i].pc == frames[i - 1].pc &&
			frames[i - 1].level + 1 == frames[i].level ? level + 1 : 0;
		frame_check(&c, &frames[i], level);
	}
	dw_image_free(c.img);
	c.img = NULL;
	*cp = c;
}

/* cvars at every stop_here_N (stop_here_2 stops twice: 8 stops). */
static void scopes_against_gdb(const char *name)
{
	char stops[1024] = "";
	struct cmp c;

	for (int i = 1; i <= 7; i++)
		snprintf(stops + strlen(stops), sizeof(stops) - strlen(stops),
			 "break stop_here_%d\n", i);
	strcat(stops, "run\npython hs_dump()\n");
	for (int i = 0; i < 7; i++)
		strcat(stops, "continue\npython hs_dump()\n");
	gdb_frames(prog_path(name), stops);
	assert_true(nframes >= 16);
	frames_check(prog_path(name), &c);
	print_message("%s: %zu frames, %u variables: %u in memory, %u in registers, %u values, "
		      "%u optimized out (%u entry values GDB resolved, %u of them through "
		      "dw_image_call_value)\n", name, nframes, c.vars, c.memory, c.registers,
		      c.values, c.optout, c.entry_values, c.entry_resolved);
	assert_true(c.memory > 10);
	/* every kind of stop was seen: recursion, the handler, the longjmp */
	for (size_t k = 0; k < sizeof(must_see) / sizeof(must_see[0]); k++) {
		size_t i = 0;

		while (i < nframes && strcmp(frames[i].name, must_see[k]) != 0)
			i++;
		if (i == nframes)
			fail_msg("%s: GDB never showed a frame of %s", name, must_see[k]);
	}
}

static void test_scopes_O0(void **state)
{
	(void)state;
	scopes_against_gdb("cvars");
}

static void test_scopes_O2(void **state)
{
	(void)state;
	scopes_against_gdb("cvars_O2");
}

/* tests/programs/inline.c at -O2, stopped inside inl_twice inlined in
 * inl_mix inlined in main: three levels at one pc, frame 0 included. */
static void test_scopes_nested_inline(void **state)
{
	char exe[PATH_MAX], dir[] = "/tmp/hindsight-dwvars-XXXXXX", cmd[2 * PATH_MAX + 128];
	char prog[64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct cmp c;

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0; /* <repo>/build/tests */
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/inl", dir);
	snprintf(cmd, sizeof(cmd), "cd %s/../../tests/programs && gcc -g -O2 inline.c -o %s", exe,
		 prog);
	assert_int_equal(system(cmd), 0);
	gdb_frames(prog, "break inline.c:6\nrun\npython hs_dump(0)\n"
			 "continue\npython hs_dump(0)\n");
	assert_int_equal(nframes, 6);
	assert_true(frames[0].inlined && frames[1].inlined && !frames[2].inlined);
	frames_check(prog, &c);
	assert_int_equal(c.vars, 2 * 7);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* DWARF 4: .debug_loc lists, DW_AT_bit_offset bit-fields. */
static void test_scopes_dwarf4(void **state)
{
	(void)state;
	scopes_against_gdb("cvars_O2_dwarf4");
}

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

/* --- dw_loc on made-up expressions --- */

static int read_words(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < 0x7000 || addr + len > 0x7100)
		return -EIO;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(addr + i);
	return 0;
}

static void test_loc_kinds(void **state)
{
	static const uint64_t regs[DW_LOC_NREGS] = { [3] = 0x3333, [6] = 0x7000, [7] = 0x7ff0 };
	static const bool known[DW_LOC_NREGS] = { [3] = true, [6] = true, [7] = true };
	static const uint8_t fb_cfa[] = { 0x9c };
	struct dw_loc_env env = { .regs = regs, .known = known, .cfa_known = true, .cfa = 0x8000,
				  .frame_base = fb_cfa, .frame_base_len = 1, .bias = 0x1000,
				  .read = read_words };
	struct dw_loc l;

	(void)state;
	/* fbreg -20 over DW_OP_call_frame_cfa (gcc -O0) */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x91, 0x6c }, 2, &env, &l), 0);
	assert_int_equal(l.npieces, 1);
	assert_int_equal(l.pieces[0].kind, DW_LOC_MEMORY);
	assert_int_equal(l.pieces[0].addr, 0x8000 - 20);
	/* DW_OP_addr: file address + bias */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x03, 0x50, 0x40, 0, 0, 0, 0, 0, 0 }, 9,
				     &env, &l), 0);
	assert_int_equal(l.pieces[0].addr, 0x5050);
	/* reg3, regx 17 (xmm0) */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x53 }, 1, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_REGISTER);
	assert_int_equal(l.pieces[0].reg, 3);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x90, 17 }, 2, &env, &l), 0);
	assert_int_equal(l.pieces[0].reg, 17);
	/* breg3 + 5, stack_value */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x73, 5, 0x9f }, 3, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_VALUE);
	assert_int_equal(l.pieces[0].value, 0x3338);
	/* implicit_value of 4 bytes */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x9e, 4, 1, 2, 3, 4 }, 6, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_IMPLICIT);
	assert_int_equal(l.pieces[0].len, 4);
	assert_int_equal(l.pieces[0].bytes[3], 4);
	/* rbx in 4 bytes, optimized out 4 bytes, memory 8 bytes: a struct in pieces */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x53, 0x93, 4, 0x93, 4, 0x76, 0, 0x93, 8 },
				     9, &env, &l), 0);
	assert_int_equal(l.npieces, 3);
	assert_int_equal(l.pieces[0].kind, DW_LOC_REGISTER);
	assert_int_equal(l.pieces[0].bit_size, 32);
	assert_int_equal(l.pieces[1].kind, DW_LOC_OPTIMIZED_OUT);
	assert_int_equal(l.pieces[2].kind, DW_LOC_MEMORY);
	assert_int_equal(l.pieces[2].addr, 0x7000);
	/* bit_piece 3 bits at 2 of rbx */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x53, 0x9d, 3, 2 }, 4, &env, &l), 0);
	assert_int_equal(l.pieces[0].bit_size, 3);
	assert_int_equal(l.pieces[0].bit_offset, 2);
	/* entry values, implicit pointers, empty: optimized out */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0xa3, 1, 0x55, 0x9f }, 4, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_OPTIMIZED_OUT);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0xf3, 1, 0x55, 0x31, 0x22, 0x9f }, 6, &env,
				     &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_OPTIMIZED_OUT);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0xa0, 1, 2, 3, 4, 0 }, 6, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_OPTIMIZED_OUT);
	assert_int_equal(dw_loc_eval(NULL, 0, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_OPTIMIZED_OUT);
	/* deref_size through memory; an unknown register: unavailable */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x76, 2, 0x94, 2, 0x9f }, 5, &env, &l), 0);
	assert_int_equal(l.pieces[0].value, 0x0302);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x70, 0 }, 2, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_UNAVAILABLE);
	env.cfa_known = false;
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x91, 0 }, 2, &env, &l), 0);
	assert_int_equal(l.pieces[0].kind, DW_LOC_UNAVAILABLE);
	/* thread-local storage: not supported, said so */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x0e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0xe0 },
				     10, &env, &l), -ENOTSUP);
	assert_non_null(l.message);
	assert_non_null(strstr(l.message, "thread-local"));
	/* bad: cut short, underflow, unknown op, read error, a frame base loop */
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x03, 1, 2 }, 3, &env, &l), -EINVAL);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x22 }, 1, &env, &l), -EINVAL);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x04 }, 1, &env, &l), -ENOTSUP);
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x30, 0x06 }, 2, &env, &l), -EIO);
	env.frame_base = (const uint8_t[]){ 0x91, 0 };
	env.frame_base_len = 2;
	assert_int_equal(dw_loc_eval((const uint8_t[]){ 0x91, 0 }, 2, &env, &l), -EINVAL);
}

static int index_lookup(void *ctx, uint64_t index, uint64_t *addr)
{
	(void)ctx;
	*addr = 0x4000 + index * 8;
	return 0;
}

/* Base types at made-up unit offsets: 0x10 int, 0x20 unsigned char,
 * 0x30 double, 0x40 long. */
static int type_lookup(void *ctx, uint64_t off, unsigned *size, bool *is_signed, bool *is_float)
{
	(void)ctx;
	*size = off == 0x10 ? 4 : off == 0x20 ? 1 : 8;
	*is_signed = off == 0x10 || off == 0x40;
	*is_float = off == 0x30;
	return off && off <= 0x40 && off % 16 == 0 ? 0 : -EINVAL;
}

/* Runs @e rewritten; the value of its DW_OP_stack_value. */
static uint64_t rewritten_value(const uint8_t *e, size_t len)
{
	static const uint64_t regs[DW_LOC_NREGS] = { [0] = 0xffffffff80000001ull };
	static const bool known[DW_LOC_NREGS] = { [0] = true };
	const struct dw_loc_rewriter rw = { index_lookup, type_lookup, NULL };
	struct dw_loc_env env = { .regs = regs, .known = known, .read = read_words };
	struct dw_loc l;
	uint8_t *out;
	size_t n;

	assert_int_equal(dw_loc_rewrite(e, len, &rw, &out, &n), 0);
	assert_int_equal(dw_loc_eval(out, n, &env, &l), 0);
	free(out);
	assert_int_equal(l.pieces[0].kind, DW_LOC_VALUE);
	return l.pieces[0].value;
}

static void test_loc_rewrite(void **state)
{
	const struct dw_loc_rewriter rw = { index_lookup, type_lookup, NULL };
	uint8_t *out;
	size_t n;

	(void)state;
	/* addrx 2, plus_uconst 4 → addr 0x4010, plus_uconst 4 */
	assert_int_equal(dw_loc_rewrite((const uint8_t[]){ 0xa1, 2, 0x23, 4 }, 4, &rw, &out, &n), 0);
	assert_int_equal(n, 11);
	assert_int_equal(out[0], 0x03);
	assert_int_equal(out[1], 0x10);
	assert_int_equal(out[2], 0x40);
	assert_int_equal(out[9], 0x23);
	free(out);
	assert_int_equal(dw_loc_rewrite((const uint8_t[]){ 0xa1, 2, 0x2f, 0, 0 }, 5, &rw, &out, &n),
			 -ENOTSUP);
	/* regval_type rax as int: sign-extended from 32 bits */
	assert_int_equal(rewritten_value((const uint8_t[]){ 0xa5, 0, 0x10, 0x9f }, 4),
			 (uint64_t)(int64_t)(int32_t)0x80000001);
	/* as unsigned char; GNU form */
	assert_int_equal(rewritten_value((const uint8_t[]){ 0xf5, 0, 0x20, 0x9f }, 4), 1);
	/* const_type int -2 (4 bytes), convert to long: -2 */
	assert_int_equal(rewritten_value((const uint8_t[]){ 0xa4, 0x10, 4, 0xfe, 0xff, 0xff, 0xff,
							  0xa8, 0x40, 0x9f }, 10),
			 (uint64_t)-2);
	/* deref_type 2 bytes at 0x7010 as unsigned char: 0x10 */
	assert_int_equal(rewritten_value((const uint8_t[]){ 0x0a, 0x10, 0x70, 0xa6, 2, 0x20, 0x9f },
					 7), 0x10);
	/* convert to the generic type (0) is nothing; to double stays, -ENOTSUP */
	assert_int_equal(rewritten_value((const uint8_t[]){ 0x35, 0xa8, 0, 0x9f }, 4), 5);
	assert_int_equal(dw_loc_rewrite((const uint8_t[]){ 0x35, 0xa8, 0x30, 0x9f }, 4, &rw, &out,
					&n), 0);
	assert_int_equal(n, 4);
	free(out);
	assert_int_equal(dw_loc_op_size((const uint8_t[]){ 0x9e, 3, 1, 2 }, 4, 0), -EINVAL);
	assert_int_equal(dw_loc_op_size((const uint8_t[]){ 0x92, 0x80, 1, 0x7f }, 4, 0), 4);
}

/* Random bytes (a fixed seed): a clean answer every time, never a crash
 * (ASan watches the reads), and pieces that make sense. */
static void test_loc_random(void **state)
{
	static const uint64_t regs[DW_LOC_NREGS] = { 1, 2, 3, 4, 5, 6, 0x7000, 0x7010 };
	static const bool known[DW_LOC_NREGS] = { true, true, true, true, true, true, true, true };
	static const uint8_t fb[] = { 0x9c };
	struct dw_loc_env env = { .regs = regs, .known = known, .cfa_known = true, .cfa = 0x7080,
				  .frame_base = fb, .frame_base_len = 1, .read = read_words };
	unsigned seed = 16, ok = 0;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint8_t e[24];
		size_t len = (size_t)(rand_r(&seed) % (int)sizeof(e));
		struct dw_loc l;
		uint8_t *copy;
		int rc;

		for (size_t k = 0; k < len; k++)
			e[k] = (uint8_t)rand_r(&seed);
		copy = malloc(len ? len : 1); /* exactly @len bytes: ASan sees an overread */
		memcpy(copy, e, len);
		rc = dw_loc_eval(copy, len, &env, &l);
		assert_true(rc == 0 || rc == -EINVAL || rc == -ENOTSUP || rc == -EIO);
		if (rc == 0) {
			assert_true(l.npieces >= 1 && l.npieces <= DW_LOC_MAX_PIECES);
			ok++;
		}
		free(copy);
	}
	assert_true(ok > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loc_kinds),
		cmocka_unit_test(test_loc_rewrite),
		cmocka_unit_test(test_loc_random),
		cmocka_unit_test(test_type_shapes),
		cmocka_unit_test(test_opaque_type),
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_names_O0),
		cmocka_unit_test(test_names_O2),
		cmocka_unit_test(test_names_dwarf4),
		cmocka_unit_test(test_scopes_O0),
		cmocka_unit_test(test_scopes_O2),
		cmocka_unit_test(test_scopes_dwarf4),
		cmocka_unit_test(test_scopes_nested_inline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
