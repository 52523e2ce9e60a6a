/* dw_unit: per compilation unit line table and function tree; see dw_unit.h. */
#include "dwarf/dw_unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_range.h"

enum { DW_MAX_DEPTH = 512, DW_MAX_ORIGIN_CHAIN = 100 };

void dw_unit_init(struct dw_unit *u, Dwarf_Off die_off, uint16_t version)
{
	memset(u, 0, sizeof(*u));
	u->die_off = die_off;
	u->version = version;
}

void dw_unit_fini(struct dw_unit *u)
{
	free(u->rows);
	free(u->seqs);
	free(u->files);
	free(u->gdb_files);
	free(u->funcs);
	free(u->franges);
	memset(u, 0, sizeof(*u));
}

/* Languages whose DW_AT_name is the linkage name (bfd's mangle_style 0). */
static bool dw_lang_plain(unsigned lang)
{
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
	case DW_LANG_Fortran77: case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_C99:
	case DW_LANG_UPC: case DW_LANG_C11: case DW_LANG_Mips_Assembler: case DW_LANG_Upc:
		return true;
	default:
		return false;
	}
}

/* --- line table --- */

struct dw_lines_build {
	struct dw_row *rows;
	size_t n, cap;
	struct dw_seq *seqs;
	size_t nseqs, scap;
	size_t seq_start;
};

/* Rows are kept as they come, several per address included: a lookup takes
 * the last row of an address (bfd keeps only that one, PR ld/4986), and a
 * line's statements may sit in the earlier ones. */
static int dw_lines_push(struct dw_lines_build *b, const struct dw_row *r)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct dw_row *nr = realloc(b->rows, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		b->rows = nr;
		b->cap = nc;
	}
	b->rows[b->n++] = *r;
	if (!r->end_sequence)
		return 0;
	if (b->nseqs == b->scap) {
		size_t nc = b->scap ? b->scap * 2 : 16;
		struct dw_seq *ns = realloc(b->seqs, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		b->seqs = ns;
		b->scap = nc;
	}
	b->seqs[b->nseqs++] = (struct dw_seq){ .low = b->rows[b->seq_start].addr, .high = r->addr,
					       .first = (uint32_t)b->seq_start,
					       .count = (uint32_t)(b->n - b->seq_start) };
	b->seq_start = b->n;
	return 0;
}

static int dw_seq_cmp(const void *a, const void *b)
{
	const struct dw_seq *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high > y->high ? -1 : 1; /* the longer first */
	return x->first > y->first ? -1 : x->first < y->first; /* bfd: the later first */
}

/* bfd's sort_line_sequences: sort, drop nested sequences, trim overlaps. */
static size_t dw_seqs_sort(struct dw_seq *s, size_t n)
{
	size_t kept = 1;
	uint64_t last_high;

	if (n == 0)
		return 0;
	qsort(s, n, sizeof(*s), dw_seq_cmp);
	last_high = s[0].high;
	for (size_t i = 1; i < n; i++) {
		if (s[i].low < last_high) {
			if (s[i].high <= last_high)
				continue;
			s[i].low = last_high;
		}
		last_high = s[i].high;
		s[kept++] = s[i];
	}
	return kept;
}

static int dw_line_row(Dwarf_Debug dbg, Dwarf_Line l, struct dw_row *r)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr addr;
	Dwarf_Unsigned line = 0, col = 0, file = 0, isa, discr = 0;
	Dwarf_Bool stmt = 0, end = 0, pe = 0, eb;

	if (dwarf_lineaddr(l, &addr, &err) != DW_DLV_OK) {
		dw_err_drop(dbg, err);
		return -EIO;
	}
	if (dwarf_lineno(l, &line, &err) != DW_DLV_OK || dwarf_lineoff_b(l, &col, &err) != DW_DLV_OK ||
	    dwarf_line_srcfileno(l, &file, &err) != DW_DLV_OK ||
	    dwarf_linebeginstatement(l, &stmt, &err) != DW_DLV_OK ||
	    dwarf_lineendsequence(l, &end, &err) != DW_DLV_OK ||
	    dwarf_prologue_end_etc(l, &pe, &eb, &isa, &discr, &err) != DW_DLV_OK) {
		dw_err_drop(dbg, err);
	}
	*r = (struct dw_row){ .addr = addr, .file = (uint32_t)file, .line = (uint32_t)line,
			      .discriminator = (uint32_t)discr, .column = (uint16_t)col,
			      .is_stmt = stmt != 0, .end_sequence = end != 0,
			      .prologue_end = pe != 0 };
	return 0;
}

/* Directory @dir of the table as the line program names it, or NULL
 * (none; before DWARF 5, 0: the compilation directory). */
static const char *dw_file_dir(struct dw_debug *d, Dwarf_Line_Context ctx, bool v5,
			       Dwarf_Unsigned dir)
{
	const char *subdir = NULL;
	Dwarf_Signed ndirs = 0;
	Dwarf_Error err = NULL;

	if (dwarf_srclines_include_dir_count(ctx, &ndirs, &err) != DW_DLV_OK)
		dw_err_free(d, err), err = NULL, ndirs = 0;
	/* libdwarf takes the DWARF directory number: from 0 in DWARF 5, from 1
	 * before (0 was the compilation directory, which bfd leaves out). */
	if (v5 ? dir < (Dwarf_Unsigned)ndirs : dir >= 1 && dir <= (Dwarf_Unsigned)ndirs) {
		const char *s = NULL;

		if (dwarf_srclines_include_dir_data(ctx, (Dwarf_Signed)dir, &s, &err) == DW_DLV_OK)
			subdir = s;
		else
			dw_err_free(d, err);
	}
	return subdir;
}

/* GDB's name for one entry of the file table (dwarf2_start_subfile): the
 * name joined to its directory, without the compilation directory. */
static const char *dw_file_gdb(struct dw_debug *d, Dwarf_Line_Context ctx, bool v5,
			       const char *name, Dwarf_Unsigned dir)
{
	const char *subdir;

	if (!name || name[0] == '/')
		return name;
	subdir = dw_file_dir(d, ctx, v5, dir);
	return subdir ? dw_pool_join(d->pool, subdir, name, NULL) : name;
}

/* bfd's concat_filename for one entry of the file table. */
static const char *dw_file_join(struct dw_debug *d, struct dw_unit *u, Dwarf_Line_Context ctx,
				bool v5, const char *name, Dwarf_Unsigned dir)
{
	const char *subdir, *dirname = NULL;

	if (!name)
		return NULL;
	if (name[0] == '/')
		return name;
	subdir = dw_file_dir(d, ctx, v5, dir);
	if (!subdir || subdir[0] != '/')
		dirname = u->comp_dir;
	if (!dirname) {
		dirname = subdir;
		subdir = NULL;
	}
	if (!dirname)
		return name;
	return subdir ? dw_pool_join(d->pool, dirname, subdir, name) : dw_pool_join(d->pool, dirname, name, NULL);
}

static int dw_unit_files(struct dw_debug *d, struct dw_unit *u, Dwarf_Line_Context ctx)
{
	Dwarf_Signed base = 0, count = 0, end = 0;
	Dwarf_Unsigned version = 4;
	Dwarf_Small tables;
	Dwarf_Error err = NULL;

	if (dwarf_srclines_version(ctx, &version, &tables, &err) != DW_DLV_OK)
		dw_err_free(d, err), err = NULL;
	if (dwarf_srclines_files_indexes(ctx, &base, &count, &end, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	if (end <= 0 || end > 1000000)
		return 0;
	u->files = calloc((size_t)end, sizeof(*u->files));
	u->gdb_files = calloc((size_t)end, sizeof(*u->gdb_files));
	if (!u->files || !u->gdb_files)
		return -ENOMEM;
	u->nfiles = (size_t)end;
	for (Dwarf_Signed i = base; i < end; i++) {
		const char *name = NULL;
		Dwarf_Unsigned dir = 0, mtime, len;
		Dwarf_Form_Data16 *md5;

		if (dwarf_srclines_files_data_b(ctx, i, &name, &dir, &mtime, &len, &md5, &err) != DW_DLV_OK) {
			dw_err_free(d, err), err = NULL;
			continue;
		}
		u->files[i] = dw_file_join(d, u, ctx, version >= 5, name, dir);
		u->gdb_files[i] = dw_file_gdb(d, ctx, version >= 5, name, dir);
	}
	if (version < 5 && u->nfiles > 0)
		u->files[0] = "<unknown>"; /* file 0 before DWARF 5, as bfd names it */
	return 0;
}

static int dw_unit_lines(struct dw_debug *d, struct dw_unit *u, Dwarf_Die cu)
{
	Dwarf_Unsigned version;
	Dwarf_Small tables;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed count = 0;
	Dwarf_Error err = NULL;
	struct dw_lines_build b = { 0 };
	bool file_set = false;
	int rc = 0;

	if (dwarf_srclines_b(cu, &version, &tables, &ctx, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &count, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		count = 0;
	}
	for (Dwarf_Signed i = 0; i < count && rc == 0; i++) {
		struct dw_row r;

		if (dw_line_row(d->dbg, lines[i], &r) != 0)
			continue;
		/* libdwarf 20210528 starts a DWARF 5 sequence at file 0 (the spec
		 * says 1); remember which rows kept that start value. */
		file_set |= r.file != (version >= 5 ? 0u : 1u);
		r.default_file = !file_set;
		rc = dw_lines_push(&b, &r);
		if (r.end_sequence)
			file_set = false;
	}
	u->line_version = (uint16_t)version;
	if (rc == 0)
		rc = dw_unit_files(d, u, ctx);
	dwarf_srclines_dealloc_b(ctx);
	u->rows = b.rows;
	u->nrows = b.seq_start; /* rows after the last end_sequence belong to no sequence */
	u->seqs = b.seqs;
	u->nseqs = dw_seqs_sort(b.seqs, b.nseqs);
	return rc;
}

/* --- functions --- */

struct dw_funcs_build {
	struct dw_debug *d;
	struct dw_unit *u;
	size_t fcap, rcap;
	int rc;
};

static bool dw_form_string(Dwarf_Debug dbg, Dwarf_Attribute a, const char **out)
{
	Dwarf_Error err = NULL;
	char *s;

	if (dwarf_formstring(a, &s, &err) != DW_DLV_OK) {
		dw_err_drop(dbg, err);
		return false;
	}
	*out = s;
	return true;
}

/* Unsigned constant, DW_FORM_implicit_const included (which this
 * libdwarf's dwarf_formudata refuses). */
static bool dw_form_udata(Dwarf_Debug dbg, Dwarf_Attribute a, Dwarf_Unsigned *v)
{
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Signed sv;

	if (dwarf_formudata(a, v, &err) == DW_DLV_OK)
		return true;
	dw_err_drop(dbg, err), err = NULL;
	if (dwarf_whatform(a, &form, &err) == DW_DLV_OK && form == DW_FORM_implicit_const &&
	    dwarf_formsdata(a, &sv, &err) == DW_DLV_OK && sv >= 0) {
		*v = (Dwarf_Unsigned)sv;
		return true;
	}
	dw_err_drop(dbg, err);
	return false;
}

static bool dw_form_ref(Dwarf_Debug dbg, Dwarf_Attribute a, Dwarf_Off *off)
{
	Dwarf_Error err = NULL;

	if (dwarf_global_formref(a, off, &err) != DW_DLV_OK) {
		dw_err_drop(dbg, err);
		return false;
	}
	return true;
}

static void dw_origin_name(struct dw_funcs_build *b, Dwarf_Off off, unsigned depth, const char **pname,
			   bool *is_linkage);

/* The attribute loop of bfd's find_abstract_instance on one DIE. */
static void dw_origin_attrs(struct dw_funcs_build *b, Dwarf_Die die, unsigned depth, const char **name,
			    bool *is_linkage)
{
	Dwarf_Attribute *attrs = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error err = NULL;

	if (dwarf_attrlist(die, &attrs, &n, &err) != DW_DLV_OK) {
		dw_err_free(b->d, err);
		return;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Half at = 0;
		const char *s;
		Dwarf_Off off;

		if (dwarf_whatattr(attrs[i], &at, &err) != DW_DLV_OK)
			dw_err_free(b->d, err), err = NULL;
		if (at == DW_AT_name && !*name && dw_form_string(b->d->dbg, attrs[i], &s)) {
			*name = s;
			if (dw_lang_plain(b->u->lang))
				*is_linkage = true;
		} else if (at == DW_AT_specification && dw_form_ref(b->d->dbg, attrs[i], &off)) {
			dw_origin_name(b, off, depth + 1, name, is_linkage);
		} else if ((at == DW_AT_linkage_name || at == DW_AT_MIPS_linkage_name) &&
			   dw_form_string(b->d->dbg, attrs[i], &s)) {
			*name = s;
			*is_linkage = true;
		}
		dwarf_dealloc_attribute(attrs[i]);
	}
	dwarf_dealloc(b->d->dbg, attrs, DW_DLA_LIST);
}

static void dw_origin_name(struct dw_funcs_build *b, Dwarf_Off off, unsigned depth, const char **pname,
			   bool *is_linkage)
{
	Dwarf_Die die = NULL;
	Dwarf_Error err = NULL;
	const char *name = NULL;

	if (depth >= DW_MAX_ORIGIN_CHAIN)
		return;
	if (dwarf_offdie_b(b->d->dbg, off, 1, &die, &err) != DW_DLV_OK) {
		dw_err_free(b->d, err);
		return;
	}
	dw_origin_attrs(b, die, depth, &name, is_linkage);
	dwarf_dealloc_die(die);
	*pname = name;
}

/* The attribute loop of bfd's scan_unit_for_functions on one function DIE. */
static void dw_func_attrs(struct dw_funcs_build *b, Dwarf_Die die, struct dw_func *f)
{
	Dwarf_Attribute *attrs = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error err = NULL;

	if (dwarf_attrlist(die, &attrs, &n, &err) != DW_DLV_OK) {
		dw_err_free(b->d, err);
		return;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Half at = 0;
		const char *s;
		Dwarf_Off off;
		Dwarf_Unsigned v;

		if (dwarf_whatattr(attrs[i], &at, &err) != DW_DLV_OK)
			dw_err_free(b->d, err), err = NULL;
		switch (at) {
		case DW_AT_call_file:
		case DW_AT_call_line:
			if (!dw_form_udata(b->d->dbg, attrs[i], &v))
				v = 0;
			*(at == DW_AT_call_file ? &f->call_file : &f->call_line) = (uint32_t)v;
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			if (dw_form_ref(b->d->dbg, attrs[i], &off))
				dw_origin_name(b, off, 0, &f->name, &f->is_linkage);
			break;
		case DW_AT_name:
			if (!f->name && dw_form_string(b->d->dbg, attrs[i], &s)) {
				f->name = s;
				if (dw_lang_plain(b->u->lang))
					f->is_linkage = true;
			}
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
			if (dw_form_string(b->d->dbg, attrs[i], &s)) {
				f->name = s;
				f->is_linkage = true;
			}
			break;
		default:
			break;
		}
		dwarf_dealloc_attribute(attrs[i]);
	}
	dwarf_dealloc(b->d->dbg, attrs, DW_DLA_LIST);
}

/* bfd's arange_add keeps a function's ranges as a list whose first entry
 * takes the first range and grows when a later range touches it; addr2line
 * names a function by the symbol found at that entry's low end. */
static uint64_t dw_bfd_first_low(const struct dw_range *r, size_t n)
{
	uint64_t low = r[0].low, high = r[0].high;

	for (size_t i = 1; i < n; i++) {
		if (r[i].low == high)
			high = r[i].high;
		else if (r[i].high == low)
			low = r[i].low;
	}
	return low;
}

static int dw_func_add(struct dw_funcs_build *b, Dwarf_Die die, Dwarf_Half tag, int32_t parent)
{
	struct dw_unit *u = b->u;
	struct dw_func f = { .parent = parent, .inlined = tag == DW_TAG_inlined_subroutine };
	size_t first = u->nfranges;
	Dwarf_Error err = NULL;
	Dwarf_Addr low;
	int rc;

	rc = dw_ranges_read(b->d, die, u->base, (uint32_t)u->nfuncs, &u->franges, &u->nfranges, &b->rcap);
	if (rc <= 0)
		return rc < 0 ? rc : -1; /* -1: no code, not recorded */
	if (u->nfuncs == b->fcap) {
		size_t nc = b->fcap ? b->fcap * 2 : 64;
		struct dw_func *nf = realloc(u->funcs, nc * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		u->funcs = nf;
		b->fcap = nc;
	}
	if (dwarf_lowpc(die, &low, &err) == DW_DLV_OK)
		f.entry = low;
	else
		dw_err_free(b->d, err), f.entry = u->franges[first].low;
	f.bfd_low = dw_bfd_first_low(&u->franges[first], u->nfranges - first);
	if (!f.inlined)
		f.parent = -1;
	dw_func_attrs(b, die, &f);
	u->funcs[u->nfuncs] = f;
	return (int)u->nfuncs++;
}

static void dw_funcs_walk(struct dw_funcs_build *b, Dwarf_Die die, int32_t func, unsigned depth);

/* Whether @die's DW_AT_location is a location list (GDB's
 * location_has_loclist: a section offset or a loclistx index). */
static bool dw_location_is_list(struct dw_debug *d, Dwarf_Die die)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	bool list = false;

	if (dwarf_attr(die, DW_AT_location, &a, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return false;
	}
	if (dwarf_whatform(a, &form, &err) == DW_DLV_OK)
		list = form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
		       form == DW_FORM_data4 || form == DW_FORM_data8;
	else
		dw_err_free(d, err);
	dwarf_dealloc_attribute(a);
	return list;
}

static void dw_funcs_children(struct dw_funcs_build *b, Dwarf_Die die, int32_t func, unsigned depth)
{
	Dwarf_Die child = NULL;
	Dwarf_Error err = NULL;

	if (depth >= DW_MAX_DEPTH) {
		b->d->damaged = true;
		return;
	}
	if (dwarf_child(die, &child, &err) != DW_DLV_OK) {
		dw_err_free(b->d, err);
		return;
	}
	while (child && b->rc == 0) {
		Dwarf_Die next = NULL;

		dw_funcs_walk(b, child, func, depth + 1);
		if (dwarf_siblingof_b(b->d->dbg, child, 1, &next, &err) != DW_DLV_OK) {
			dw_err_free(b->d, err), err = NULL;
			next = NULL;
		}
		dwarf_dealloc_die(child);
		child = next;
	}
}

static void dw_funcs_walk(struct dw_funcs_build *b, Dwarf_Die die, int32_t func, unsigned depth)
{
	Dwarf_Half tag = 0;
	Dwarf_Error err = NULL;
	int32_t inner = func;

	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
		dw_err_free(b->d, err);
		return;
	}
	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point) {
		int idx = dw_func_add(b, die, tag, func);

		if (idx < -1) {
			b->rc = idx;
			return;
		}
		if (idx >= 0)
			inner = idx;
	}
	if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) && !b->u->has_loclist)
		b->u->has_loclist = dw_location_is_list(b->d, die);
	/* Types and variables hold no code; skip their subtrees. */
	if (tag == DW_TAG_base_type || tag == DW_TAG_variable || tag == DW_TAG_formal_parameter ||
	    tag == DW_TAG_enumeration_type || tag == DW_TAG_member || tag == DW_TAG_typedef ||
	    tag == DW_TAG_subroutine_type || tag == DW_TAG_array_type || tag == DW_TAG_call_site)
		return;
	dw_funcs_children(b, die, inner, depth);
}

static int dw_unit_die(struct dw_debug *d, struct dw_unit *u, Dwarf_Die *cu)
{
	Dwarf_Error err = NULL;

	if (dwarf_offdie_b(d->dbg, u->die_off, 1, cu, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		d->damaged = true;
		return -EIO;
	}
	return 0;
}

int dw_unit_load_lines(struct dw_debug *d, struct dw_unit *u)
{
	Dwarf_Die cu = NULL;
	int rc;

	if (u->lines_state)
		return u->lines_state < 0 ? u->lines_state : 0;
	rc = dw_unit_die(d, u, &cu);
	if (rc == 0) {
		rc = dw_unit_lines(d, u, cu);
		dwarf_dealloc_die(cu);
	}
	u->lines_state = rc < 0 ? rc : 1;
	return rc;
}

int dw_unit_load_funcs(struct dw_debug *d, struct dw_unit *u)
{
	struct dw_funcs_build b = { .d = d, .u = u };
	Dwarf_Die cu = NULL;
	int rc;

	if (u->funcs_state)
		return u->funcs_state < 0 ? u->funcs_state : 0;
	rc = dw_unit_load_lines(d, u); /* call_file names come from the line table */
	if (rc == -ENOMEM)
		return rc;
	rc = dw_unit_die(d, u, &cu);
	if (rc == 0) {
		dw_funcs_children(&b, cu, -1, 0);
		rc = b.rc;
		dwarf_dealloc_die(cu);
	}
	if (rc == 0)
		dw_ranges_sort(u->franges, u->nfranges);
	u->funcs_state = rc < 0 ? rc : 1;
	return rc;
}

const struct dw_row *dw_unit_row(const struct dw_unit *u, uint64_t addr)
{
	size_t lo = 0, hi = u->nseqs;
	const struct dw_seq *s = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < u->seqs[mid].low) {
			hi = mid;
		} else if (addr >= u->seqs[mid].high) {
			lo = mid + 1;
		} else {
			s = &u->seqs[mid];
			break;
		}
	}
	if (!s)
		return NULL;
	/* Last row with address <= addr among rows[first .. first+count-1). */
	lo = s->first;
	hi = s->first + s->count - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > s->first ? &u->rows[lo - 1] : NULL;
}

struct dw_best {
	const struct dw_unit *u;
	uint64_t len;
	int64_t func;
};

static int dw_best_fit(const struct dw_range *r, void *arg)
{
	struct dw_best *b = arg;
	uint64_t len = r->high - r->low;

	if (b->func < 0 || len < b->len || (len == b->len && (int64_t)r->owner > b->func)) {
		b->len = len;
		b->func = r->owner;
	}
	return 0;
}

const struct dw_func *dw_unit_func(const struct dw_unit *u, uint64_t addr)
{
	struct dw_best b = { .u = u, .func = -1 };

	dw_ranges_each(u->franges, u->nfranges, addr, dw_best_fit, &b);
	return b.func >= 0 ? &u->funcs[b.func] : NULL;
}

const char *dw_unit_file(const struct dw_unit *u, uint32_t idx)
{
	if (idx >= u->nfiles)
		return u->nfiles ? "<unknown>" : NULL;
	return u->files[idx] ? u->files[idx] : "<unknown>";
}

const char *dw_unit_row_file(const struct dw_unit *u, const struct dw_row *r, bool bfd_quirk)
{
	/* A DWARF 5 sequence starts at file 1. libdwarf and binutils 2.40 both
	 * start it at 0; the quirk mode keeps bfd's reading. */
	if (r->default_file && u->line_version >= 5)
		return dw_unit_file(u, bfd_quirk ? 0 : 1);
	return dw_unit_file(u, r->file);
}
