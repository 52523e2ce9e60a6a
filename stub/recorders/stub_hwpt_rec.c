/*
 * stub/recorders/stub_hwpt_rec.c: the hardware recorder's loop (stub/recorders/stub_hwpt_rec.h).
 *
 * One wake of the loop: poll (SIGCHLD's signalfd, the events, the timer),
 * then every waiting ptrace report through stub_hwpt_plan_decide and its
 * action, then the rings (stub_hwpt_poll), then the manifest if the
 * mappings or gaps changed. The order inside one action matters: a
 * thread's event is opened before the thread is resumed, so no user
 * instruction of it runs untraced.
 */
#include "stub/recorders/stub_hwpt_rec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt.h"
#include "stub/recorders/stub_hwpt_plan.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_maps.h"

static pid_t sys_waitpid(pid_t pid, int *status, int options)
{
	pid_t r;

	do
		r = waitpid(pid, status, options);
	while (r < 0 && errno == EINTR);
	return r;
}

static long sys_ptrace(int req, pid_t tid, void *addr, void *data)
{
	return ptrace((enum __ptrace_request)req, tid, addr, data);
}

static int sys_tgkill(pid_t pid, pid_t tid, int sig)
{
	return (int)syscall(SYS_tgkill, pid, tid, sig);
}

/* Thread @tid belongs to process @pid (Tgid in its status). */
static bool sys_is_thread_of(pid_t pid, pid_t tid)
{
	struct rsp_buf text;
	const char *p;
	bool r = false;

	rsp_buf_init(&text);
	if (stub_procfs_read(tid, "status", &text) == 0 &&
	    (p = strstr((const char *)text.data, "Tgid:")))
		r = atoi(p + 5) == pid;
	rsp_buf_release(&text);
	return r;
}

struct stub_hwpt_rec_sys stub_hwpt_rec_sys = {
	sys_waitpid, sys_ptrace, sys_tgkill, kill, poll, sys_is_thread_of, stub_procfs_tids,
};

struct stub_hwpt_rec {
	struct stub_hwpt_rec_options opt;
	pid_t pid;
	bool attached;
	volatile sig_atomic_t stop;
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct stub_hwpt_plan plan;
	struct stub_rec_maps maps;
	char vdso[64];             /* the bundle's copy of the vDSO, or "" */
	size_t saved_maps, saved_gaps, uuid_done;
	int sigfd;
	sigset_t old_mask;
	bool masked;
	bool no_children;          /* waitpid said ECHILD */
	struct pollfd *fds;
	size_t nfds;
};

static int say(char *why, size_t whysize, int rc, const char *what, const char *arg)
{
	snprintf(why, whysize, "%s%s%s", what, arg ? ": " : "", arg ? arg : "");
	return rc;
}

static int make_dirs(const char *dir)
{
	char path[4096];

	int e = replay_bundle_mkdir(dir);

	if (e < 0)
		return e;
	if (snprintf(path, sizeof(path), "%s/threads", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return replay_bundle_mkdir(path);
}

/* Build-ids of the mappings the sideband added (the files are here: this
 * is the recording machine). */
static void fill_uuids(struct stub_hwpt_rec *r)
{
	struct replay_bundle *b = r->b;
	char hex[128];

	for (size_t i = r->uuid_done; i < b->nmaps; i++) {
		struct replay_mapping *m = &b->maps[i];

		if (m->uuid || !m->file || m->file[0] != '/')
			continue;
		for (size_t j = 0; j < i && !m->uuid; j++)
			if (b->maps[j].uuid && b->maps[j].file && !strcmp(b->maps[j].file, m->file))
				replay_bundle_set_str(&m->uuid, b->maps[j].uuid);
		if (!m->uuid && stub_rec_build_id(m->file, hex, sizeof(hex)) == 0)
			replay_bundle_set_str(&m->uuid, hex);
	}
	r->uuid_done = b->nmaps;
}

static int save(struct stub_hwpt_rec *r)
{
	fill_uuids(r);
	r->saved_maps = r->b->nmaps;
	r->saved_gaps = r->b->ngaps;
	return replay_bundle_save(r->b, r->opt.dir);
}

/* The executable mappings there are now, from the start; the vDSO's copy. */
static int initial_maps(struct stub_hwpt_rec *r)
{
	struct stub_mem mem = { -1 };
	int e = stub_mem_open(&mem, r->pid);

	if (e < 0)
		return e;
	e = stub_rec_maps_update(&r->maps, r->b, r->pid, mem.fd, 0);
	stub_mem_close(&mem);
	for (size_t i = 0; i < r->b->nmaps; i++)
		if (r->b->maps[i].file && !strncmp(r->b->maps[i].file, "images/vdso-", 12))
			snprintf(r->vdso, sizeof(r->vdso), "%s", r->b->maps[i].file);
	return e < 0 ? e : 0;
}

static int open_events(struct stub_hwpt_rec *r, char *why, size_t whysize)
{
	struct stub_hwpt_setup s = {
		.sysfs_root = r->opt.sysfs_root, .opts = r->opt.opts, .full = r->opt.full,
		.aux_size = r->opt.aux_size, .dir = r->opt.dir, .pid = r->pid,
		.vdso_file = r->vdso[0] ? r->vdso : NULL,
	};
	pid_t *tids;
	int n, e;

	e = stub_hwpt_open(&s, r->b, &r->h, why, whysize);
	if (e < 0)
		return e;
	n = stub_hwpt_rec_sys.tids(r->pid, &tids);
	if (n < 0)
		return say(why, whysize, n, "the threads of the process", strerror(-n));
	for (int i = 0; i < n && e >= 0; i++) {
		e = stub_hwpt_plan_add(&r->plan, tids[i]);
		if (e >= 0)
			e = stub_hwpt_add_thread(r->h, tids[i], why, whysize);
		if (e >= 0)
			stub_hwpt_plan_traced(&r->plan, tids[i], true);
	}
	free(tids);
	return e;
}

int stub_hwpt_rec_new(struct stub_hwpt_rec **out, const struct stub_hwpt_rec_options *o,
		      pid_t pid, char *const argv[], bool attached, char *why, size_t whysize)
{
	struct stub_hwpt_rec *r = calloc(1, sizeof(*r));
	int e;

	*out = r;
	if (!r)
		return say(why, whysize, -ENOMEM, strerror(ENOMEM), NULL);
	r->opt = *o;
	if (!r->opt.poll_ms)
		r->opt.poll_ms = STUB_HWPT_REC_POLL_MS;
	r->pid = pid;
	r->attached = attached;
	r->sigfd = -1;
	stub_rec_maps_init(&r->maps);
	stub_hwpt_plan_init(&r->plan, pid, attached);
	e = make_dirs(o->dir);
	if (e < 0)
		return say(why, whysize, e, o->dir, strerror(-e));
	e = replay_bundle_new(&r->b);
	if (e >= 0)
		e = replay_bundle_set_str(&r->b->dir, o->dir);
	if (e >= 0 && argv)
		e = replay_bundle_set_argv(r->b, argv);
	if (e >= 0 && (e = initial_maps(r)) < 0)
		return say(why, whysize, e, "the mappings of the process", strerror(-e));
	if (e < 0)
		return say(why, whysize, e, strerror(-e), NULL);
	e = open_events(r, why, whysize);
	if (e < 0)
		return e;
	r->b->complete = false;
	e = save(r);
	if (e < 0)
		return say(why, whysize, e, o->dir, strerror(-e));
	return 0;
}

/* SIGCHLD through a signalfd, so poll wakes at every ptrace report. */
static int watch_children(struct stub_hwpt_rec *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &r->old_mask) < 0)
		return -errno;
	r->masked = true;
	r->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return r->sigfd < 0 ? -errno : 0;
}

static void unwatch_children(struct stub_hwpt_rec *r)
{
	if (r->sigfd >= 0)
		close(r->sigfd);
	r->sigfd = -1;
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
	r->masked = false;
}

/* A thread that could not be traced runs on untraced: a gap says so. */
static int trace_thread(struct stub_hwpt_rec *r, pid_t tid)
{
	char why[300], text[400];
	int e = stub_hwpt_add_thread(r->h, tid, why, sizeof(why));

	if (e == 0) {
		stub_hwpt_plan_traced(&r->plan, tid, true);
		return 0;
	}
	if (e == -ENOMEM)
		return e;
	snprintf(text, sizeof(text), "thread %d is not recorded: %s", (int)tid, why);
	e = replay_bundle_add_gap(r->b, tid, stub_hwpt_now(r->h), "lost", text);
	return e < 0 ? e : 0;
}

/* The facts a report needs (stub_hwpt_plan_needs). */
static void gather(struct stub_hwpt_rec *r, pid_t tid, int status, struct stub_hwpt_facts *f)
{
	unsigned need = stub_hwpt_plan_needs(&r->plan, tid, stub_hwpt_plan_classify(status));
	siginfo_t si;

	memset(f, 0, sizeof(*f));
	if (need & STUB_HWPT_NEED_MSG)
		stub_hwpt_rec_sys.ptrace(PTRACE_GETEVENTMSG, tid, NULL, &f->msg);
	if ((need & STUB_HWPT_NEED_SIGINFO) &&
	    stub_hwpt_rec_sys.ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0)
		f->group_stop = errno == EINVAL;
	if (need & STUB_HWPT_NEED_OURS)
		f->ours = stub_hwpt_rec_sys.is_thread_of(r->pid, tid);
}

/* One waitpid report. */
static int handle(struct stub_hwpt_rec *r, pid_t tid, int status)
{
	struct stub_hwpt_facts f;
	struct stub_hwpt_action a;
	int e;

	gather(r, tid, status, &f);
	e = stub_hwpt_plan_decide(&r->plan, tid, status, &f, &a);
	if (e < 0)
		return e;
	/* A write error of the last trace is reported at the end (the
	 * remaining threads still get theirs). */
	if (a.untrace)
		stub_hwpt_remove_thread(r->h, a.untrace);
	if (a.trace && (e = trace_thread(r, a.trace)) < 0)
		return e;
	if (a.exec && ((e = stub_hwpt_poll(r->h)) < 0 || (e = save(r)) < 0))
		return e;
	/* ESRCH: killed meanwhile (its end is reported next). */
	if (a.resume)
		stub_hwpt_rec_sys.ptrace(PTRACE_CONT, a.resume, NULL, (void *)(long)a.sig);
	if (a.detach)
		stub_hwpt_rec_sys.ptrace(PTRACE_DETACH, a.detach, NULL, (void *)(long)a.sig);
	return 0;
}

/* Every waiting report (@flags: WNOHANG, or 0 to wait for one). 0, or a
 * negative errno. */
static int collect(struct stub_hwpt_rec *r, int flags)
{
	for (;;) {
		int status, e;
		pid_t tid = stub_hwpt_rec_sys.waitpid(-1, &status, flags | __WALL);

		if (tid == 0)
			return 0;
		if (tid < 0 && errno == ECHILD) {
			r->no_children = true;
			return 0;
		}
		if (tid < 0)
			return -errno;
		e = handle(r, tid, status);
		if (e < 0 || !(flags & WNOHANG))
			return e;
	}
}

/* The end, asked for: an attached process's threads get SIGSTOP (and are
 * detached at it), a spawned process is killed. */
static void begin_stop(struct stub_hwpt_rec *r)
{
	size_t n = stub_hwpt_plan_live(&r->plan);
	pid_t *tids = calloc(n ? n : 1, sizeof(*tids));

	if (!tids) {
		stub_hwpt_rec_sys.kill(r->pid, r->attached ? SIGSTOP : SIGKILL);
		stub_hwpt_plan_stop(&r->plan, &(pid_t){ 0 });
		return;
	}
	n = stub_hwpt_plan_stop(&r->plan, tids);
	for (size_t i = 0; i < n; i++)
		stub_hwpt_rec_sys.tgkill(r->pid, tids[i], SIGSTOP);
	if (!r->attached)
		stub_hwpt_rec_sys.kill(r->pid, SIGKILL);
	free(tids);
}

static bool running(const struct stub_hwpt_rec *r)
{
	return !r->no_children && !r->plan.ended && stub_hwpt_plan_live(&r->plan) > 0;
}

/* The pollfds: the signalfd, then the events not hung up. */
static int poll_fds(struct stub_hwpt_rec *r, size_t *n)
{
	size_t want = r->plan.n + 1;

	if (want > r->nfds) {
		struct pollfd *v = realloc(r->fds, want * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->fds = v;
		r->nfds = want;
	}
	r->fds[0] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
	*n = 1 + stub_hwpt_fds(r->h, r->fds + 1, r->nfds - 1);
	return 0;
}

/* One wake of the loop. */
static int wake(struct stub_hwpt_rec *r, char *why, size_t whysize)
{
	struct signalfd_siginfo si;
	size_t n;
	int e;

	if (r->stop && !r->plan.stopping)
		begin_stop(r);
	if ((e = poll_fds(r, &n)) < 0)
		return say(why, whysize, e, strerror(-e), NULL);
	if (stub_hwpt_rec_sys.poll(r->fds, n, r->opt.poll_ms) < 0 && errno != EINTR)
		return say(why, whysize, -errno, "poll", strerror(errno));
	for (size_t i = 1; i < n; i++)
		if (r->fds[i].revents & (POLLHUP | POLLERR))
			stub_hwpt_hangup(r->h, r->fds[i].fd);
	while (read(r->sigfd, &si, sizeof(si)) > 0)
		;
	if ((e = collect(r, WNOHANG)) < 0)
		return say(why, whysize, e, "following the process", strerror(-e));
	if ((e = stub_hwpt_poll(r->h)) < 0)
		return say(why, whysize, e, "reading the trace", strerror(-e));
	if (r->b->nmaps != r->saved_maps || r->b->ngaps != r->saved_gaps)
		if ((e = save(r)) < 0)
			return say(why, whysize, e, r->opt.dir, strerror(-e));
	return 0;
}

/* After an error: the process must not stay stopped under a recorder that
 * is going away. */
static void wind_down(struct stub_hwpt_rec *r)
{
	if (!r->plan.stopping)
		begin_stop(r);
	while (running(r) && collect(r, 0) >= 0)
		;
}

static void set_exit(struct stub_hwpt_rec *r)
{
	const char *kind = "running";

	if (r->plan.ended)
		kind = r->plan.killed ? "signaled" : "exited";
	else if (r->attached && r->plan.stopping)
		kind = "detached";
	replay_bundle_set_str(&r->b->exit_kind, kind);
	r->b->exit_status = r->plan.ended ? r->plan.status : 0;
}

int stub_hwpt_rec_run(struct stub_hwpt_rec *r, char *why, size_t whysize)
{
	int e = watch_children(r), e2;
	uint64_t now;

	if (e < 0)
		say(why, whysize, e, "signalfd", strerror(-e));
	for (size_t i = 0; i < r->plan.n && e >= 0; i++)
		if (stub_hwpt_rec_sys.ptrace(PTRACE_CONT, r->plan.v[i].tid, NULL, NULL) < 0)
			e = say(why, whysize, -errno, "resuming the process", strerror(errno));
	while (e >= 0 && running(r))
		e = wake(r, why, whysize);
	if (e < 0)
		wind_down(r);
	e2 = stub_hwpt_remove_all(r->h);
	if (e >= 0 && e2 < 0)
		e = say(why, whysize, e2, "reading the last trace", strerror(-e2));
	unwatch_children(r);
	set_exit(r);
	now = stub_hwpt_now(r->h);
	if (now > r->b->end_time)
		r->b->end_time = now;
	r->b->complete = e >= 0;
	e2 = save(r);
	if (e >= 0 && e2 < 0)
		e = say(why, whysize, e2, r->opt.dir, strerror(-e2));
	return e;
}

void stub_hwpt_rec_stop(struct stub_hwpt_rec *r)
{
	r->stop = 1;
}

const struct replay_bundle *stub_hwpt_rec_bundle(const struct stub_hwpt_rec *r)
{
	return r->b;
}

void stub_hwpt_rec_get_summary(const struct stub_hwpt_rec *r, struct stub_hwpt_rec_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (r->b) {
		s->threads = r->b->nthreads;
		s->gaps = r->b->ngaps;
	}
	if (r->h)
		s->trace_bytes = stub_hwpt_trace_bytes(r->h);
}

void stub_hwpt_rec_free(struct stub_hwpt_rec *r)
{
	if (!r)
		return;
	stub_hwpt_close(r->h);
	unwatch_children(r);
	stub_hwpt_plan_release(&r->plan);
	stub_rec_maps_release(&r->maps);
	replay_bundle_free(r->b);
	free(r->fds);
	free(r);
}
