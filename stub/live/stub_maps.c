/*
 * stub/live/stub_maps.c: parsing /proc/PID/maps lines.
 *
 * A line: "start-end perms offset dev inode [name]", addresses in hex.
 */
#include "stub/live/stub_maps.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

struct stub_maps_line {
	uint64_t start, end;
	char perms[5];
	const char *name;    /* into the text, up to the newline */
	size_t name_len;
	unsigned dev_major, dev_minor;
	uint64_t inode;
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
	/* perms, offset, dev, inode */
	for (p = end; p < eol && fields < 4; fields++) {
		while (p < eol && *p == ' ')
			p++;
		if (fields == 2 && sscanf(p, "%x:%x", &l->dev_major, &l->dev_minor) != 2)
			return -EINVAL;
		if (fields == 3)
			l->inode = strtoull(p, NULL, 10);
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

int stub_maps_files(const char *text, int (*fn)(void *ctx, const struct stub_maps_file *f),
		    void *ctx)
{
	static const char deleted[] = " (deleted)";
	const char *s = text;

	while (*s) {
		struct stub_maps_line l;
		struct stub_maps_file f;
		char path[PATH_MAX];
		int r = stub_maps_parse(s, &l, &s);

		if (r < 0)
			return r;
		if (l.name_len == 0 || l.name[0] != '/' || l.name_len >= sizeof(path) ||
		    (l.name_len >= sizeof(deleted) - 1 &&
		     !memcmp(l.name + l.name_len - (sizeof(deleted) - 1), deleted,
			     sizeof(deleted) - 1)))
			continue;
		memcpy(path, l.name, l.name_len);
		path[l.name_len] = 0;
		f.path = path;
		f.dev = makedev(l.dev_major, l.dev_minor);
		f.ino = l.inode;
		f.start = l.start;
		f.end = l.end;
		r = fn(ctx, &f);
		if (r)
			return r;
	}
	return 0;
}

int stub_maps_named(const char *text, const char *name, uint64_t *start, uint64_t *end)
{
	size_t len = strlen(name);
	const char *s = text;

	while (*s) {
		struct stub_maps_line l;
		int r = stub_maps_parse(s, &l, &s);

		if (r < 0)
			return r;
		if (l.name_len == len && !memcmp(l.name, name, len)) {
			*start = l.start;
			*end = l.end;
			return 0;
		}
	}
	return -ENOENT;
}
