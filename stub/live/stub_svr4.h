/*
 * stub/live/stub_svr4.h: the dynamic linker's library list (r_debug / link_map).
 *
 * Finds the main executable's dynamic section from the auxiliary vector
 * (AT_PHDR / AT_PHNUM, then PT_PHDR for the load bias and PT_DYNAMIC), the
 * DT_DEBUG entry in it (whose value ld.so sets to &_r_debug), and walks the
 * link_map chain into a library list (protocol/rsp_svr4.h), as gdbserver does.
 * Memory is read through a callback so that it can be tested on a fake
 * image; the walk is bounded and stops at an inconsistent l_prev.
 */
#ifndef HINDSIGHT_STUB_STUB_SVR4_H
#define HINDSIGHT_STUB_STUB_SVR4_H

#include <stddef.h>
#include <stdint.h>

struct rsp_buf;
struct rsp_svr4_list;

/* Reads @len bytes at @addr: the number of bytes read or a negative errno. */
struct stub_svr4_reader {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
};

/* The most link_map entries walked. */
#define STUB_SVR4_MAX_ENTRIES 10000

/* The address of the value (d_ptr) of the executable's DT_DEBUG entry, from
 * the raw auxv @auxv. 0, -ENOENT (no AT_PHDR, PT_PHDR, PT_DYNAMIC or
 * DT_DEBUG: e.g. a static executable), -EIO (unreadable memory). */
int stub_svr4_debug_slot(const struct stub_svr4_reader *rd, const void *auxv,
			 size_t auxv_len, uint64_t *slot);
/* The library list for the r_debug at @r_debug (0: not set up yet, an
 * empty list) into @list (initialised by the caller). 0 or -ENOMEM. */
int stub_svr4_list(const struct stub_svr4_reader *rd, uint64_t r_debug,
		   struct rsp_svr4_list *list);
/* The same, appended to @out as the libraries-svr4 document. 0 or -ENOMEM. */
int stub_svr4_xml(const struct stub_svr4_reader *rd, uint64_t r_debug, struct rsp_buf *out);

#endif
