/*
 * stub/recorders/stub_rec_maps.c: /proc/PID/maps to bundle mappings over time, the
 * vDSO dump and build-ids (libelf).
 */
#include "stub/recorders/stub_rec_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_procfs.h"

void stub_rec_maps_init(struct stub_rec_maps *m)
{
	m->v = NULL;
	m->n = 0;
	m->anon_reported = false;
	m->keeps_code = false;
}

bool stub_rec_maps_imaged(const struct stub_rec_maps *m, uint64_t ip)
{
	for (size_t i = 0; i < m->n; i++)
		if (ip >= m->v[i].start && ip < m->v[i].end)
			return m->v[i].index != SIZE_MAX;
	return false;
}

static void stub_rec_maps_free_list(struct stub_rec_map *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void stub_rec_maps_release(struct stub_rec_maps *m)
{
	stub_rec_maps_free_list(m->v, m->n);
	m->v = NULL;
	m->n = 0;
}

/* Build-id note in the notes of one section or segment's data. */
static int stub_rec_note_build_id(Elf_Data *d, char *hex, size_t size)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
			const uint8_t *p = (const uint8_t *)d->d_buf + desc_off;

			if (nh.n_descsz * 2 + 1 > size)
				return -ENAMETOOLONG;
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", p[i]);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

int stub_rec_build_id(const char *path, char *hex, size_t size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	int fd, r = -ENOENT;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -EINVAL;
	}
	while (r == -ENOENT && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d)
			r = stub_rec_note_build_id(d, hex, size);
	}
	elf_end(e);
	close(fd);
	return r;
}

/* One line of the maps file, if it is an executable mapping. */
static bool stub_rec_maps_parse(const char *line, struct stub_rec_map *out, const char **path)
{
	char perms[8];
	int n = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
		   &out->start, &out->end, perms, &out->offset, &n) < 4 || !n)
		return false;
	if (perms[2] != 'x')
		return false;
	*path = line + n;
	return true;
}

/* All executable mappings, sorted as the kernel writes them. */
static int stub_rec_maps_read(pid_t pid, struct stub_rec_map **out, size_t *nout)
{
	struct rsp_buf text;
	struct stub_rec_map *v = NULL, e;
	size_t n = 0;
	char *line, *save = NULL;
	const char *path;
	int r;

	rsp_buf_init(&text);
	r = stub_procfs_read(pid, "maps", &text);
	if (r < 0) {
		rsp_buf_release(&text);
		return r;
	}
	for (line = strtok_r((char *)text.data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct stub_rec_map *nv;

		if (!stub_rec_maps_parse(line, &e, &path))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(e.path = strdup(path))) {
			free(nv ? nv : v);
			rsp_buf_release(&text);
			return -ENOMEM;
		}
		e.index = SIZE_MAX;
		v = nv;
		v[n++] = e;
	}
	rsp_buf_release(&text);
	*out = v;
	*nout = n;
	return 0;
}

static bool stub_rec_map_same(const struct stub_rec_map *a, const struct stub_rec_map *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       !strcmp(a->path, b->path);
}

int stub_rec_dump_vdso(const char *dir, pid_t pid, int mem_fd, uint64_t start, uint64_t len,
		       char *rel, size_t size)
{
	char path[4096];
	uint8_t *buf = malloc(len);
	FILE *f;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/images", dir);
	replay_bundle_mkdir(path);
	snprintf(rel, size, "images/vdso-%d.so", (int)pid);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (pread(mem_fd, buf, len, (off_t)start) != (ssize_t)len)
		r = -EIO;
	else if (!(f = replay_bundle_fcreate(path)))
		r = -errno;
	else {
		/* ENOSPC said as such, not as an I/O error. */
		errno = 0;
		if (fwrite(buf, 1, len, f) != len)
			r = errno ? -errno : -EIO;
		if (fclose(f) && !r)
			r = errno ? -errno : -EIO;
	}
	free(buf);
	return r;
}

/* A bundle mapping for new executable mapping @e. */
static int stub_rec_maps_add(struct stub_rec_maps *m, struct replay_bundle *b, pid_t pid,
			     int mem_fd, struct stub_rec_map *e, uint64_t time)
{
	struct replay_mapping rm;
	char rel[256], uuid[128];
	int r;

	memset(&rm, 0, sizeof(rm));
	rm.time_map = time;
	rm.time_unmap = REPLAY_TIME_NEVER;
	rm.start = e->start;
	rm.size = e->end - e->start;
	rm.offset = e->offset;
	rm.system_path = e->path;
	if (!strcmp(e->path, "[vdso]")) {
		r = stub_rec_dump_vdso(b->dir, pid, mem_fd, e->start, e->end - e->start, rel,
				       sizeof(rel));
		if (r < 0)
			return r;
		rm.file = rel;
		rm.offset = 0;
	} else if (e->path[0] == '/') {
		rm.file = e->path;
		if (stub_rec_build_id(e->path, uuid, sizeof(uuid)) == 0)
			rm.uuid = uuid;
	} else {
		/* [vsyscall] (emulated by the kernel) or anonymous code. */
		if (!strcmp(e->path, "[vsyscall]") || m->anon_reported || m->keeps_code)
			return 0;
		m->anon_reported = true;
		r = replay_bundle_add_gap(b, 0, time, "image-missing",
					  "anonymous executable memory (JIT code) is not recorded");
		return r < 0 ? r : 0;
	}
	r = replay_bundle_add_mapping(b, &rm);
	if (r < 0)
		return r;
	e->index = (size_t)r;
	return 0;
}

void stub_rec_maps_unmap_all(struct stub_rec_maps *m, struct replay_bundle *b, uint64_t time)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].index != SIZE_MAX)
			b->maps[m->v[i].index].time_unmap = time;
	stub_rec_maps_release(m);
}

int stub_rec_maps_update(struct stub_rec_maps *m, struct replay_bundle *b, pid_t pid,
			 int mem_fd, uint64_t time)
{
	struct stub_rec_map *nv;
	size_t nn, i, j;
	int r, changed = 0;

	r = stub_rec_maps_read(pid, &nv, &nn);
	if (r < 0)
		return r;
	for (i = 0; i < m->n; i++) {
		for (j = 0; j < nn && !stub_rec_map_same(&m->v[i], &nv[j]); j++)
			;
		if (j < nn) {
			nv[j].index = m->v[i].index;
			continue;
		}
		changed = 1;
		if (m->v[i].index != SIZE_MAX)
			b->maps[m->v[i].index].time_unmap = time;
	}
	for (j = 0; j < nn && r >= 0; j++) {
		for (i = 0; i < m->n && !stub_rec_map_same(&m->v[i], &nv[j]); i++)
			;
		if (i < m->n)
			continue;
		changed = 1;
		r = stub_rec_maps_add(m, b, pid, mem_fd, &nv[j], time);
	}
	stub_rec_maps_free_list(m->v, m->n);
	m->v = nv;
	m->n = nn;
	return r < 0 ? r : changed;
}
