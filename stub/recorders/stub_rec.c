/*
 * stub/recorders/stub_rec.c: the software recorder (stub/recorders/stub_rec.h):
 * the process started or attached, the recorder set up on it, what it
 * tells of itself, and its end.
 *
 * Each thread is a task in one of three states: READY (stopped, its
 * registers known), SYSCALL (resumed over a syscall instruction, not
 * waited for) or GONE; a NEW task is a clone whose first stop has not
 * arrived yet. A READY task is stepped with PTRACE_SINGLESTEP and waited
 * for alone; a SIGTRAP means the instruction executed (a rep-string
 * iteration leaves the ip unchanged and is not counted), any other signal
 * means it did not (the signal is delivered at the next step: a caught one
 * stops again at the handler's first instruction). A syscall instruction
 * is logged when its completion is collected, so a signal that arrives
 * before it enters the kernel does not leave a false instruction behind.
 * A syscall that ends with -ERESTART* is re-executed by the kernel unless a
 * handler runs: the task is then resumed as a syscall at ip - 2.
 * What to do at each stop is decided by stub/recorders/stub_rec_plan.h, from the
 * stop as observed and the facts it asks for; the loop's files do the
 * ptrace (stub/recorders/stub_rec_priv.h lists them, each calling only
 * those below it). This file sets the recording up through the lowest.
 */
#include "stub/recorders/stub_rec.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_spawn.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_priv.h"

/* --- setup ---------------------------------------------------------- */

int stub_rec_spawn(char *const argv[], pid_t *pid)
{
	int e;

	stub_rec_pin_self();
	e = stub_spawn_start(argv, pid);

	if (e < 0)
		return e;
	if (ptrace(PTRACE_SETOPTIONS, *pid, 0,
		   (void *)(long)(STUB_REC_OPTIONS | PTRACE_O_EXITKILL)) < 0) {
		e = -errno;
		kill(*pid, SIGKILL);
		stub_rec_wait(*pid, &(int){ 0 }, 0);
		return e;
	}
	return 0;
}

/* Attaches @tid and waits for its stop; 1 if attached now, 0 if it was. */
static int stub_rec_attach_one(pid_t tid, pid_t **done, size_t *ndone)
{
	pid_t *nv;
	int st;

	for (size_t i = 0; i < *ndone; i++)
		if ((*done)[i] == tid)
			return 0;
	if (ptrace(PTRACE_ATTACH, tid, 0, 0) < 0)
		return errno == ESRCH ? 0 : -errno;
	nv = realloc(*done, (*ndone + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*done = nv;
	nv[(*ndone)++] = tid;
	if (stub_rec_wait(tid, &st, 0) < 0 || !WIFSTOPPED(st))
		return 1;
	ptrace(PTRACE_SETOPTIONS, tid, 0, (void *)(long)STUB_REC_OPTIONS);
	return 1;
}

int stub_rec_attach(pid_t pid)
{
	pid_t *done = NULL, *tids;
	size_t ndone = 0;
	int n, e = 0, added;

	/* Until a pass over the task list finds no new thread. */
	do {
		added = 0;
		n = stub_procfs_tids(pid, &tids);
		if (n < 0) {
			e = n;
			break;
		}
		for (int i = 0; i < n && e >= 0; i++) {
			e = stub_rec_attach_one(tids[i], &done, &ndone);
			added += e > 0;
		}
		free(tids);
	} while (e >= 0 && added);
	if (e < 0)
		for (size_t i = 0; i < ndone; i++)
			ptrace(PTRACE_DETACH, done[i], 0, 0);
	free(done);
	return e < 0 ? e : 0;
}

int stub_rec_adopt(pid_t pid, bool spawned)
{
	long options = STUB_REC_OPTIONS | (spawned ? PTRACE_O_EXITKILL : 0);
	pid_t *tids;
	int n = stub_procfs_tids(pid, &tids), e = 0;

	for (int i = 0; i < n && e == 0; i++)
		if (ptrace(PTRACE_SETOPTIONS, tids[i], 0, (void *)options) < 0)
			e = -errno;
	if (n >= 0)
		free(tids);
	return n < 0 ? n : e;
}

void stub_rec_let_go(pid_t pid, bool attached)
{
	pid_t *tids;
	int n, st;

	if (!attached) {
		kill(pid, SIGKILL);
		while (stub_rec_wait(pid, &st, 0) == pid && !WIFEXITED(st) && !WIFSIGNALED(st))
			;
		return;
	}
	n = stub_procfs_tids(pid, &tids);
	for (int i = 0; i < n; i++)
		ptrace(PTRACE_DETACH, tids[i], 0, 0);
	if (n >= 0)
		free(tids);
}

/* An attached process's command line, from /proc, its first word the
 * program's path (/proc/PID/exe: a program that rewrote its argv, or was
 * started through a link, is still found; the command line's own if that
 * cannot be read), as the bundle's argv: what
 * names the program among its mappings (replay_bundle_program_path; GDB's
 * auxv and the program's load address come from it). 0 or a negative
 * errno. */
static int stub_rec_bundle_proc_argv(struct replay_bundle *b, pid_t pid)
{
	struct rsp_buf buf, cmd;
	char **v = NULL;
	size_t n = 0;
	int e;

	bool exe;

	rsp_buf_init(&buf);
	rsp_buf_init(&cmd);
	exe = stub_procfs_exe(pid, &buf) == 0 && buf.len;
	if (!exe)
		rsp_buf_reset(&buf);   /* (the command line's first word then) */
	else if (buf.len > 10 && !memcmp(buf.data + buf.len - 10, " (deleted)", 10))
		buf.len -= 10;         /* the file's name, replaced since */
	e = exe ? rsp_buf_putc(&buf, 0) : 0;
	/* The arguments after the first (or all of them), if /proc has them. */
	if (e >= 0 && stub_procfs_read(pid, "cmdline", &cmd) == 0 && cmd.len) {
		size_t first = exe ? strnlen((const char *)cmd.data, cmd.len) + 1 : 0;

		if (first < cmd.len)
			e = rsp_buf_append(&buf, cmd.data + first, cmd.len - first);
	}
	if (e >= 0)
		e = rsp_buf_putc(&buf, 0);
	for (size_t at = 0; e >= 0 && at + 1 < buf.len; at += strlen((char *)buf.data + at) + 1) {
		char **nv = realloc(v, (n + 2) * sizeof(*v));

		if (!nv) {
			e = -ENOMEM;
			break;
		}
		v = nv;
		v[n++] = (char *)buf.data + at;
		v[n] = NULL;
	}
	if (e >= 0 && n)
		e = replay_bundle_set_argv(b, v);
	free(v);
	rsp_buf_release(&buf);
	rsp_buf_release(&cmd);
	return e;
}

/* The bundle's fixed fields. */
static int stub_rec_bundle_init(struct stub_rec *r, char *const argv[])
{
	struct replay_bundle *b = r->b;
	int e;

	e = replay_bundle_set_str(&b->recorder, "software");
	if (e >= 0)
		e = replay_bundle_set_str(&b->start, r->attached ? "attach" : "exec");
	if (e >= 0)
		e = replay_bundle_set_str(&b->dir, r->opt.dir);
	if (e >= 0 && argv)
		e = replay_bundle_set_argv(b, argv);
	else if (e >= 0 && r->attached)
		stub_rec_bundle_proc_argv(b, r->pid);   /* (without: no auxv, said then) */
	/* Family 6 model 0x9c: pt_cpu_errata (libipt 2.0.5) knows it and
	 * enables only APL11, which concerns OVF packets (never written
	 * here). docs/record.md says why. */
	snprintf(b->cpu.vendor, sizeof(b->cpu.vendor), "GenuineIntel");
	b->cpu.family = 6;
	b->cpu.model = 0x9c;
	b->cpu.stepping = 0;
	b->pid = r->pid;
	b->psb_period = r->opt.psb_period;
	b->ret_compression = !r->opt.noretcomp;
	b->complete = false;
	return e;
}

/* Every stopped thread becomes a READY task. */
static int stub_rec_initial_tasks(struct stub_rec *r)
{
	pid_t *tids;
	int n = stub_procfs_tids(r->pid, &tids), e = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n && e >= 0; i++) {
		struct stub_rec_task *t;

		e = stub_rec_add_task(r, tids[i], STUB_REC_READY, &t);
		if (e >= 0)
			e = stub_rec_getregs(t);
		/* Attached in a syscall: the kernel restarts it. */
		if (e >= 0 && r->attached && (long)t->regs.orig_rax >= 0)
			t->restart = stub_rec_plan_is_restart((long)t->regs.rax);
		if (e >= 0 && r->attached)
			stub_rec_pin_task(t);
	}
	free(tids);
	return e;
}

/* stub_rec_new's failure @e, said: "WHAT: strerror(e)" in r->why. */
static int stub_rec_cannot(struct stub_rec *r, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int stub_rec_cannot(struct stub_rec *r, int e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(r->why))
		snprintf(r->why + n, sizeof(r->why) - (size_t)n, ": %s", strerror(-e));
	return e;
}


static bool stub_rec_imaged(const void *maps, uint64_t ip)
{
	return stub_rec_maps_imaged(maps, ip);
}

int stub_rec_new(struct stub_rec **out, const struct stub_rec_options *opt, pid_t pid,
		 char *const argv[], bool attached)
{
	struct stub_rec *r = calloc(1, sizeof(*r));
	char path[4096];
	int e;

	if (!r)
		return -ENOMEM;
	r->opt = *opt;
	if (!r->opt.psb_period)
		r->opt.psb_period = STUB_REC_PSB_PERIOD;
	if (!r->opt.slice)
		r->opt.slice = STUB_REC_SLICE;
	r->pid = pid;
	r->attached = attached;
	r->mem.fd = -1;
	r->next_checkpoint = STUB_REC_CHECKPOINT;
	r->next_flush = STUB_REC_FLUSH;
	stub_rec_maps_init(&r->maps);
	*out = r;
	if ((e = replay_bundle_mkdir(opt->dir)) < 0)
		return stub_rec_cannot(r, e, "in %s", opt->dir);
	snprintf(path, sizeof(path), "%s/threads", opt->dir);
	if ((e = replay_bundle_mkdir(path)) < 0)
		return stub_rec_cannot(r, e, "in %s", path);
	if (opt->ip_log && !(r->iplog = fopen(opt->ip_log, "we")))
		return stub_rec_cannot(r, -errno, "to %s", opt->ip_log);
	if (opt->state_check && !(r->sp.check = fopen(opt->state_check, "we")))
		return stub_rec_cannot(r, -errno, "to %s", opt->state_check);
	e = replay_bundle_new(&r->b);
	if (e >= 0)
		e = stub_rec_bundle_init(r, argv);
	if (e >= 0)
		e = stub_rec_icache_init(&r->icache);
	/* Code outside files (a JIT's) is kept as it runs, and read again
	 * each time: it may be written over. */
	if (e >= 0 && !(r->code = stub_rec_code_new(r->b, opt->dir)))
		e = -ENOMEM;
	r->maps.keeps_code = true;
	r->icache.cacheable = stub_rec_imaged;
	r->icache.ctx = &r->maps;
	/* The kernel lets no one but root read the memory of a program its
	 * user may not read (an executable without r permission). */
	if (e >= 0 && (e = stub_mem_open(&r->mem, pid)) < 0)
		return stub_rec_cannot(r, e, "process %d: cannot read its memory%s", (int)pid,
				       e == -EACCES || e == -EPERM ?
				       " (a program you may not read cannot be recorded)" : "");
	if (e >= 0)
		e = stub_rec_state_proc_init(&r->sp, &r->mem.fd, r->b, r->sp.check,
					     opt->state_check_every);
	if (e >= 0)
		e = stub_rec_initial_tasks(r);
	if (e >= 0)
		e = stub_rec_maps_update(&r->maps, r->b, pid, r->mem.fd, 0);
	if (e >= 0 && (e = stub_rec_save(r)) < 0)
		return stub_rec_cannot(r, e, "in %s", opt->dir);
	return e < 0 ? e : 0;
}

const char *stub_rec_why(const struct stub_rec *r)
{
	return r ? r->why : "";
}

void stub_rec_stop(struct stub_rec *r)
{
	r->stop = 1;
}

const struct replay_bundle *stub_rec_bundle(const struct stub_rec *r)
{
	return r->b;
}

void stub_rec_get_summary(const struct stub_rec *r, struct stub_rec_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->instructions = r->clock;
	s->threads = r->ntasks;
	s->gaps = r->b ? r->b->ngaps : 0;
	s->lost_traps = r->lost_traps;
	for (size_t i = 0; i < r->ntasks; i++) {
		s->trace_bytes += stub_swpt_offset(&r->tasks[i]->th.pt);
		s->state_bytes += r->tasks[i]->st.bytes;
		s->kept_instructions += r->tasks[i]->th.ninsn -
					stub_rec_ring_dropped(&r->tasks[i]->ring);
		s->kept_bytes += stub_rec_ring_kept(&r->tasks[i]->ring, stub_swpt_offset(&r->tasks[i]->th.pt),
						    r->tasks[i]->st.bytes);
	}
	s->snapshot = r->opt.snapshot != 0;
}

void stub_rec_free(struct stub_rec *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntasks; i++) {
		stub_rec_thread_release(&r->tasks[i]->th);
		stub_rec_state_release(&r->tasks[i]->st);
		fclose(r->tasks[i]->pt);
		fclose(r->tasks[i]->stf);
		stub_rec_ring_release(&r->tasks[i]->ring);
		free(r->tasks[i]);
	}
	free(r->tasks);
	free(r->handed);
	if (r->iplog)
		fclose(r->iplog);
	if (r->sp.check)
		fclose(r->sp.check);
	stub_mem_close(&r->mem);
	stub_rec_icache_release(&r->icache);
	stub_rec_maps_release(&r->maps);
	stub_rec_code_free(r->code);
	replay_bundle_free(r->b);
	free(r);
}
