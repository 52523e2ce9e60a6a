/* Tests of dwarf/dw_vars.h's scopes and dw_loc.h against GDB natively:
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
 * Also: dw_loc_eval on hand-made expressions and on random bytes.
 * Globals, types and functions by name are test_dw_vars_names.c's. */
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

#include "dw_vars_testlib.h"

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
		cmocka_unit_test(test_scopes_O0),
		cmocka_unit_test(test_scopes_O2),
		cmocka_unit_test(test_scopes_dwarf4),
		cmocka_unit_test(test_scopes_nested_inline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
