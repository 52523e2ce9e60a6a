/*
 * protocol/rsp_vfile.c: vFile:setfs / open / pread / fstat / close /
 * readlink, read-only.
 *
 * Which files are served is the target's to say (rsp_target_ops.vfile_open
 * and vfile_readlink: the program, its libraries, their debug files); a
 * file it does not serve gets EACCES, as does every file of a target that
 * says nothing. With @any (hindsight serve --vfile-any) the target serves
 * every file the stub can read, as gdbserver does.
 *
 * Replies use GDB's File-I/O conventions: numbers in hex, `F-1,<errno>`
 * with GDB's errno numbers (which match Linux for the common ones), and
 * struct stat in GDB's fixed big-endian layout.
 */
#include "protocol/rsp_vfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/rsp_hex.h"

#define FIO_O_ACCMODE 0x3     /* GDB: O_RDONLY 0, O_WRONLY 1, O_RDWR 2 */
#define FIO_O_WRITE_FLAGS 0xe08 /* O_APPEND, O_CREAT, O_TRUNC, O_EXCL */
#define FIO_EUNKNOWN 9999
#define PREAD_MAX 0x8000

void rsp_vfile_init(struct rsp_vfile *v, const struct rsp_target *target, bool any)
{
	for (int i = 0; i < RSP_VFILE_MAX_FDS; i++)
		v->fds[i] = -1;
	v->fs_pid = 0;
	v->target = target;
	v->any = any;
}

void rsp_vfile_release(struct rsp_vfile *v)
{
	for (int i = 0; i < RSP_VFILE_MAX_FDS; i++)
		if (v->fds[i] >= 0)
			close(v->fds[i]);
	rsp_vfile_init(v, v->target, v->any);
}

/* GDB's errno for a host errno: the same numbers for those GDB knows. */
static int fio_errno(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case EINTR: case EBADF: case EACCES: case EFAULT:
	case EBUSY: case EEXIST: case ENODEV: case ENOTDIR: case EISDIR: case EINVAL:
	case ENFILE: case EMFILE: case EFBIG: case ENOSPC: case ESPIPE: case EROFS:
		return e;
	case ENAMETOOLONG:
		return 91;
	default:
		return FIO_EUNKNOWN;
	}
}

static int reply_fail(struct rsp_buf *reply, int host_errno)
{
	return rsp_buf_printf(reply, "F-1,%x", fio_errno(host_errno));
}

/* Parses "<hex>,<hex>,..." into @vals; 0 or -EINVAL. */
static int hex_list(const char *p, uint64_t *vals, int n)
{
	const char *end = p + strlen(p);

	for (int i = 0; i < n; i++) {
		if (i && *p++ != ',')
			return -EINVAL;
		if (rsp_hex_u64(&p, end, &vals[i]))
			return -EINVAL;
	}
	return *p ? -EINVAL : 0;
}

/* Decodes the hex file name at @name in place: 0 or -EINVAL (empty, or
 * holding a NUL). */
static int decode_name(char *name)
{
	int n = rsp_hex_decode(name, strlen(name), (uint8_t *)name);

	if (n <= 0 || memchr(name, 0, (size_t)n))
		return -EINVAL;
	name[n] = 0;
	return 0;
}

/* Opens @name for reading: a descriptor or a negative errno. */
static int open_file(struct rsp_vfile *v, const char *name)
{
	const struct rsp_target *t = v->target;

	if (!t || !t->ops->vfile_open)
		return -EACCES;
	return t->ops->vfile_open(t->ctx, v->fs_pid, name, v->any);
}

/* readlink of @name into @buf: the length or a negative errno. */
static int read_link(struct rsp_vfile *v, const char *name, char *buf, size_t size)
{
	const struct rsp_target *t = v->target;

	if (!t || !t->ops->vfile_readlink)
		return -EACCES;
	return t->ops->vfile_readlink(t->ctx, v->fs_pid, name, v->any, buf, size);
}

static int do_open(struct rsp_vfile *v, char *args, struct rsp_buf *reply)
{
	char *comma = strchr(args, ',');
	uint64_t fm[2];
	int slot, fd;

	if (!comma || hex_list(comma + 1, fm, 2))
		return reply_fail(reply, EINVAL);
	*comma = 0;
	if (decode_name(args))
		return reply_fail(reply, EINVAL);
	if ((fm[0] & FIO_O_ACCMODE) != 0 || (fm[0] & FIO_O_WRITE_FLAGS))
		return reply_fail(reply, EACCES);
	for (slot = 0; slot < RSP_VFILE_MAX_FDS && v->fds[slot] >= 0; slot++)
		;
	if (slot == RSP_VFILE_MAX_FDS)
		return reply_fail(reply, EMFILE);
	fd = open_file(v, args);
	if (fd < 0)
		return reply_fail(reply, -fd);
	v->fds[slot] = fd;
	return rsp_buf_printf(reply, "F%x", slot);
}

static int slot_fd(const struct rsp_vfile *v, uint64_t slot)
{
	return slot < RSP_VFILE_MAX_FDS ? v->fds[slot] : -1;
}

static int do_pread(struct rsp_vfile *v, const char *args, struct rsp_buf *reply)
{
	uint64_t a[3];
	uint8_t buf[PREAD_MAX];
	ssize_t n;
	int fd, err;

	if (hex_list(args, a, 3) || a[2] > INT64_MAX)
		return reply_fail(reply, EINVAL);
	fd = slot_fd(v, a[0]);
	if (fd < 0)
		return reply_fail(reply, EBADF);
	n = pread(fd, buf, a[1] < sizeof(buf) ? (size_t)a[1] : sizeof(buf), (off_t)a[2]);
	if (n < 0)
		return reply_fail(reply, errno);
	err = rsp_buf_printf(reply, "F%zx;", (size_t)n);
	return err ? err : rsp_buf_append(reply, buf, (size_t)n);
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* GDB's struct fio_stat: big-endian, 64 bytes. */
static int do_fstat(struct rsp_vfile *v, const char *args, struct rsp_buf *reply)
{
	uint8_t st_out[64];
	struct stat st;
	uint64_t slot;
	int fd, err;

	if (hex_list(args, &slot, 1))
		return reply_fail(reply, EINVAL);
	fd = slot_fd(v, slot);
	if (fd < 0)
		return reply_fail(reply, EBADF);
	if (fstat(fd, &st))
		return reply_fail(reply, errno);
	put_be(st_out + 0, st.st_dev, 4);
	put_be(st_out + 4, st.st_ino, 4);
	put_be(st_out + 8, st.st_mode, 4);
	put_be(st_out + 12, st.st_nlink, 4);
	put_be(st_out + 16, st.st_uid, 4);
	put_be(st_out + 20, st.st_gid, 4);
	put_be(st_out + 24, st.st_rdev, 4);
	put_be(st_out + 28, (uint64_t)st.st_size, 8);
	put_be(st_out + 36, (uint64_t)st.st_blksize, 8);
	put_be(st_out + 44, (uint64_t)st.st_blocks, 8);
	put_be(st_out + 52, (uint64_t)st.st_atime, 4);
	put_be(st_out + 56, (uint64_t)st.st_mtime, 4);
	put_be(st_out + 60, (uint64_t)st.st_ctime, 4);
	err = rsp_buf_printf(reply, "F%zx;", sizeof(st_out));
	return err ? err : rsp_buf_append(reply, st_out, sizeof(st_out));
}

static int do_close(struct rsp_vfile *v, const char *args, struct rsp_buf *reply)
{
	uint64_t slot;

	if (hex_list(args, &slot, 1))
		return reply_fail(reply, EINVAL);
	if (slot_fd(v, slot) < 0)
		return reply_fail(reply, EBADF);
	close(v->fds[slot]);
	v->fds[slot] = -1;
	return rsp_buf_puts(reply, "F0");
}

static int do_readlink(struct rsp_vfile *v, char *args, struct rsp_buf *reply)
{
	char target[PATH_MAX];
	int n, err;

	if (decode_name(args))
		return reply_fail(reply, EINVAL);
	n = read_link(v, args, target, sizeof(target));
	if (n < 0)
		return reply_fail(reply, -n);
	err = rsp_buf_printf(reply, "F%x;", n);
	return err ? err : rsp_buf_append(reply, target, (size_t)n);
}

static int do_setfs(struct rsp_vfile *v, const char *args, struct rsp_buf *reply)
{
	uint64_t pid;

	if (hex_list(args, &pid, 1) || pid > INT32_MAX)
		return reply_fail(reply, EINVAL);
	v->fs_pid = (int64_t)pid;
	return rsp_buf_puts(reply, "F0");
}

int rsp_vfile_handle(struct rsp_vfile *v, char *args, struct rsp_buf *reply)
{
	char *colon = strchr(args, ':');

	if (!colon)
		return 0;
	*colon = 0;
	if (!strcmp(args, "open"))
		return do_open(v, colon + 1, reply);
	if (!strcmp(args, "pread"))
		return do_pread(v, colon + 1, reply);
	if (!strcmp(args, "fstat"))
		return do_fstat(v, colon + 1, reply);
	if (!strcmp(args, "close"))
		return do_close(v, colon + 1, reply);
	if (!strcmp(args, "readlink"))
		return do_readlink(v, colon + 1, reply);
	if (!strcmp(args, "setfs"))
		return do_setfs(v, colon + 1, reply);
	return 0; /* pwrite, unlink, ...: not served */
}
