/*
 * stub/live/stub_procfs.c: reading /proc/PID files.
 */
#include "stub/live/stub_procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"

static int stub_procfs_open(pid_t pid, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int stub_procfs_read(pid_t pid, const char *name, struct rsp_buf *out)
{
	char chunk[4096];
	int fd = stub_procfs_open(pid, name), r = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		r = rsp_buf_append(out, chunk, (size_t)n);
		if (r < 0)
			break;
	}
	close(fd);
	return r;
}

int stub_procfs_exe(pid_t pid, struct rsp_buf *out)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, target, sizeof(target));
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(target))
		return -ENAMETOOLONG;
	return rsp_buf_append(out, target, (size_t)n);
}

/* The first number after "@key:" in @text, or -1. */
static long long stub_procfs_field(const char *text, const char *key, int index)
{
	size_t klen = strlen(key);
	const char *p = text;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[klen] == ':')
			break;
		p++;
	}
	if (!p)
		return -1;
	p += klen + 1;
	for (int i = 0;; i++) {
		char *end;
		long long v = strtoll(p, &end, 10);

		if (end == p)
			return -1;
		if (i == index)
			return v;
		p = end;
	}
}

int stub_procfs_status(pid_t pid, struct rsp_process_info *out)
{
	struct rsp_buf b;
	int r;

	rsp_buf_init(&b);
	r = stub_procfs_read(pid, "status", &b);
	if (r == 0) {
		const char *s = rsp_buf_str(&b);

		out->pid = pid;
		out->ppid = stub_procfs_field(s, "PPid", 0);
		out->uid = (uint32_t)stub_procfs_field(s, "Uid", 0);
		out->euid = (uint32_t)stub_procfs_field(s, "Uid", 1);
		out->gid = (uint32_t)stub_procfs_field(s, "Gid", 0);
		out->egid = (uint32_t)stub_procfs_field(s, "Gid", 1);
	}
	rsp_buf_release(&b);
	return r;
}

/* Reads a small file of /proc/@pid/task/@tid into @buf; bytes or -1. */
static ssize_t stub_procfs_task_file(pid_t pid, pid_t tid, const char *name,
				     char *buf, size_t size)
{
	char rel[96];
	int fd;
	ssize_t n;

	snprintf(rel, sizeof(rel), "task/%d/%s", (int)tid, name);
	fd = stub_procfs_open(pid, rel);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

int stub_procfs_stat_core(const char *line)
{
	const char *p = strrchr(line, ')');
	int field = 2;

	if (!p)
		return -1;
	for (p++; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (field != 39 || *p < '0' || *p > '9')
		return -1;
	return atoi(p);
}

void stub_procfs_thread(pid_t pid, pid_t tid, char *name, size_t size, int *core)
{
	char buf[1024];

	name[0] = 0;
	*core = -1;
	if (stub_procfs_task_file(pid, tid, "comm", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = 0;
		snprintf(name, size, "%s", buf);
	}
	if (stub_procfs_task_file(pid, tid, "stat", buf, sizeof(buf)) > 0)
		*core = stub_procfs_stat_core(buf);
}

bool stub_procfs_is_zombie(pid_t pid, pid_t tid)
{
	char buf[1024];
	const char *p;

	if (stub_procfs_task_file(pid, tid, "stat", buf, sizeof(buf)) <= 0)
		return true;
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* The hex mask after "@key:\t" in @status, or -1. */
static int stub_procfs_mask(const char *status, const char *key, uint64_t *out)
{
	const char *p = strstr(status, key);
	char *end;

	if (!p)
		return -1;
	*out = strtoull(p + strlen(key), &end, 16);
	return end == p + strlen(key) ? -1 : 0;
}

int stub_procfs_pending(pid_t pid, pid_t tid, uint64_t *thread, uint64_t *shared)
{
	char buf[4096];

	if (stub_procfs_task_file(pid, tid, "status", buf, sizeof(buf)) <= 0 ||
	    stub_procfs_mask(buf, "\nSigPnd:", thread) < 0 ||
	    stub_procfs_mask(buf, "\nShdPnd:", shared) < 0)
		return -ESRCH;
	return 0;
}

int stub_procfs_tids(pid_t pid, pid_t **out)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	pid_t *v = NULL;
	int n = 0, cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (n == cap) {
			pid_t *nv = realloc(v, (size_t)(cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[n++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	*out = v;
	return n;
}
