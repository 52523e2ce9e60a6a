/* dwarf/dw_range.c: the address ranges of a DIE and the sorted tables
 * built of them (dw_range.h). DWARF 4 range lists through .debug_ranges,
 * DWARF 5 ones through .debug_rnglists, each reference checked first
 * against the section libdwarf would read it from. Below dw_debug (the
 * unit index), dw_unit (function ranges) and dw_vars (scopes): it calls
 * only dw_die and dw_elf. */
#include "dwarf/dw_range.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_elf.h"

static int dw_range_push(struct dw_range **out, size_t *n, size_t *cap, uint64_t low, uint64_t high,
			 uint32_t owner)
{
	if (high <= low)
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct dw_range *r = realloc(*out, nc * sizeof(*r));

		if (!r)
			return -ENOMEM;
		*out = r;
		*cap = nc;
	}
	(*out)[(*n)++] = (struct dw_range){ .low = low, .high = high, .owner = owner };
	return 1;
}

static bool dw_attr_offset(Dwarf_Debug dbg, Dwarf_Attribute a, Dwarf_Half form, Dwarf_Unsigned *off)
{
	Dwarf_Error err = NULL;
	Dwarf_Off o;

	if (form == DW_FORM_rnglistx || form == DW_FORM_data4 || form == DW_FORM_data8) {
		if (dwarf_formudata(a, off, &err) == DW_DLV_OK)
			return true;
	} else if (dwarf_global_formref(a, &o, &err) == DW_DLV_OK) {
		*off = o;
		return true;
	}
	dw_err_drop(dbg, err);
	return false;
}

/* The largest offset-table count of the .debug_rnglists units (their
 * header chain was checked by dw_units_sane before libdwarf saw it). */
static uint64_t dw_rnglists_max_count(const uint8_t *p, size_t size)
{
	uint64_t max = 0;
	size_t off = 0;

	while (size - off >= 12) {
		uint32_t len32, count;
		uint64_t len;
		size_t hdr = 4;

		memcpy(&len32, p + off, 4);
		len = len32;
		if (len32 == 0xffffffffu) {
			if (size - off < 20)
				break;
			memcpy(&len, p + off + 4, 8);
			hdr = 12;
		}
		memcpy(&count, p + off + hdr + 4, 4);
		if (count > max)
			max = count;
		if (len > size - off - hdr)
			break;
		off += hdr + (size_t)len;
	}
	return max;
}

/* libdwarf 20210528 reads wild memory for a range-list offset past
 * .debug_rnglists or an index past the offset tables (found by fuzzing):
 * take only references that land inside. */
static bool dw_rnglist_ref_sane(struct dw_debug *d, Dwarf_Half form, Dwarf_Unsigned off)
{
	size_t idx = dw_elf_find(d->elf, ".debug_rnglists");
	const void *data;
	size_t size;

	if (!idx || d->elf->sections[idx].hidden || dw_elf_load(d->elf, idx, &data, &size))
		return false;
	if (form != DW_FORM_rnglistx)
		return off < size;
	return off < dw_rnglists_max_count(data, size);
}

static int dw_ranges_v5(struct dw_debug *d, Dwarf_Attribute a, Dwarf_Half form, Dwarf_Unsigned off,
			uint32_t owner, struct dw_range **out, size_t *n, size_t *cap)
{
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Unsigned count = 0, goff;
	Dwarf_Error err = NULL;
	int added = 0;

	if (!dw_rnglist_ref_sane(d, form, off)) {
		d->damaged = true;
		return 0;
	}
	if (dwarf_rnglists_get_rle_head(a, form, off, &head, &count, &goff, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		d->damaged = true;
		return 0;
	}
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		unsigned len, code;
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavailable = 0;
		int rc;

		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2, &unavailable, &lo,
						      &hi, &err) != DW_DLV_OK) {
			dw_err_free(d, err);
			err = NULL;
			d->damaged = true;
			break;
		}
		if (code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
		    code == DW_RLE_base_addressx || unavailable)
			continue;
		rc = dw_range_push(out, n, cap, lo, hi, owner);
		if (rc < 0) {
			added = rc;
			break;
		}
		added += rc;
	}
	dwarf_dealloc_rnglists_head(head);
	return added;
}

static int dw_ranges_v4(struct dw_debug *d, Dwarf_Die die, Dwarf_Unsigned off, uint64_t base,
			uint32_t owner, struct dw_range **out, size_t *n, size_t *cap)
{
	Dwarf_Ranges *r = NULL;
	Dwarf_Signed count = 0;
	Dwarf_Unsigned bytes;
	Dwarf_Off real;
	Dwarf_Error err = NULL;
	int added = 0;

	if (dwarf_get_ranges_b(d->dbg, off, die, &real, &r, &count, &bytes, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		d->damaged = true;
		return 0;
	}
	for (Dwarf_Signed i = 0; i < count; i++) {
		int rc = 0;

		if (r[i].dwr_type == DW_RANGES_END)
			break;
		if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = r[i].dwr_addr2;
		else
			rc = dw_range_push(out, n, cap, base + r[i].dwr_addr1, base + r[i].dwr_addr2, owner);
		if (rc < 0) {
			added = rc;
			break;
		}
		added += rc;
	}
	dwarf_ranges_dealloc(d->dbg, r, count);
	return added;
}

int dw_ranges_read(struct dw_debug *d, Dwarf_Die die, uint64_t base, uint32_t owner,
		   struct dw_range **out, size_t *n, size_t *cap)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Addr low, high;
	Dwarf_Half form, version = 4, offsize;
	enum Dwarf_Form_Class cls;
	int rc = 0;

	if (dwarf_attr(die, DW_AT_ranges, &a, &err) == DW_DLV_OK) {
		Dwarf_Unsigned off;

		if (dwarf_whatform(a, &form, &err) == DW_DLV_OK && dw_attr_offset(d->dbg, a, form, &off)) {
			dwarf_get_version_of_die(die, &version, &offsize);
			if (version >= 5 || form == DW_FORM_rnglistx)
				rc = dw_ranges_v5(d, a, form, off, owner, out, n, cap);
			else
				rc = dw_ranges_v4(d, die, off, base, owner, out, n, cap);
		}
		dw_err_free(d, err);
		dwarf_dealloc_attribute(a);
		return rc;
	}
	dw_err_free(d, err);
	err = NULL;
	if (dwarf_lowpc(die, &low, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	if (dwarf_highpc_b(die, &high, &form, &cls, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	if (cls == DW_FORM_CLASS_CONSTANT)
		high += low;
	if (high == 0)
		return 0; /* bfd ignores a zero high_pc */
	return dw_range_push(out, n, cap, low, high, owner);
}

static int dw_range_cmp(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high < y->high ? -1 : 1;
	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

void dw_ranges_sort(struct dw_range *r, size_t n)
{
	uint64_t wm = 0;

	if (n == 0)
		return;
	qsort(r, n, sizeof(*r), dw_range_cmp);
	for (size_t i = 0; i < n; i++) {
		if (r[i].high > wm)
			wm = r[i].high;
		r[i].watermark = wm;
	}
}

void dw_ranges_each(const struct dw_range *r, size_t n, uint64_t addr,
		    int (*fn)(const struct dw_range *, void *), void *arg)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && r[lo].watermark > addr)
		if (addr < r[lo].high && fn(&r[lo], arg))
			return;
}
