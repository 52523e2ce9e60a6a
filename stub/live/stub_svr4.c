/*
 * stub/live/stub_svr4.c: DT_DEBUG lookup and the libraries-svr4 list.
 *
 * As gdbserver: the first link_map is the main program (main-lm), each
 * following one with a non-empty name is a library whose lmid is the
 * r_debug address; protocol/rsp_svr4.c writes the document.
 */
#include "stub/live/stub_svr4.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "protocol/rsp_svr4.h"

/* r_debug and link_map field offsets on x86-64. */
#define STUB_R_MAP 8
#define STUB_LM_ADDR 0
#define STUB_LM_NAME 8
#define STUB_LM_LD 16
#define STUB_LM_NEXT 24
#define STUB_LM_PREV 32
#define STUB_SVR4_MAX_DYN 4096

static int stub_svr4_read_exact(const struct stub_svr4_reader *rd, uint64_t addr,
				void *buf, size_t len)
{
	int r = rd->read(rd->ctx, addr, buf, len);

	if (r < 0)
		return r;
	return (size_t)r == len ? 0 : -EIO;
}

static int stub_svr4_read_u64(const struct stub_svr4_reader *rd, uint64_t addr, uint64_t *v)
{
	return stub_svr4_read_exact(rd, addr, v, sizeof(*v));
}

/* AT_PHDR and AT_PHNUM from @auxv. */
static int stub_svr4_auxv(const void *auxv, size_t len, uint64_t *phdr, uint64_t *phnum)
{
	const uint8_t *p = auxv;

	*phdr = 0;
	*phnum = 0;
	for (size_t off = 0; off + 16 <= len; off += 16) {
		uint64_t type, val;

		memcpy(&type, p + off, 8);
		memcpy(&val, p + off + 8, 8);
		if (type == AT_NULL)
			break;
		if (type == AT_PHDR)
			*phdr = val;
		else if (type == AT_PHNUM)
			*phnum = val;
	}
	return *phdr && *phnum && *phnum < 0x10000 ? 0 : -ENOENT;
}

/* The run-time address and size of the executable's dynamic section. */
static int stub_svr4_dynamic(const struct stub_svr4_reader *rd, uint64_t phdr,
			     uint64_t phnum, uint64_t *dyn, uint64_t *dyn_size)
{
	uint64_t bias = 0, vaddr = 0;
	int have_phdr = 0, have_dyn = 0;

	for (uint64_t i = 0; i < phnum; i++) {
		Elf64_Phdr ph;
		int r = stub_svr4_read_exact(rd, phdr + i * sizeof(ph), &ph, sizeof(ph));

		if (r < 0)
			return r;
		if (ph.p_type == PT_PHDR) {
			bias = phdr - ph.p_vaddr;
			have_phdr = 1;
		} else if (ph.p_type == PT_DYNAMIC) {
			vaddr = ph.p_vaddr;
			*dyn_size = ph.p_memsz;
			have_dyn = 1;
		}
	}
	if (!have_phdr || !have_dyn)
		return -ENOENT;
	*dyn = bias + vaddr;
	return 0;
}

/* The address of DT_DEBUG's d_ptr in the dynamic section at @dyn. */
static int stub_svr4_find_debug(const struct stub_svr4_reader *rd, uint64_t dyn,
				uint64_t size, uint64_t *slot)
{
	uint64_t n = size / sizeof(Elf64_Dyn);

	if (n > STUB_SVR4_MAX_DYN)
		n = STUB_SVR4_MAX_DYN;
	for (uint64_t i = 0; i < n; i++) {
		Elf64_Dyn d;
		uint64_t at = dyn + i * sizeof(d);
		int r = stub_svr4_read_exact(rd, at, &d, sizeof(d));

		if (r < 0)
			return r;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG) {
			*slot = at + 8;
			return 0;
		}
	}
	return -ENOENT;
}

int stub_svr4_debug_slot(const struct stub_svr4_reader *rd, const void *auxv,
			 size_t auxv_len, uint64_t *slot)
{
	uint64_t phdr, phnum, dyn = 0, size = 0;
	int r = stub_svr4_auxv(auxv, auxv_len, &phdr, &phnum);

	if (r == 0)
		r = stub_svr4_dynamic(rd, phdr, phnum, &dyn, &size);
	if (r == 0)
		r = stub_svr4_find_debug(rd, dyn, size, slot);
	return r;
}

/* The NUL-terminated string at @addr into @buf (truncated, "" if none). */
static void stub_svr4_read_str(const struct stub_svr4_reader *rd, uint64_t addr,
			       char *buf, size_t size)
{
	int r = addr ? rd->read(rd->ctx, addr, buf, size - 1) : 0;

	buf[r > 0 ? r : 0] = 0;
}

struct stub_svr4_lm {
	uint64_t addr, name, l_addr, l_ld, next, prev;
};

static int stub_svr4_read_lm(const struct stub_svr4_reader *rd, uint64_t at,
			     struct stub_svr4_lm *lm)
{
	uint64_t v[5];
	int r = stub_svr4_read_exact(rd, at, v, sizeof(v));

	if (r < 0)
		return r;
	lm->addr = at;
	lm->l_addr = v[STUB_LM_ADDR / 8];
	lm->name = v[STUB_LM_NAME / 8];
	lm->l_ld = v[STUB_LM_LD / 8];
	lm->next = v[STUB_LM_NEXT / 8];
	lm->prev = v[STUB_LM_PREV / 8];
	return 0;
}

/* The link_map chain from @lm_addr into @list: the first entry is the
 * program (main-lm), each following one with a non-empty name a library. */
static int stub_svr4_walk(const struct stub_svr4_reader *rd, uint64_t r_debug,
			  uint64_t lm_addr, struct rsp_svr4_list *list)
{
	char name[PATH_MAX];
	uint64_t prev = 0;
	struct stub_svr4_lm lm;
	int r = 0;

	for (int i = 0; lm_addr && i < STUB_SVR4_MAX_ENTRIES && r == 0; i++) {
		if (stub_svr4_read_lm(rd, lm_addr, &lm) < 0 || lm.prev != prev)
			break;
		if (i == 0) {
			list->main_lm = lm_addr;
		} else {
			stub_svr4_read_str(rd, lm.name, name, sizeof(name));
			if (name[0])
				r = rsp_svr4_list_add(list, name, lm.addr, lm.l_addr, lm.l_ld,
						      r_debug);
		}
		prev = lm_addr;
		lm_addr = lm.next;
	}
	return r;
}

int stub_svr4_list(const struct stub_svr4_reader *rd, uint64_t r_debug,
		   struct rsp_svr4_list *list)
{
	uint64_t lm_addr = 0;

	if (r_debug && stub_svr4_read_u64(rd, r_debug + STUB_R_MAP, &lm_addr) < 0)
		lm_addr = 0;
	return lm_addr ? stub_svr4_walk(rd, r_debug, lm_addr, list) : 0;
}

int stub_svr4_xml(const struct stub_svr4_reader *rd, uint64_t r_debug, struct rsp_buf *out)
{
	struct rsp_svr4_list list;
	int r;

	rsp_svr4_list_init(&list);
	r = stub_svr4_list(rd, r_debug, &list);
	if (r == 0)
		r = rsp_svr4_xml(&list, out);
	rsp_svr4_list_release(&list);
	return r;
}
