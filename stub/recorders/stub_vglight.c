/*
 * stub/recorders/stub_vglight.c: the light recording's run, and the pipe
 * that feeds its log to the rebuild (stub/recorders/stub_vglight.h).
 */
#include "stub/recorders/stub_vglight.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/model/bundle.h"

#define VGLIGHT_PIPE (1u << 20)    /* the pipes' size asked for */
#define VGLIGHT_BUF (1u << 20)

void stub_vgtool_exec(const struct stub_vgtool_cmd *c, char *const argv[])
{
	char out[PATH_MAX + 32], pid[48], log[PATH_MAX + 32];
	char *args[16 + 4096];
	size_t n = 0;

	snprintf(out, sizeof(out), "--hsrec-out=%s", c->out);
	snprintf(pid, sizeof(pid), "--hsrec-pid=%d", (int)getpid());
	snprintf(log, sizeof(log), "--log-file=%s", c->log);
	setenv("VALGRIND_LIB", c->tooldir, 1);
	args[n++] = "valgrind";
	args[n++] = "-q";
	args[n++] = "--tool=hsrec";
	args[n++] = "--trace-children=yes";
	args[n++] = "--run-libc-freeres=no";
	args[n++] = "--run-cxx-freeres=no";
	args[n++] = log;
	args[n++] = out;
	args[n++] = pid;
	for (size_t i = 0; i < sizeof(c->extra) / sizeof(c->extra[0]) && c->extra[i]; i++)
		args[n++] = (char *)c->extra[i];
	args[n++] = "--";
	for (size_t i = 0; argv[i] && n < sizeof(args) / sizeof(args[0]) - 1; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execv(c->valgrind, args);
	_exit(127);
}

/* Everything the pipe holds now, appended to @fd. 0 or a negative errno. */
static int vglight_drain(int rfd, int fd, uint8_t *buf, uint64_t *bytes)
{
	for (;;) {
		ssize_t n = read(rfd, buf, VGLIGHT_BUF);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0)
			return 0;
		for (ssize_t at = 0; at < n;) {
			ssize_t w = write(fd, buf + at, (size_t)(n - at));

			if (w < 0 && errno != EINTR)
				return -errno;
			if (w > 0)
				at += w;
		}
		*bytes += (uint64_t)n;
	}
}

/* The working directory and the environment the program starts with,
 * for a rebuild later: "CWD\0VAR=VALUE\0...". */
static int vglight_save_env(const char *dir)
{
	extern char **environ;
	char path[PATH_MAX + 32], cwd[PATH_MAX];
	int fd, e = 0;
	FILE *f;

	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_ENV, dir);
	fd = replay_bundle_create(path);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fwrite(cwd, 1, strlen(cwd) + 1, f);
	for (char **v = environ; v && *v; v++)
		fwrite(*v, 1, strlen(*v) + 1, f);
	if (ferror(f))
		e = -EIO;
	if (fclose(f) != 0 && e == 0)
		e = -errno;
	return e;
}

int stub_vglight_load_env(const char *dir, char *err, size_t errsize)
{
	char path[PATH_MAX + 32], *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f;
	int e = 0;

	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_ENV, dir);
	f = fopen(path, "re");
	if (!f) {
		e = -errno;
		snprintf(err, errsize, "cannot read %s: %s", path, strerror(errno));
		return e;
	}
	for (;;) {
		if (n + 65536 > cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536 * 2);

			if (!nb) {
				e = -ENOMEM;
				break;
			}
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);

		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	if (e == 0 && (n == 0 || buf[n - 1] != 0))
		e = -EINVAL;
	if (e == 0 && chdir(buf) < 0)
		e = -errno;
	if (e < 0) {
		snprintf(err, errsize, "%s: %s", path, e == -EINVAL ? "malformed" : strerror(-e));
		free(buf);
		return e;
	}
	clearenv();
	for (size_t at = strlen(buf) + 1; at < n; at += strlen(buf + at) + 1)
		if (putenv(buf + at) != 0) {
			snprintf(err, errsize, "%s: %s", path, strerror(errno));
			return -errno;
		}
	/* buf stays: putenv keeps its strings. */
	return 0;
}

int stub_vglight_record(const char *valgrind, const char *tooldir, const char *dir,
			const char *verify, char *const argv[], volatile sig_atomic_t *stop, int *wstatus,
			uint64_t *bytes, char *err, size_t errsize)
{
	char abs[PATH_MAX], path[PATH_MAX + 32], vglog[PATH_MAX + 32], out[64];
	char ver[PATH_MAX + 32];
	struct stub_vgtool_cmd c = { valgrind, tooldir, vglog, out,
				     { "--hsrec-mode=light", NULL } };
	uint8_t *buf = NULL;
	int fds[2] = { -1, -1 }, fd = -1, e = 0;
	bool dead = false;
	pid_t pid;

	*bytes = 0;
	*wstatus = 0;
	if ((e = replay_bundle_mkdir(dir)) < 0 || !realpath(dir, abs)) {
		e = e < 0 ? e : -errno;
		snprintf(err, errsize, "cannot create %s: %s", dir, strerror(-e));
		return e;
	}
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_LOG, abs);
	snprintf(vglog, sizeof(vglog), "%s/" STUB_VGLIGHT_VGLOG, abs);
	fd = replay_bundle_create(path);
	if (fd < 0) {
		snprintf(err, errsize, "cannot create %s: %s", path, strerror(-fd));
		return fd;
	}
	e = replay_bundle_create(vglog);
	if (e >= 0)
		close(e);
	if ((e = vglight_save_env(abs)) < 0) {
		snprintf(err, errsize, "cannot write %s/%s: %s", abs, STUB_VGLIGHT_ENV, strerror(-e));
		goto out;
	}
	buf = malloc(VGLIGHT_BUF);
	if (!buf || pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
		e = buf ? -errno : -ENOMEM;
		snprintf(err, errsize, "cannot make a pipe: %s", strerror(-e));
		goto out;
	}
	fcntl(fds[0], F_SETPIPE_SZ, VGLIGHT_PIPE);
	snprintf(out, sizeof(out), "/proc/%d/fd/%d", (int)getpid(), fds[1]);
	if (verify) {
		snprintf(ver, sizeof(ver), "--hsrec-verify=%s", verify);
		c.extra[1] = ver;
		c.extra[2] = "--hsrec-verify-regs=yes";
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot start Valgrind: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		stub_vgtool_exec(&c, argv);
	while (e >= 0) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		pid_t w;

		if (*stop)
			kill(pid, SIGKILL);
		if (poll(&pfd, 1, dead ? 0 : 100) < 0 && errno != EINTR) {
			e = -errno;
			break;
		}
		e = vglight_drain(fds[0], fd, buf, bytes);
		if (e < 0 || dead)
			break;
		w = waitpid(pid, wstatus, WNOHANG);
		if (w == pid)
			dead = true;     /* drained once more, then done */
	}
	if (e < 0) {
		snprintf(err, errsize, "cannot write %s: %s", path, strerror(-e));
		kill(pid, SIGKILL);
	}
	if (!dead)
		waitpid(pid, wstatus, 0);
	if (e >= 0 && *bytes == 0) {
		e = -ENOEXEC;
		snprintf(err, errsize, "Valgrind did not start the program (see %s)", vglog);
	}
out:
	if (fd >= 0 && fsync(fd) < 0 && e >= 0) {
		e = -errno;
		snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(buf);
	return e;
}

struct stub_vglight_feed {
	pthread_t thread;
	int src;                   /* the log */
	int rfd, wfd;              /* the pipe: the tool opens rfd by its path */
};

static void *vglight_feed_main(void *arg)
{
	struct stub_vglight_feed *f = arg;
	static __thread uint8_t buf[1 << 16];
	sigset_t pipe_sig;

	/* A reader gone early (the rebuild stopped): EPIPE, not the signal. */
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
	for (;;) {
		ssize_t n = read(f->src, buf, sizeof(buf)), at = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		while (at < n) {
			ssize_t w = write(f->wfd, buf + at, (size_t)(n - at));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto done;
			at += w;
		}
	}
done:
	close(f->wfd);
	f->wfd = -1;
	return NULL;
}

int stub_vglight_feed_start(struct stub_vglight_feed **out, const char *path, char *path_out,
			    size_t size, char *err, size_t errsize)
{
	struct stub_vglight_feed *f = calloc(1, sizeof(*f));
	int fds[2], e;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->src = open(path, O_RDONLY | O_CLOEXEC);
	if (f->src < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
		free(f);
		return e;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot make a pipe: %s", strerror(errno));
		close(f->src);
		free(f);
		return e;
	}
	fcntl(fds[0], F_SETPIPE_SZ, VGLIGHT_PIPE);
	f->rfd = fds[0];
	f->wfd = fds[1];
	e = pthread_create(&f->thread, NULL, vglight_feed_main, f);
	if (e) {
		snprintf(err, errsize, "cannot start a thread: %s", strerror(e));
		close(f->src);
		close(fds[0]);
		close(fds[1]);
		free(f);
		return -e;
	}
	snprintf(path_out, size, "/proc/%d/fd/%d", (int)getpid(), f->rfd);
	*out = f;
	return 0;
}

void stub_vglight_feed_stop(struct stub_vglight_feed *f)
{
	if (!f)
		return;
	close(f->rfd);             /* a writer still at it gets EPIPE */
	pthread_join(f->thread, NULL);
	close(f->src);
	free(f);
}
