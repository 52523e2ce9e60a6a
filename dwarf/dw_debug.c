/* dw_debug: libdwarf session over dw_elf sections, and the unit index; see
 * dw_debug.h. */
#include "dwarf/dw_debug.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_die.h"
#include "dwarf/dw_unit.h"

/* --- the object access interface: libdwarf asks, dw_elf answers --- */

/* libdwarf 20210528 double-frees on some malformed unit headers of the
 * DWARF 5 side tables it reads eagerly (dwarf_load_rnglists, found by the
 * bad-input tests). Their unit headers are checked here first; a section
 * whose chain of headers does not hold is hidden (size 0), so lookups lose
 * ranges from it rather than crash. */
static bool dw_units_sane(const uint8_t *p, size_t size, size_t min_hdr)
{
	size_t off = 0;

	while (off < size) {
		uint32_t len32;
		uint64_t len;
		size_t hdr = 4;
		uint16_t version;

		if (size - off < 4)
			return false;
		memcpy(&len32, p + off, 4);
		len = len32;
		if (len32 == 0xffffffffu) {
			if (size - off < 12)
				return false;
			memcpy(&len, p + off + 4, 8);
			hdr = 12;
		} else if (len32 >= 0xfffffff0u) {
			return false;
		}
		if (len > size - off - hdr || len < min_hdr)
			return false;
		memcpy(&version, p + off + hdr, 2);
		if (version != 5)
			return false;
		if (min_hdr >= 8) { /* rnglists / loclists: sizes and offset table */
			uint32_t count;

			memcpy(&count, p + off + hdr + 4, 4);
			if (p[off + hdr + 2] != 8 || p[off + hdr + 3] != 0 ||
			    (uint64_t)count * (hdr == 4 ? 4 : 8) > len - 8)
				return false;
		}
		off += hdr + (size_t)len;
	}
	return true;
}

static void dw_obj_check(struct dw_elf *e, struct dw_elf_section *s, size_t idx)
{
	size_t min_hdr = 0, size;
	const void *d;

	s->checked = true;
	if (strcmp(s->name, ".debug_rnglists") == 0 || strcmp(s->name, ".debug_loclists") == 0)
		min_hdr = 8;
	else if (strcmp(s->name, ".debug_addr") == 0 || strcmp(s->name, ".debug_str_offsets") == 0)
		min_hdr = 4;
	else
		return;
	if (dw_elf_load(e, idx, &d, &size) != 0 || !dw_units_sane(d, size, min_hdr))
		s->hidden = true;
}

static int dw_obj_section_info(void *obj, Dwarf_Half idx, Dwarf_Obj_Access_Section *ret, int *err)
{
	struct dw_elf *e = obj;
	struct dw_elf_section *s;

	(void)err;
	if (idx >= e->nsections)
		return DW_DLV_NO_ENTRY;
	s = &e->sections[idx];
	if (!s->checked && s->type != SHT_NOBITS && s->name)
		dw_obj_check(e, s, idx);
	memset(ret, 0, sizeof(*ret));
	ret->addr = s->addr;
	ret->type = s->type;
	ret->size = s->type == SHT_NOBITS || s->hidden ? 0 : s->size;
	ret->name = s->name ? s->name : "";
	ret->link = s->link;
	ret->info = s->info;
	ret->entrysize = s->entsize;
	return DW_DLV_OK;
}

static Dwarf_Endianness dw_obj_byte_order(void *obj)
{
	(void)obj;
	return DW_OBJECT_LSB;
}

static Dwarf_Small dw_obj_length_size(void *obj)
{
	(void)obj;
	return 4;
}

static Dwarf_Small dw_obj_pointer_size(void *obj)
{
	(void)obj;
	return 8;
}

static Dwarf_Unsigned dw_obj_section_count(void *obj)
{
	return ((struct dw_elf *)obj)->nsections;
}

static int dw_obj_load_section(void *obj, Dwarf_Half idx, Dwarf_Small **data, int *err)
{
	const void *p;
	size_t size;

	if (dw_elf_load(obj, idx, &p, &size) != 0 || !p) {
		*err = DW_DLE_SECTION_SIZE_OR_OFFSET_LARGE;
		return DW_DLV_ERROR;
	}
	*data = (Dwarf_Small *)p;
	return DW_DLV_OK;
}

static int dw_obj_relocate(void *obj, Dwarf_Half idx, Dwarf_Debug dbg, int *err)
{
	(void)obj, (void)idx, (void)dbg, (void)err;
	return DW_DLV_NO_ENTRY; /* executables and shared objects need no relocation */
}

static const Dwarf_Obj_Access_Methods dw_obj_methods = {
	.get_section_info = dw_obj_section_info,
	.get_byte_order = dw_obj_byte_order,
	.get_length_size = dw_obj_length_size,
	.get_pointer_size = dw_obj_pointer_size,
	.get_section_count = dw_obj_section_count,
	.load_section = dw_obj_load_section,
	.relocate_a_section = dw_obj_relocate,
};

int dw_debug_open(struct dw_debug *d, struct dw_elf *elf, struct dw_pool *pool)
{
	Dwarf_Error err = NULL;

	memset(d, 0, sizeof(*d));
	d->elf = elf;
	d->pool = pool;
	if (!dw_elf_has_data(elf, ".debug_info"))
		return -ENODATA;
	/* The sizes libdwarf checks must be the inflated ones: load now the
	 * compressed sections it will read first (the rest stay lazy). */
	d->iface.object = elf;
	d->iface.methods = &dw_obj_methods;
	if (dwarf_object_init_b(&d->iface, NULL, NULL, DW_GROUPNUMBER_ANY, &d->dbg, &err) != DW_DLV_OK) {
		dw_err_free(NULL, err);
		d->dbg = NULL;
		return -EIO;
	}
	return 0;
}

void dw_debug_close(struct dw_debug *d)
{
	if (d->vars_free)
		d->vars_free(d->vars);
	for (size_t i = 0; i < d->nunits; i++)
		dw_unit_fini(&d->units[i]);
	free(d->units);
	free(d->ranges);
	free(d->rangeless);
	if (d->dbg) {
		Dwarf_Error err = NULL;

		dwarf_object_finish(d->dbg, &err);
	}
	memset(d, 0, sizeof(*d));
}

/* --- the unit index --- */

static int dw_debug_add_unit(struct dw_debug *d, Dwarf_Die cu, Dwarf_Half version, size_t *cap,
			     size_t *rcap)
{
	struct dw_unit *u;
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	Dwarf_Half tag;
	Dwarf_Unsigned lang = 0;
	Dwarf_Addr base = 0;
	int rc;

	if (dwarf_tag(cu, &tag, &err) != DW_DLV_OK || dwarf_dieoffset(cu, &off, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return -EIO;
	}
	if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)
		return 0;
	if (d->nunits == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct dw_unit *nu = realloc(d->units, nc * sizeof(*nu));

		if (!nu)
			return -ENOMEM;
		d->units = nu;
		*cap = nc;
	}
	u = &d->units[d->nunits];
	dw_unit_init(u, off, version);
	dw_attr_udata(d, cu, DW_AT_language, &lang);
	u->lang = (unsigned)lang;
	dw_attr_string(d, cu, DW_AT_comp_dir, &u->comp_dir);
	dw_attr_string(d, cu, DW_AT_name, &u->name);
	dw_attr_string(d, cu, DW_AT_producer, &u->producer);
	if (dwarf_lowpc(cu, &base, &err) != DW_DLV_OK)
		dw_err_free(d, err);
	u->base = base;
	rc = dw_ranges_read(d, cu, base, (uint32_t)d->nunits, &d->ranges, &d->nranges, rcap);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		uint32_t *nr = realloc(d->rangeless, (d->nrangeless + 1) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		d->rangeless = nr;
		d->rangeless[d->nrangeless++] = (uint32_t)d->nunits;
	}
	d->nunits++;
	return 0;
}

int dw_debug_index(struct dw_debug *d)
{
	size_t cap = 0, rcap = 0;
	int rc = 0;

	if (d->indexed)
		return 0;
	d->indexed = true;
	for (;;) {
		Dwarf_Unsigned hlen, abbrev_off, typeoff, next;
		Dwarf_Half version, asize, lsize, esize, cutype;
		Dwarf_Sig8 sig;
		Dwarf_Error err = NULL;
		Dwarf_Die cu = NULL;
		int r = dwarf_next_cu_header_d(d->dbg, 1, &hlen, &version, &abbrev_off, &asize, &lsize,
					       &esize, &sig, &typeoff, &next, &cutype, &err);

		if (r == DW_DLV_NO_ENTRY)
			break;
		if (r != DW_DLV_OK) {
			dw_err_free(d, err);
			d->damaged = true;
			break;
		}
		if (dwarf_siblingof_b(d->dbg, NULL, 1, &cu, &err) != DW_DLV_OK) {
			dw_err_free(d, err);
			d->damaged = true;
			continue;
		}
		rc = dw_debug_add_unit(d, cu, version, &cap, &rcap);
		dwarf_dealloc_die(cu);
		if (rc == -EIO) {
			d->damaged = true;
			rc = 0;
		}
		if (rc < 0)
			break;
	}
	dw_ranges_sort(d->ranges, d->nranges);
	return rc;
}
