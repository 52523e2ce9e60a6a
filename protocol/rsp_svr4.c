/*
 * protocol/rsp_svr4.c: the library-list-svr4 document from a typed list.
 */
#include "protocol/rsp_svr4.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_reply.h"

void rsp_svr4_list_init(struct rsp_svr4_list *l)
{
	memset(l, 0, sizeof(*l));
}

void rsp_svr4_list_release(struct rsp_svr4_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->libs[i].name);
	free(l->libs);
	rsp_svr4_list_init(l);
}

int rsp_svr4_list_add(struct rsp_svr4_list *l, const char *name, uint64_t lm,
		      uint64_t l_addr, uint64_t l_ld, uint64_t lmid)
{
	char *copy;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct rsp_svr4_lib *nv = realloc(l->libs, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->libs = nv;
		l->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	l->libs[l->n++] = (struct rsp_svr4_lib){ copy, lm, l_addr, l_ld, lmid };
	return 0;
}

static int rsp_svr4_library(struct rsp_buf *out, const struct rsp_svr4_lib *lib)
{
	int r = rsp_buf_puts(out, "<library name=\"");

	if (r == 0)
		r = rsp_reply_xml_text(out, lib->name);
	if (r == 0)
		r = rsp_buf_printf(out, "\" lm=\"0x%" PRIx64 "\" l_addr=\"0x%" PRIx64
				   "\" l_ld=\"0x%" PRIx64 "\" lmid=\"0x%" PRIx64 "\"/>",
				   lib->lm, lib->l_addr, lib->l_ld, lib->lmid);
	return r;
}

int rsp_svr4_xml(const struct rsp_svr4_list *l, struct rsp_buf *out)
{
	int r = rsp_buf_puts(out, "<library-list-svr4 version=\"1.0\"");

	if (r == 0 && l->main_lm)
		r = rsp_buf_printf(out, " main-lm=\"0x%" PRIx64 "\"", l->main_lm);
	if (r == 0 && !l->n)
		return rsp_buf_puts(out, "/>");
	if (r == 0)
		r = rsp_buf_putc(out, '>');
	for (size_t i = 0; i < l->n && r == 0; i++)
		r = rsp_svr4_library(out, &l->libs[i]);
	return r ? r : rsp_buf_puts(out, "</library-list-svr4>");
}
