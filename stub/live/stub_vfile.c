/*
 * stub/live/stub_vfile.c: the files of a live process a debugger may read; see
 * stub_vfile.h. The set is made again at each request from the maps of the
 * moment (libraries come and go), in the few milliseconds GDB's handful
 * of opens can spare.
 */
#include "stub/live/stub_vfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_served.h"
#include "protocol/rsp_buf.h"
#include "stub/live/stub_maps.h"
#include "stub/live/stub_procfs.h"

#define STUB_VFILE_VDSO_MAX 0x10000  /* two pages on x86-64 now */

/* The /proc files of the process GDB reads (info proc, gcore, the vDSO's
 * extent), and the links it reads. */
static const char *const stub_vfile_proc[] = {
	"maps", "smaps", "cmdline", "stat", "status", "coredump_filter", "exe", "cwd",
};

struct stub_vfile_ctx {
	pid_t pid;
	struct dw_served *s;
};

static int stub_vfile_add_mapped(void *ctx, const struct stub_maps_file *f)
{
	const struct stub_vfile_ctx *c = ctx;
	struct dw_served_id id = { f->dev, f->ino };
	char mf[96];
	struct stat st;

	/* The device as stat gives it, which the served file is checked
	 * against: maps gives the superblock's, another number on a btrfs
	 * subvolume (every mapped file was refused there). map_files needs
	 * privileges; without them, maps' number stands. */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)c->pid, f->start,
		 f->end);
	if (stat(mf, &st) == 0 && (uint64_t)st.st_ino == f->ino)
		id.dev = (uint64_t)st.st_dev;
	return dw_served_add_object(c->s, f->path, NULL, &id);
}

/* The vDSO is no file, but GDB looks for its debug file by build-id. */
static int stub_vfile_add_vdso(pid_t pid, const char *maps, struct dw_served *s)
{
	static uint8_t image[STUB_VFILE_VDSO_MAX];
	uint64_t start, end;
	char mem[64];
	ssize_t n;
	int fd;

	if (stub_maps_named(maps, "[vdso]", &start, &end) || end - start > sizeof(image))
		return 0;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, image, end - start, (off_t)start);
	close(fd);
	return n > 0 ? dw_served_add_image(s, image, (size_t)n) : 0;
}

static int stub_vfile_build(pid_t pid, struct dw_served *s)
{
	char buf[64];
	struct rsp_buf maps;
	int r;

	struct rsp_process_info info;

	snprintf(buf, sizeof(buf), "/proc/%d/root", (int)pid);
	dw_served_init(s, buf);
	/* The debugger reads what the user the process runs as may read. */
	if (stub_procfs_status(pid, &info) < 0)
		return -EACCES;
	dw_served_set_reader(s, info.uid);
	rsp_buf_init(&maps);
	r = stub_procfs_read(pid, "maps", &maps);
	if (r == 0)
		r = stub_maps_files(rsp_buf_str(&maps), stub_vfile_add_mapped,
				    &(struct stub_vfile_ctx){ pid, s });
	if (r == 0)
		r = stub_vfile_add_vdso(pid, rsp_buf_str(&maps), s);
	rsp_buf_release(&maps);
	for (size_t i = 0; r == 0 && i < sizeof(stub_vfile_proc) / sizeof(*stub_vfile_proc); i++) {
		snprintf(buf, sizeof(buf), "/proc/%d/%s", (int)pid, stub_vfile_proc[i]);
		r = dw_served_add_plain(s, buf);
	}
	if (r == 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/task/%d/maps", (int)pid, (int)pid);
		r = dw_served_add_plain(s, buf);
	}
	return r;
}

/* --vfile-any: the file system of @fs_pid, as gdbserver reads it. */
static void stub_vfile_root(int64_t fs_pid, char *buf, size_t size)
{
	if (fs_pid > 0)
		snprintf(buf, size, "/proc/%lld/root", (long long)fs_pid);
	else
		buf[0] = 0;
}

int stub_vfile_open(pid_t pid, int64_t fs_pid, const char *path, bool any)
{
	char root[64];
	struct dw_served s;
	int r;

	if (any) {
		stub_vfile_root(fs_pid, root, sizeof(root));
		return dw_served_open_any(root, path);
	}
	if (fs_pid != 0 && fs_pid != pid)
		return -EACCES;
	r = stub_vfile_build(pid, &s);
	if (r == 0)
		r = dw_served_open(&s, path);
	dw_served_release(&s);
	return r;
}

int stub_vfile_readlink(pid_t pid, int64_t fs_pid, const char *path, bool any, char *buf,
			size_t size)
{
	char root[64];
	struct dw_served s;
	int r;

	if (any) {
		stub_vfile_root(fs_pid, root, sizeof(root));
		return dw_served_readlink_any(root, path, buf, size);
	}
	if (fs_pid != 0 && fs_pid != pid)
		return -EACCES;
	r = stub_vfile_build(pid, &s);
	if (r == 0)
		r = dw_served_readlink(&s, path, buf, size);
	dw_served_release(&s);
	return r;
}
