/* dw_served: the files of an address space a debugger may read; see
 * dw_served.h. */
#include "dwarf/dw_served.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_access.h"
#include "dwarf/dw_debugfile.h"
#include "dwarf/dw_elf.h"

void dw_served_init(struct dw_served *s, const char *root)
{
	memset(s, 0, sizeof(*s));
	dw_pool_init(&s->pool);
	s->root = dw_pool_strdup(&s->pool, root ? root : "");
	if (!s->root)
		s->root = "";
	s->reader = -1;
}

void dw_served_set_reader(struct dw_served *s, int64_t uid)
{
	s->reader = uid;
}

/* Whether the reader could read the file open at @fd (dw_access.h's
 * check, the one every file opened for a recording passes). */
static bool served_readable(const struct dw_served *s, int fd)
{
	return dw_access_readable(fd, s->reader);
}

void dw_served_release(struct dw_served *s)
{
	free(s->names);
	free(s->objects);
	dw_pool_fini(&s->pool);
	memset(s, 0, sizeof(*s));
}

/* @a then @b into the pool: 0, -ENAMETOOLONG, -ENOMEM. */
static int served_cat(struct dw_served *s, const char *a, const char *b, const char **out)
{
	char buf[PATH_MAX];
	int n = snprintf(buf, sizeof(buf), "%s%s", a, b);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	*out = dw_pool_strdup(&s->pool, buf);
	return *out ? 0 : -ENOMEM;
}

/* realpath(@path) in the pool, NULL when there is none. */
static const char *served_real(struct dw_served *s, const char *path)
{
	char *r = realpath(path, NULL);
	const char *p = r ? dw_pool_strdup(&s->pool, r) : NULL;

	free(r);
	return p;
}

/* Opens @path for reading if it is a regular file. The check is made on an
 * O_PATH descriptor and the file reopened through it, so a device or a
 * FIFO is never opened, even one swapped in meanwhile. */
static int served_open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd = open(path, O_PATH | O_CLOEXEC), fd;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -EACCES;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

static int served_add_name(struct dw_served *s, const char *name, const char *open_path,
			   enum dw_served_kind kind, size_t object)
{
	struct dw_served_name *n;

	if (s->nnames == s->names_cap) {
		size_t cap = s->names_cap ? 2 * s->names_cap : 16;
		void *p = realloc(s->names, cap * sizeof(*s->names));

		if (!p)
			return -ENOMEM;
		s->names = p;
		s->names_cap = cap;
	}
	n = &s->names[s->nnames];
	n->name = dw_pool_strdup(&s->pool, name);
	if (!n->name)
		return -ENOMEM;
	n->open = open_path;
	n->real = served_real(s, open_path);
	n->kind = kind;
	n->object = object;
	s->nnames++;
	return 0;
}

static int served_push_object(struct dw_served *s, const struct dw_served_object *o)
{
	if (s->nobjects == s->objects_cap) {
		size_t cap = s->objects_cap ? 2 * s->objects_cap : 8;
		void *p = realloc(s->objects, cap * sizeof(*s->objects));

		if (!p)
			return -ENOMEM;
		s->objects = p;
		s->objects_cap = cap;
	}
	s->objects[s->nobjects++] = *o;
	return 0;
}

/* What the object open at @fd is, if it is the file @id says. */
static void served_read_object(struct dw_served *s, int fd, const struct dw_served_id *id,
			       struct dw_served_object *o)
{
	const uint8_t *bid;
	const char *link;
	struct dw_elf *e;
	struct stat st;
	size_t n;

	if (fstat(fd, &st) < 0 || (id && (id->dev != st.st_dev || id->ino != st.st_ino)))
		return;
	o->id.dev = st.st_dev;
	o->id.ino = st.st_ino;
	o->known = true;
	if (dw_elf_open_fd(fd, NULL, &e) != 0)
		return; /* not ELF: no debug files */
	n = dw_elf_build_id(e, &bid);
	if (n && n <= sizeof(o->build_id)) {
		memcpy(o->build_id, bid, n);
		o->build_id_len = n;
	}
	link = dw_elf_debuglink(e, &o->crc);
	if (link && !strchr(link, '/'))
		o->debuglink = dw_pool_strdup(&s->pool, link);
	dw_elf_free(e);
}

/* One debug-file name, @fmt formatted, under the root. */
static int served_add_debug(struct dw_served *s, size_t object, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int served_add_debug(struct dw_served *s, size_t object, const char *fmt, ...)
{
	char name[PATH_MAX];
	const char *open_path;
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(name))
		return 0;
	r = served_cat(s, s->root, name, &open_path);
	if (r)
		return r == -ENAMETOOLONG ? 0 : r;
	return served_add_name(s, name, open_path, DW_SERVED_DEBUG, object);
}

/* The names GDB looks for the debug file of the object @name by. */
static int served_add_debug_names(struct dw_served *s, const char *name, size_t object)
{
	const struct dw_served_object *o = &s->objects[object];
	const char *slash = strrchr(name, '/'), *link = o->debuglink;
	int dir = slash ? (int)(slash - name) : 0, r = 0;
	char hex[2 * sizeof(o->build_id) + 1];

	if (o->build_id_len >= 2) {
		for (size_t i = 0; i < o->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
		r = served_add_debug(s, object, "%s/.build-id/%.2s/%s.debug", DW_SERVED_DEBUG_ROOT,
				     hex, hex + 2);
	}
	if (name[0] != '/' || (!o->build_id_len && !link))
		return r;
	if (!r && link)
		r = served_add_debug(s, object, "%.*s/%s", dir, name, link);
	if (!r && link)
		r = served_add_debug(s, object, "%.*s/.debug/%s", dir, name, link);
	if (!r && link)
		r = served_add_debug(s, object, "%s%.*s/%s", DW_SERVED_DEBUG_ROOT, dir, name, link);
	if (!r)
		r = served_add_debug(s, object, "%s%s.debug", DW_SERVED_DEBUG_ROOT, name);
	return r;
}

int dw_served_add_object(struct dw_served *s, const char *name, const char *path,
			 const struct dw_served_id *id)
{
	struct dw_served_object o = { 0 };
	const char *open_path;
	int fd, r;

	for (size_t i = 0; i < s->nnames; i++)
		if (s->names[i].kind == DW_SERVED_OBJECT && !strcmp(s->names[i].name, name))
			return 0;
	if (path)
		r = served_cat(s, "", path, &open_path);
	else
		r = served_cat(s, s->root, name, &open_path);
	if (r)
		return r == -ENAMETOOLONG ? 0 : r;
	fd = served_open_regular(open_path);
	if (fd >= 0) {
		served_read_object(s, fd, id, &o);
		close(fd);
	}
	r = served_push_object(s, &o);
	if (!r)
		r = served_add_name(s, name, open_path, DW_SERVED_OBJECT, s->nobjects - 1);
	if (!r && o.known)
		r = served_add_debug_names(s, name, s->nobjects - 1);
	return r;
}

int dw_served_add_image(struct dw_served *s, const void *buf, size_t len)
{
	struct dw_served_object o = { 0 };
	const uint8_t *bid;
	struct dw_elf *e;
	size_t n;
	int r = dw_elf_open_memory(buf, len, "[vdso]", &e);

	if (r)
		return r == -ENOMEM ? r : 0;
	n = dw_elf_build_id(e, &bid);
	if (n >= 2 && n <= sizeof(o.build_id)) {
		memcpy(o.build_id, bid, n);
		o.build_id_len = n;
	}
	dw_elf_free(e);
	if (!o.build_id_len)
		return 0;
	r = served_push_object(s, &o);
	return r ? r : served_add_debug_names(s, "[vdso]", s->nobjects - 1);
}

int dw_served_add_plain(struct dw_served *s, const char *path)
{
	const char *open_path = dw_pool_strdup(&s->pool, path);

	return open_path ? served_add_name(s, path, open_path, DW_SERVED_PLAIN, 0) : -ENOMEM;
}

/* The served name @name is, by itself or (but for plain files) by its real
 * path; NULL when none. */
static const struct dw_served_name *served_find(struct dw_served *s, const char *name,
						bool exact)
{
	const struct dw_served_name *found = NULL;
	char path[PATH_MAX];
	char *real;
	int n;

	for (size_t i = 0; i < s->nnames; i++)
		if (!strcmp(s->names[i].name, name))
			return &s->names[i];
	n = snprintf(path, sizeof(path), "%s%s", s->root, name);
	if (exact || name[0] != '/' || n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	real = realpath(path, NULL);
	for (size_t i = 0; real && !found && i < s->nnames; i++)
		if (s->names[i].kind != DW_SERVED_PLAIN && s->names[i].real &&
		    !strcmp(s->names[i].real, real))
			found = &s->names[i];
	free(real);
	return found;
}

static int served_crc(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	off_t off = 0;
	ssize_t n;

	*crc = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		*crc = dw_crc32(*crc, buf, (size_t)n);
		off += n;
	}
	return n < 0 ? -errno : 0;
}

/* Whether the file open at @fd is the debug file of @o. */
static bool served_is_debug(const struct dw_served_object *o, int fd)
{
	const uint8_t *id;
	struct dw_elf *e;
	uint32_t crc;
	bool same = false;

	if (o->build_id_len) {
		if (dw_elf_open_fd(fd, NULL, &e) != 0)
			return false;
		same = dw_elf_build_id(e, &id) == o->build_id_len &&
		       !memcmp(id, o->build_id, o->build_id_len);
		dw_elf_free(e);
		return same;
	}
	return o->debuglink && served_crc(fd, &crc) == 0 && crc == o->crc;
}

/* Whether the file open at @fd is the one @n stands for. */
static bool served_is(const struct dw_served *s, const struct dw_served_name *n, int fd)
{
	const struct dw_served_object *o = &s->objects[n->object];
	struct stat st;

	switch (n->kind) {
	case DW_SERVED_PLAIN:
		return true;
	case DW_SERVED_OBJECT:
		return o->known && fstat(fd, &st) == 0 && st.st_dev == o->id.dev &&
		       st.st_ino == o->id.ino;
	case DW_SERVED_DEBUG:
		return served_is_debug(o, fd);
	}
	return false;
}

int dw_served_open(struct dw_served *s, const char *name)
{
	const struct dw_served_name *n = served_find(s, name, false);
	int fd;

	if (!n)
		return -EACCES;
	fd = served_open_regular(n->open);
	/* Every kind is checked: /proc/PID/exe opens the program, which
	 * may be execute-only for its user. */
	if (fd >= 0 && (!served_is(s, n, fd) || !served_readable(s, fd))) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int dw_served_readlink(struct dw_served *s, const char *name, char *buf, size_t size)
{
	const struct dw_served_name *n = served_find(s, name, true);
	ssize_t len;

	if (!n)
		return -EACCES;
	len = readlink(n->open, buf, size);
	if (len < 0)
		return -errno;
	return len > INT32_MAX ? -EOVERFLOW : (int)len;
}

int dw_served_open_any(const char *root, const char *name)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s%s", root, name);

	return n < 0 || (size_t)n >= sizeof(path) ? -ENAMETOOLONG : served_open_regular(path);
}

int dw_served_readlink_any(const char *root, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s%s", root, name);
	ssize_t len;

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	len = readlink(path, buf, size);
	if (len < 0)
		return -errno;
	return len > INT32_MAX ? -EOVERFLOW : (int)len;
}
