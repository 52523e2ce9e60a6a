/*
 * protocol/rsp_svr4.h: GDB's library-list-svr4 document
 * (qXfer:libraries-svr4), written from a typed list that the targets fill:
 * the live target from the dynamic linker's link_map chain
 * (stub/live/stub_svr4.h), the replay target from a recording's mappings
 * (replay/target/svr4.h). The one writer of that XML.
 *
 * Spelled as gdbserver spells it: main-lm only when the program's
 * link_map is known, one <library name lm l_addr l_ld lmid/> a library,
 * names XML-escaped (rsp_reply_xml_text), and the root element closed
 * with "/>" when no library follows. Lifetime: rsp_svr4_list_init /
 * rsp_svr4_list_release. Nothing here prints.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_SVR4_H
#define HINDSIGHT_PROTOCOL_RSP_SVR4_H

#include <stddef.h>
#include <stdint.h>

struct rsp_buf;

/* One shared library, as a link_map entry describes it. */
struct rsp_svr4_lib {
	char *name;                    /* owned: the path the process loaded */
	uint64_t lm;                   /* its link_map (an identity to GDB) */
	uint64_t l_addr;               /* load bias */
	uint64_t l_ld;                 /* address of its dynamic section */
	uint64_t lmid;                 /* namespace: r_debug's address, or 0 */
};

struct rsp_svr4_list {
	uint64_t main_lm;              /* the program's link_map; 0: not known */
	struct rsp_svr4_lib *libs;
	size_t n, cap;
};

void rsp_svr4_list_init(struct rsp_svr4_list *l);
void rsp_svr4_list_release(struct rsp_svr4_list *l);

/* Appends a library (@name copied). 0 or -ENOMEM. */
int rsp_svr4_list_add(struct rsp_svr4_list *l, const char *name, uint64_t lm,
		      uint64_t l_addr, uint64_t l_ld, uint64_t lmid);

/* Appends the <library-list-svr4> document of @l to @out. 0 or -ENOMEM. */
int rsp_svr4_xml(const struct rsp_svr4_list *l, struct rsp_buf *out);

#endif
