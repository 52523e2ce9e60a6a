/*
 * stub/recorders/stub_vglight.c: the light recording's run, and the pipe
 * that feeds its log to the rebuild (stub/recorders/stub_vglight.h).
 */
#include "stub/recorders/stub_vglight.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/rsp_hex.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_regs.h"
#include "vgtool/hsrec_proto.h"

#define VGLIGHT_PIPE (1u << 20)    /* the pipes' size asked for */
#define HSIN_SYSCALL_LEN 96        /* HSIN_SYSCALL's payload (hsrec_proto.h) */

static uint32_t vglight_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t vglight_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}
#define VGLIGHT_BUF (1u << 20)

int stub_vgtool_wstatus(const char *vglog, int st)
{
	static const char term[] = "Process terminating with default action of signal ";
	char *log, *p, *last = NULL;
	FILE *f;
	size_t n;
	int sig = 0;

	/* Valgrind 3.19 re-raises the signal with a kill of the whole
	 * process once the other threads are gone; a few times in a
	 * hundred, with the main thread gone before the faulting one, the
	 * kernel lets that one live, and Valgrind panics: the program died
	 * of the signal all the same (tests: t_rebuild_window, racy.c). */
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !(f = fopen(vglog, "r")))
		return st;
	log = malloc(1 << 20);
	n = log ? fread(log, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (!log)
		return st;
	log[n] = 0;
	for (p = log; (p = strstr(p, term)); p += sizeof(term) - 1)
		last = p + sizeof(term) - 1;
	if (last && strstr(last, "signal was supposed to be fatal"))
		sig = atoi(last);
	free(log);
	return sig > 0 && sig < 32 ? sig : st;
}

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

/* Everything the pipe holds now, appended to @fd, unless writing it
 * failed before (*@lost: its errno): then it is read and dropped, and the
 * program goes on as it would have (its log cut there). 0, or a negative
 * errno of the pipe. */
static int vglight_drain(int rfd, int fd, uint8_t *buf, uint64_t *bytes, int *lost)
{
	for (;;) {
		ssize_t n = read(rfd, buf, VGLIGHT_BUF);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0)
			return 0;
		for (ssize_t at = 0; at < n && !*lost;) {
			ssize_t w = write(fd, buf + at, (size_t)(n - at));

			if (w < 0 && errno != EINTR)
				*lost = errno;
			if (w > 0)
				at += w;
		}
		if (!*lost)
			*bytes += (uint64_t)n;
	}
}

/* How the recorded run went and what a rebuild needs to start it alike:
 * "hsenv1\0WSTATUS\0ARGC\0ARGV...\0CWD\0VAR=VALUE\0...". */
int stub_vglight_save_env(const char *dir, char *const argv[], int wstatus)
{
	extern char **environ;
	char path[PATH_MAX + 32], cwd[PATH_MAX], num[32];
	int fd, e = 0, argc = 0;
	FILE *f;

	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	while (argv[argc])
		argc++;
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_ENV, dir);
	fd = replay_bundle_rewrite(path);  /* the file the commands lock */
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fwrite("hsenv1", 1, 7, f);
	snprintf(num, sizeof(num), "%d", wstatus);
	fwrite(num, 1, strlen(num) + 1, f);
	snprintf(num, sizeof(num), "%d", argc);
	fwrite(num, 1, strlen(num) + 1, f);
	for (int i = 0; i < argc; i++)
		fwrite(argv[i], 1, strlen(argv[i]) + 1, f);
	fwrite(cwd, 1, strlen(cwd) + 1, f);
	for (char **v = environ; v && *v; v++)
		fwrite(*v, 1, strlen(*v) + 1, f);
	if (ferror(f))
		e = -EIO;
	if (fclose(f) != 0 && e == 0)
		e = -errno;
	return e;
}

/* @path's whole contents, NUL-terminated past their end, in *@out. */
static int vglight_slurp(const char *path, char **out, size_t *n)
{
	size_t cap = 0;
	char *buf = NULL;
	FILE *f = fopen(path, "re");
	int e = 0;

	*n = 0;
	if (!f)
		return -errno;
	for (;;) {
		size_t k;

		if (*n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 65536 * 2);

			if (!nb) {
				e = -ENOMEM;
				break;
			}
			buf = nb;
		}
		k = fread(buf + *n, 1, cap - *n - 1, f);
		*n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	if (e < 0) {
		free(buf);
		return e;
	}
	buf[*n] = 0;
	*out = buf;
	return 0;
}

int stub_vglight_load_env(const char *dir, struct stub_vglight_env *env, char *err,
			  size_t errsize)
{
	char path[PATH_MAX + 32], *buf = NULL, *end;
	size_t n, at = 7;
	long argc;
	int e;

	memset(env, 0, sizeof(*env));
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_ENV, dir);
	if ((e = vglight_slurp(path, &buf, &n)) < 0) {
		snprintf(err, errsize, "cannot read %s: %s", path, strerror(-e));
		return e;
	}
	/* The fields, each NUL-terminated: the last ends the file. */
	if (n < 7 || memcmp(buf, "hsenv1", 7) || buf[n - 1] != 0)
		goto bad;
	env->wstatus = (int)strtol(buf + at, &end, 10);
	if (*end || (at += strlen(buf + at) + 1) >= n)
		goto bad;
	argc = strtol(buf + at, &end, 10);
	if (*end || argc < 1 || argc > 65536 || (at += strlen(buf + at) + 1) >= n)
		goto bad;
	env->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!env->argv) {
		free(buf);
		return -ENOMEM;
	}
	for (long i = 0; i < argc; i++) {
		if (at >= n)
			goto bad;
		env->argv[i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	if (at >= n)
		goto bad;
	env->cwd = buf + at;
	at += strlen(buf + at) + 1;
	env->envp = buf + at;
	env->envlen = n - at;
	env->buf = buf;
	return 0;
bad:
	free(env->argv);
	free(buf);
	memset(env, 0, sizeof(*env));
	snprintf(err, errsize, "%s is malformed", path);
	return -EINVAL;
}

int stub_vglight_take_env(const struct stub_vglight_env *env, char *err, size_t errsize)
{
	if (chdir(env->cwd) < 0) {
		snprintf(err, errsize, "cannot go to %s, where the program ran: %s", env->cwd,
			 strerror(errno));
		return -errno;
	}
	clearenv();
	for (size_t at = 0; at < env->envlen; at += strlen(env->envp + at) + 1)
		if (putenv(env->envp + at) != 0) {
			snprintf(err, errsize, "cannot set the environment: %s", strerror(errno));
			return -errno;
		}
	return 0;                  /* env->buf stays: putenv keeps its strings */
}

void stub_vglight_env_release(struct stub_vglight_env *env)
{
	free(env->argv);
	free(env->buf);
	memset(env, 0, sizeof(*env));
}

bool stub_vglight_pending(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_LOG, dir);
	if (access(path, F_OK) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_BUSY, dir);
	if (access(path, F_OK) == 0)
		return true;       /* a rebuild that did not end */
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	return access(path, F_OK) != 0;
}

bool stub_vglight_history_only(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_HISTORY, dir);
	return !stub_vglight_pending(dir) && access(path, F_OK) == 0;
}

struct stub_vglight_run {
	pid_t pid;                 /* Valgrind's (the program's) */
	int rfd;                   /* the pipe the tool writes its log into */
	int wfd;                   /* its other end, which the tool opens by
				    * this process's /proc path: kept open */
	int fd;                    /* inputs.hsin */
	int lost;                  /* errno of a failed write to it, or 0 */
	bool dead;                 /* reaped: *wstatus holds its status */
	int wstatus;
	uint64_t bytes;
	uint8_t *buf;
	char abs[PATH_MAX];
	char path[PATH_MAX + 32];  /* inputs.hsin's */
	char vglog[PATH_MAX + 32];
};

static void vglight_run_free(struct stub_vglight_run *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->rfd >= 0)
		close(r->rfd);
	if (r->wfd >= 0)
		close(r->wfd);
	free(r->buf);
	free(r);
}

int stub_vglight_start(const struct stub_vglight_how *how, char *const argv[],
		       struct stub_vglight_run **out, char *err, size_t errsize)
{
	char out_opt[64], ver[PATH_MAX + 32], keep[PATH_MAX + 32];
	struct stub_vglight_run *r = calloc(1, sizeof(*r));
	struct stub_vgtool_cmd c = { how->valgrind, how->tooldir, NULL, out_opt,
				     { "--hsrec-mode=light", NULL } };
	size_t n = 1;
	int fds[2] = { -1, -1 }, e;

	if (!r) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	r->fd = r->rfd = r->wfd = -1;
	c.log = r->vglog;
	if ((e = replay_bundle_mkdir(how->dir)) < 0 || !realpath(how->dir, r->abs)) {
		e = e < 0 ? e : -errno;
		snprintf(err, errsize, "cannot create %s: %s", how->dir, strerror(-e));
		goto fail;
	}
	snprintf(r->path, sizeof(r->path), "%s/" STUB_VGLIGHT_LOG, r->abs);
	/* (Where the files it maps are kept: without it, they are not.) */
	snprintf(keep, sizeof(keep), "%s/" STUB_VGLIGHT_KEEP, r->abs);
	if (replay_bundle_mkdir(keep) >= 0) {
		snprintf(keep, sizeof(keep), "--hsrec-keep=%s/" STUB_VGLIGHT_KEEP, r->abs);
		c.extra[n++] = keep;
	}
	snprintf(r->vglog, sizeof(r->vglog), "%s/" STUB_VGLIGHT_VGLOG, r->abs);
	r->fd = replay_bundle_create(r->path);
	if (r->fd < 0) {
		e = r->fd;
		snprintf(err, errsize, "cannot create %s: %s", r->path, strerror(-e));
		goto fail;
	}
	e = replay_bundle_create(r->vglog);
	if (e >= 0)
		close(e);
	r->buf = malloc(VGLIGHT_BUF);
	if (!r->buf || pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
		e = r->buf ? -errno : -ENOMEM;
		snprintf(err, errsize, "cannot make a pipe: %s", strerror(-e));
		goto fail;
	}
	r->rfd = fds[0];
	r->wfd = fds[1];
	fcntl(fds[0], F_SETPIPE_SZ, VGLIGHT_PIPE);
	snprintf(out_opt, sizeof(out_opt), "/proc/%d/fd/%d", (int)getpid(), fds[1]);
	if (how->verify) {
		snprintf(ver, sizeof(ver), "--hsrec-verify=%s", how->verify);
		c.extra[n++] = ver;
		c.extra[n++] = "--hsrec-verify-regs=yes";
	}
	for (size_t i = 0; how->core_opts[i] && n < sizeof(c.extra) / sizeof(c.extra[0]) - 1; i++)
		c.extra[n++] = how->core_opts[i];
	r->pid = fork();
	if (r->pid < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot start Valgrind: %s", strerror(errno));
		goto fail;
	}
	if (r->pid == 0) {
		if (how->sigint)
			sigaction(SIGINT, how->sigint, NULL);
		stub_vgtool_exec(&c, argv);
	}
	*out = r;
	return 0;
fail:
	vglight_run_free(r);
	return e;
}

pid_t stub_vglight_pid(const struct stub_vglight_run *r)
{
	return r->pid;
}

int stub_vglight_lost(const struct stub_vglight_run *r)
{
	return r->lost;
}

void stub_vglight_wait(const struct stub_vglight_run *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->rfd, .events = POLLIN };

	if (!r->dead)
		poll(&pfd, 1, timeout_ms);
}

int stub_vglight_pump(struct stub_vglight_run *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->rfd, .events = POLLIN };
	int e;

	if (r->dead)
		return 1;
	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	e = vglight_drain(r->rfd, r->fd, r->buf, &r->bytes, &r->lost);
	if (e < 0)
		return e;
	if (waitpid(r->pid, &r->wstatus, WNOHANG) != r->pid)
		return 0;
	r->dead = true;
	r->wstatus = stub_vgtool_wstatus(r->vglog, r->wstatus);
	/* Whatever it wrote before it ended. */
	e = vglight_drain(r->rfd, r->fd, r->buf, &r->bytes, &r->lost);
	return e < 0 ? e : 1;
}

int stub_vglight_finish(struct stub_vglight_run *r, char *const argv[], bool let_go,
			int *wstatus, uint64_t *bytes, char *err, size_t errsize)
{
	int e = 0;

	if (!r->dead && let_go) {
		/* It runs on, unrecorded (its tool closed the log): the log
		 * is what it wrote up to now, its end "still running". */
		vglight_drain(r->rfd, r->fd, r->buf, &r->bytes, &r->lost);
		r->wstatus = W_STOPCODE(SIGSTOP);
	} else if (!r->dead) {
		/* Ended early (an error, or the caller stops it): the program
		 * is killed and its log kept up to there. */
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, &r->wstatus, 0) < 0 && errno == EINTR)
			;
		r->dead = true;
		vglight_drain(r->rfd, r->fd, r->buf, &r->bytes, &r->lost);
	}
	*wstatus = r->wstatus;
	*bytes = r->bytes;
	if (r->bytes == 0) {
		e = -ENOEXEC;
		snprintf(err, errsize, "Valgrind did not start the program (see %s)", r->vglog);
	}
	if (e >= 0 && (e = stub_vglight_save_env(r->abs, argv, r->wstatus)) < 0)
		snprintf(err, errsize, "cannot write %s/%s: %s", r->abs, STUB_VGLIGHT_ENV,
			 strerror(-e));
	if (e >= 0 && r->lost) {
		/* The program ran to its end; its log stops where the disk
		 * did: a rebuild stops there too, saying so. */
		e = -r->lost;
		snprintf(err, errsize, "cannot write %s: %s; the program went on to its end, and its "
			 "inputs are kept up to there (%" PRIu64 " bytes)", r->path, strerror(r->lost),
			 r->bytes);
	}
	if (fsync(r->fd) < 0 && e >= 0) {
		e = -errno;
		snprintf(err, errsize, "cannot write %s: %s", r->path, strerror(errno));
	}
	vglight_run_free(r);
	return e;
}

int stub_vglight_record(const struct stub_vglight_how *how, char *const argv[],
			volatile sig_atomic_t *stop, int *wstatus, uint64_t *bytes, char *err,
			size_t errsize)
{
	struct stub_vglight_run *r;
	int e = stub_vglight_start(how, argv, &r, err, errsize);

	*bytes = 0;
	*wstatus = 0;
	if (e < 0)
		return e;
	if (how->started)
		how->started(how->started_ctx, how->dir);
	/* Asked to stop: SIGTERM, which the tool logs as the run's end (the
	 * history rebuilt whole up to it), SIGKILL if the program has not
	 * ended 2 s later (its log cut short where it was). */
	for (double termed = 0; (e = stub_vglight_pump(r, 100)) == 0;) {
		struct timespec now;

		if (!*stop)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!termed) {
			kill(r->pid, SIGTERM);
			termed = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
		} else if (termed > 0 && (double)now.tv_sec + (double)now.tv_nsec / 1e9 - termed > 2.0) {
			kill(r->pid, SIGKILL);
			termed = -1;       /* (once) */
		}
	}
	if (e < 0) {
		char why[128];

		snprintf(why, sizeof(why), "cannot read the tool's log: %s", strerror(-e));
		stub_vglight_finish(r, argv, false, wstatus, bytes, err, errsize);
		snprintf(err, errsize, "%s", why);
		return e;
	}
	return stub_vglight_finish(r, argv, false, wstatus, bytes, err, errsize);
}

/* What the rebuild makes of one logged syscall (@a: its payload, the
 * layout of HSIN_SYSCALL): NULL if it completes it, else what the
 * program did. The same rules as the tool's hsin_complete. */
static const char *vglight_not_rebuilt(const uint8_t *a)
{
	uint32_t nr = vglight_u32(a + 4);
	int64_t res = (int64_t)vglight_u64(a + 56);

	/* (A writable shared mapping is rebuilt: what the program read from
	 * it is logged, vgtool/hsrec_shared.c.) */
	if (nr == SYS_shmat)
		return "attaches shared memory (shmat)";
	if (nr == SYS_io_uring_setup && res >= 0)
		return "sets up io_uring, whose rings the kernel writes";
	if (nr == SYS_clone3 && res >= 0)
		return "makes a thread or process with clone3";
	return NULL;
}

int stub_vglight_scan(const char *path, struct stub_vglight_scan *s)
{
	uint8_t head[8], rec[HSIN_SYSCALL_LEN];
	FILE *f = fopen(path, "rb");
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (r == 0 && fread(head, 1, sizeof(head), f) == sizeof(head)) {
		uint32_t kind = vglight_u32(head), len = vglight_u32(head + 4);
		size_t n = kind == HSIN_SYSCALL || kind == HSIN_END ? sizeof(rec) : 0;
		const char *why;

		if (n > len)
			n = len;
		if (fread(rec, 1, n, f) != n)
			break;             /* cut short: the rebuild says so */
		if (kind == HSIN_HELLO)
			s->images++;
		if (kind == HSIN_END && n >= 12)
			s->end_blocks = vglight_u64(rec + 4);
		if (kind == HSIN_SYSCALL && n == sizeof(rec) && !s->stop &&
		    (why = vglight_not_rebuilt(rec))) {
			s->stop = true;
			snprintf(s->what, sizeof(s->what), "%s", why);
			s->pc = vglight_u64(rec + 64) - 2;   /* syscall: 0f 05 */
		}
		if (fseeko(f, (off_t)(len - n), SEEK_CUR) < 0)
			r = -errno;
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	fclose(f);
	return r;
}

bool stub_vglight_window_fits(const struct stub_vglight_scan *s, uint64_t last)
{
	return last && s->images == 1 && s->end_blocks > last;
}

struct stub_vglight_feed {
	pthread_t thread;
	int src;                   /* the log */
	int rfd, wfd;              /* the pipe: the tool opens rfd by its path */
	bool follow;               /* the log grows: its end is waited at */
	atomic_bool stop;          /* ... until this */
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
		if (n == 0 && f->follow && !atomic_load(&f->stop)) {
			/* A live run's log: more comes when it runs on. */
			nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
			continue;
		}
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

int stub_vglight_feed_start(struct stub_vglight_feed **out, const char *path, bool follow,
			    char *path_out, size_t size, char *err, size_t errsize)
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
	f->follow = follow;
	atomic_init(&f->stop, false);
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
	atomic_store(&f->stop, true);
	close(f->rfd);             /* a writer still at it gets EPIPE */
	pthread_join(f->thread, NULL);
	close(f->src);
	free(f);
}

/* ---- threads not yet run (serve --record valgrind) ------------------------ */

/* One thread's registers as `hindsight.born` lays them out
 * (HSREC_BORN_BYTES at @raw, vgtool/hsrec_proto.h) into @out. */
static void stub_vglight_born_regs(const uint8_t *raw, bool avx, struct rsp_regs *out)
{
	static const enum rsp_reg gp[] = {
		RSP_REG_RAX, RSP_REG_RBX, RSP_REG_RCX, RSP_REG_RDX, RSP_REG_RSI, RSP_REG_RDI,
		RSP_REG_RBP, RSP_REG_RSP, RSP_REG_R8, RSP_REG_R9, RSP_REG_R10, RSP_REG_R11,
		RSP_REG_R12, RSP_REG_R13, RSP_REG_R14, RSP_REG_R15, RSP_REG_RIP, RSP_REG_EFLAGS,
		RSP_REG_FS_BASE,
	};
	struct user_fpregs_struct fp;

	memset(out, 0, sizeof(*out));
	memcpy(&fp, raw + HSREC_BORN_FXSAVE, sizeof(fp));
	/* x87 and SSE from the FXSAVE image; the general ones zero, then set. */
	stub_regs_from_user(&(struct user_regs_struct){ 0 }, &fp, out);
	for (size_t i = 0; i < sizeof(gp) / sizeof(gp[0]); i++) {
		uint64_t v;

		memcpy(&v, raw + 8 * i, 8);
		rsp_regs_set(out, gp[i], v);
	}
	out->avail[RSP_REG_ORIG_RAX] = false;
	out->avail[RSP_REG_GS_BASE] = false;
	for (int i = 0; avx && i < 16; i++)
		rsp_regs_set_bytes(out, (enum rsp_reg)(RSP_REG_YMM0H + i),
				   raw + HSREC_BORN_YMMH + 16 * i);
}

int stub_vglight_born_parse(const char *text, size_t len, bool avx,
			    struct stub_vglight_born **out, size_t *n)
{
	const char *end = text + len, *c;
	unsigned long want;
	uint8_t raw[HSREC_BORN_BYTES];

	*out = NULL;
	*n = 0;
	if (len < 15 || memcmp(text, "hindsight.born ", 15) ||
	    sscanf(text + 15, "%lu", &want) != 1 || want > 65536)
		return -EBADMSG;
	if (!want)
		return 0;
	*out = calloc(want, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (c = memchr(text, '\n', len); c && *n < want; c = memchr(c, '\n', (size_t)(end - c))) {
		char *hex;
		long tid;

		c++;
		tid = strtol(c, &hex, 10);
		if (tid <= 0 || hex >= end || *hex != ' ' || end - hex - 1 < 2 * HSREC_BORN_BYTES ||
		    rsp_hex_decode(hex + 1, 2 * HSREC_BORN_BYTES, raw) != HSREC_BORN_BYTES)
			break;
		(*out)[*n].tid = tid;
		stub_vglight_born_regs(raw, avx, &(*out)[*n].regs);
		(*n)++;
	}
	return 0;
}
