/*
 * replay/frontend/frontend_break.c: FUNC, FILE:LINE, LINE and *ADDR into addresses
 * (see frontend_break.h).
 */
#include "replay/frontend/frontend_break.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_break.h"
#include "dwarf/dw_image.h"
#include "replay/frontend/cexpr.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_images.h"
#include "replay/frontend/frontend_vars.h"

#define LINES_AHEAD 10

static int fb_place_cmp(const void *a, const void *b)
{
	const struct dw_break_place *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every place of @name in every image, as GDB's linespec takes them: the
 * DWARF functions and inlined instances of every image, and the ELF
 * function symbols (local ones only when no image has a global one), each
 * where GDB 13 puts a breakpoint (dwarf/dw_break.h), one per address. */
static int fb_function(struct replay_frontend *f, const char *name, uint64_t *addrs, size_t max)
{
	struct replay_frontend_images *im = replay_frontend_images(f);
	struct dw_break_place *all = NULL;
	size_t n = 0, kept = 0;
	bool global = false;

	if (!im)
		return -ENOMEM;
	for (size_t i = 0; i < im->n; i++) {
		int k = dw_image_break_places(im->v[i].img, name, NULL, 0);
		struct dw_break_place *more;

		if (k <= 0)
			continue;
		more = realloc(all, (n + (size_t)k) * sizeof(*all));
		if (!more) {
			free(all);
			return -ENOMEM;
		}
		all = more;
		k = dw_image_break_places(im->v[i].img, name, all + n, (size_t)k);
		for (int j = 0; j < k; j++) {
			all[n + (size_t)j].addr += im->v[i].bias;
			global |= all[n + (size_t)j].kind == DW_BREAK_GLOBAL;
		}
		n += k > 0 ? (size_t)k : 0;
	}
	if (n)
		qsort(all, n, sizeof(*all), fb_place_cmp);
	for (size_t i = 0; i < n; i++) {
		if (global && all[i].kind == DW_BREAK_LOCAL)
			continue;
		if (kept && addrs[kept - 1] == all[i].addr)
			continue;
		if (kept == max) {
			free(all);
			return -E2BIG;
		}
		addrs[kept++] = all[i].addr;
	}
	free(all);
	return (int)kept;
}

static int fb_line(struct replay_frontend *f, const char *file, unsigned line, uint64_t *addrs,
		   size_t max)
{
	struct replay_frontend_images *im = replay_frontend_images(f);
	size_t n = 0;

	if (!im)
		return -ENOMEM;
	for (unsigned l = line; l < line + LINES_AHEAD && !n; l++) {
		for (size_t i = 0; i < im->n && n < max; i++) {
			uint64_t got[REPLAY_FRONTEND_MAX_ADDRS];
			int k = dw_image_line_addrs(im->v[i].img, file, l, got,
						    REPLAY_FRONTEND_MAX_ADDRS);

			for (int j = 0; j < k && j < REPLAY_FRONTEND_MAX_ADDRS && n < max; j++)
				addrs[n++] = got[j] + im->v[i].bias;
		}
	}
	return (int)n;
}

static int fb_number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* *EXPR: any expression's value as an address, as GDB evaluates it
 * (`*0x401136`, `*free`, `*free+4`, `*(&sym)+n`, `*$pc`); names of
 * functions known only by an ELF symbol count. */
static int fb_expression(struct replay_frontend *f, const char *expr, uint64_t *addrs)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	struct cexpr_value *v = NULL;
	int rc;

	if (fb_number(expr, &addrs[0]) == 0)
		return 1;
	if (!cx)
		return -ENOMEM;
	f->msym_values = true;
	rc = cexpr_eval(cx, expr, &v);
	f->msym_values = false;
	if (rc == 0 && cexpr_value_address(v, &addrs[0]) < 0)
		rc = -EINVAL;
	cexpr_value_free(v);
	if (rc == -ENOMEM)
		return rc;
	return rc < 0 ? -EINVAL : 1;
}

int replay_frontend_resolve(struct replay_frontend *f, const char *spec, uint64_t *addrs,
			    size_t max)
{
	const char *colon = strrchr(spec, ':');
	struct replay_symbol s;
	uint64_t v, pc;

	if (!*spec || max == 0)
		return -EINVAL;
	if (spec[0] == '*')
		return fb_expression(f, spec + 1, addrs);
	if (colon && colon != spec && !strchr(colon, ' ')) {
		char file[1024];

		if (fb_number(colon + 1, &v) < 0 || v == 0 || v > 10000000 ||
		    (size_t)(colon - spec) >= sizeof(file))
			return -EINVAL;
		memcpy(file, spec, (size_t)(colon - spec));
		file[colon - spec] = 0;
		return fb_line(f, file, (unsigned)v, addrs, max);
	}
	if (fb_number(spec, &v) == 0) {
		if (replay_frontend_where(f, &pc, &s) < 0 || !s.file || v == 0 || v > 10000000)
			return -EINVAL;
		return fb_line(f, s.file, (unsigned)v, addrs, max);
	}
	return fb_function(f, spec, addrs, max);
}
