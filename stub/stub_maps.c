/*
 * stub/stub_maps.c: parsing /proc/PID/maps lines.
 *
 * A line: "start-end perms offset dev inode [name]", addresses in hex.
 */
#include "stub/stub_maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stub_maps_line {
	uint64_t start, end;
	char perms[5];
	const char *name;    /* into the text, up to the newline */
	size_t name_len;
};

/* Parses one line starting at @s; the start of the next line in *@next. */
static int stub_maps_parse(const char *s, struct stub_maps_line *l, const char **next)
{
	const char *eol = strchrnul(s, '\n');
	char *end;
	int fields = 0;
	const char *p;

	*next = *eol ? eol + 1 : eol;
	l->start = strtoull(s, &end, 16);
	if (*end != '-')
		return -EINVAL;
	l->end = strtoull(end + 1, &end, 16);
	if (*end != ' ' || eol - end < 5 || l->end < l->start)
		return -EINVAL;
	memcpy(l->perms, end + 1, 4);
	l->perms[4] = 0;
	/* skip perms, offset, dev, inode */
	for (p = end; p < eol && fields < 4; fields++) {
		while (p < eol && *p == ' ')
			p++;
		while (p < eol && *p != ' ')
			p++;
	}
	while (p < eol && *p == ' ')
		p++;
	l->name = p;
	l->name_len = (size_t)(eol - p);
	return fields == 4 ? 0 : -EINVAL;
}

static void stub_maps_mapped(const struct stub_maps_line *l, struct rsp_region *out)
{
	size_t n = l->name_len < sizeof(out->name) - 1 ? l->name_len : sizeof(out->name) - 1;

	out->start = l->start;
	out->size = l->end - l->start;
	out->mapped = true;
	out->read = l->perms[0] == 'r';
	out->write = l->perms[1] == 'w';
	out->exec = l->perms[2] == 'x';
	memcpy(out->name, l->name, n);
	out->name[n] = 0;
}

int stub_maps_region(const char *text, uint64_t addr, struct rsp_region *out)
{
	uint64_t hole_start = 0;
	const char *s = text;

	memset(out, 0, sizeof(*out));
	while (*s) {
		struct stub_maps_line l;
		int r = stub_maps_parse(s, &l, &s);

		if (r < 0)
			return r;
		if (addr >= l.start && addr < l.end) {
			stub_maps_mapped(&l, out);
			return 0;
		}
		if (addr < l.start) {
			out->start = hole_start;
			out->size = l.start - hole_start;
			return 0;
		}
		hole_start = l.end;
	}
	out->start = hole_start;
	out->size = UINT64_MAX - hole_start;
	return 0;
}
