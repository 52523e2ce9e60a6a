/*
 * stub/recorders/stub_recorder.c: the recorders behind one interface
 * (stub/recorders/stub_recorder.h): the choice of a recorder, the start of the
 * program, and one table of operations per recorder over its own API
 * (single steps: stub/recorders/stub_rec.h; Intel PT: stub/recorders/stub_hwpt_rec.h;
 * Valgrind: stub/recorders/stub_vgrec.h). Lines for the user go to the options'
 * `say` callback.
 */
#include "stub/recorders/stub_recorder.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt.h"
#include "stub/recorders/stub_hwpt_caps.h"
#include "stub/recorders/stub_hwpt_rec.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_vglight.h"
#include "stub/recorders/stub_vgrec.h"
#include "stub/live/stub_spawn.h"

static void rec_say(const struct stub_recorder *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rec_say(const struct stub_recorder *rec, const char *fmt, ...)
{
	char line[8192];
	va_list ap;

	if (!rec->opt.say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rec->opt.say(rec->opt.say_ctx, line);
}

static double rec_now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* After each periodic save: how big the recording has grown, and a
 * warning before its disk fills (stub_rec_disk.h). */
static void rec_progress(void *ctx)
{
	struct stub_recorder *rec = ctx;
	struct stub_recorder_summary s = { 0 };
	struct statvfs fs;
	uint64_t avail = UINT64_MAX;
	char line[1024];

	rec->ops->summary(rec, &s);
	if (statvfs(rec->dir, &fs) == 0)
		avail = (uint64_t)fs.f_bavail * fs.f_frsize;
	do {
		stub_rec_disk_note(&rec->disk, rec->dir, s.s.trace_bytes, s.s.state_bytes,
				   s.counted ? s.s.instructions : 0, rec_now_secs() - rec->start_secs,
				   avail, line, sizeof(line));
		if (line[0])
			rec_say(rec, "%s", line);
	} while (line[0]);
}

static bool rec_attached(const struct stub_recorder *rec)
{
	return rec->opt.attach_pid != 0;
}

/* --- the start of the program ----------------------------------------- */

/* The command name of @pid (for the default directory), "attach" if
 * unknown. */
static const char *rec_comm(pid_t pid)
{
	static char comm[64];
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, sizeof(comm), f) || !comm[0] || comm[0] == '\n')
		snprintf(comm, sizeof(comm), "attach");
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n/")] = 0;
	return comm;
}

/* The bundle directory: the one asked for, else hindsight-PROG-@pid. */
static void rec_set_dir(struct stub_recorder *rec, pid_t pid)
{
	if (rec->opt.dir)
		snprintf(rec->dir, sizeof(rec->dir), "%s", rec->opt.dir);
	else
		snprintf(rec->dir, sizeof(rec->dir), "hindsight-%s-%d",
			 rec->opt.argv ? basename(rec->opt.argv[0]) : rec_comm(pid), (int)pid);
}

/* Starts the program stopped at its first instruction, or attaches to
 * every thread of the process, once; the directory follows. */
static int rec_launch(struct stub_recorder *rec)
{
	int e;

	if (rec->pid)
		return 0;
	if (rec->opt.adopt) {
		e = stub_rec_adopt(rec->opt.attach_pid, rec->opt.spawned);
		if (e < 0) {
			rec_say(rec, "cannot record process %ld: %s", (long)rec->opt.attach_pid,
				strerror(-e));
			return e;
		}
		rec->pid = rec->opt.attach_pid;
	} else if (rec_attached(rec)) {
		e = stub_rec_attach(rec->opt.attach_pid);
		if (e < 0) {
			rec_say(rec, "cannot attach to process %ld: %s", (long)rec->opt.attach_pid,
				strerror(-e));
			return e;
		}
		rec->pid = rec->opt.attach_pid;
	} else {
		pid_t pid;

		e = stub_rec_spawn(rec->opt.argv, &pid);
		if (e < 0) {
			rec_say(rec, "cannot start %s: %s", rec->opt.argv[0], strerror(-e));
			return e;
		}
		rec->pid = pid;
	}
	rec_set_dir(rec, rec->pid);
	return 0;
}

/* No recording of the program after all: a started one is killed (and
 * waited for), an attached one detached, running on as before. */
static void rec_abandon(struct stub_recorder *rec)
{
	if (!rec->opt.adopt)           /* handed over: it stays its giver's */
		stub_rec_let_go(rec->pid, rec_attached(rec));
}

/* --- single steps ------------------------------------------------------- */

static int sw_start(struct stub_recorder *rec)
{
	struct stub_rec_options o;
	struct stub_rec *r = NULL;
	int e = rec_launch(rec);

	if (e < 0)
		return e;
	memset(&o, 0, sizeof(o));
	o.dir = rec->dir;
	o.psb_period = rec->opt.psb_period;
	o.noretcomp = rec->opt.noretcomp;
	o.ip_log = rec->opt.ip_log;
	o.step_cpuid = rec->opt.step_cpuid;
	o.snapshot = rec->opt.snapshot;
	o.progress = rec_progress;
	o.progress_ctx = rec;
	o.spawned = rec->opt.adopt && rec->opt.spawned;
	e = stub_rec_new(&r, &o, rec->pid, rec->opt.argv, rec_attached(rec));
	if (e < 0) {
		if (stub_rec_why(r)[0])
			rec_say(rec, "cannot record %s", stub_rec_why(r));
		else
			rec_say(rec, "cannot record in %s: %s", rec->dir, strerror(-e));
		rec_abandon(rec);
		stub_rec_free(r);
		return e;
	}
	rec->impl = r;
	return 0;
}

/* The disk filled up: the recorder let the program go on unrecorded. A
 * started one is still this process's child: waited for, so the
 * recording ends with it as it would have. */
static void sw_unwritable(struct stub_recorder *rec, int e)
{
	int st;

	rec_say(rec, "recording stopped: %s; %s keeps what was written before (its end is a gap)",
		strerror(-e), rec->dir);
	if (rec_attached(rec) && !rec->opt.spawned) {
		rec_say(rec, "process %d detached; it goes on unrecorded", (int)rec->pid);
		return;
	}
	rec_say(rec, "the program (pid %d) goes on unrecorded; waiting for it", (int)rec->pid);
	while (waitpid(rec->pid, &st, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(st))
		rec_say(rec, "the program exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		rec_say(rec, "the program was killed by %s", strsignal(WTERMSIG(st)));
}

static int sw_run(struct stub_recorder *rec)
{
	int e = stub_rec_run(rec->impl);

	if (e < 0 && stub_rec_unwritable(e))
		sw_unwritable(rec, e);
	else if (e < 0)
		rec_say(rec, "recording stopped early: %s (the bundle in %s is incomplete)",
			strerror(-e), rec->dir);
	return e;
}

static void sw_stop(struct stub_recorder *rec)
{
	stub_rec_stop(rec->impl);
}

static void sw_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s)
{
	s->name = "software";
	s->counted = true;
	stub_rec_get_summary(rec->impl, &s->s);
}

static const struct replay_bundle *sw_bundle(const struct stub_recorder *rec)
{
	return stub_rec_bundle(rec->impl);
}

static void sw_free(struct stub_recorder *rec)
{
	stub_rec_free(rec->impl);
}

/* Serving live: stub_rec.h's live functions over the recorder's object. */
static int sw_goal_start(struct stub_recorder *rec, struct stub_rec_goal *g)
{
	return stub_rec_goal_start(rec->impl, g);
}

static int sw_set_signal(struct stub_recorder *rec, pid_t tid, int sig)
{
	return stub_rec_set_signal(rec->impl, tid, sig);
}

static int sw_run_until(struct stub_recorder *rec, struct stub_rec_goal *g, uint32_t budget,
			struct stub_rec_pause *out)
{
	return stub_rec_run_until(rec->impl, g, budget, out);
}

static pid_t sw_pause_all(struct stub_recorder *rec)
{
	return stub_rec_pause_all(rec->impl);
}

static bool sw_waiting(const struct stub_recorder *rec)
{
	return stub_rec_waiting(rec->impl);
}

static void sw_interrupt(struct stub_recorder *rec)
{
	stub_rec_interrupt(rec->impl);
}

static bool sw_interrupted(const struct stub_recorder *rec)
{
	return stub_rec_interrupted(rec->impl);
}

static int sw_sync(struct stub_recorder *rec)
{
	return stub_rec_sync(rec->impl);
}

static int sw_end(struct stub_recorder *rec, bool detach)
{
	return stub_rec_end(rec->impl, detach);
}

static int sw_hand_back(struct stub_recorder *rec, const struct stub_rec_handed **out, size_t *n)
{
	return stub_rec_hand_back(rec->impl, out, n);
}

static size_t sw_tids(const struct stub_recorder *rec, pid_t *out, size_t max)
{
	return stub_rec_tids(rec->impl, out, max);
}

static bool sw_has_thread(const struct stub_recorder *rec, pid_t tid)
{
	return stub_rec_has_thread(rec->impl, tid);
}

static int sw_task_regs(const struct stub_recorder *rec, pid_t tid, struct user_regs_struct *out,
			bool *stopped)
{
	return stub_rec_task_regs(rec->impl, tid, out, stopped);
}

static int sw_regs_changed(struct stub_recorder *rec, pid_t tid)
{
	return stub_rec_regs_changed(rec->impl, tid);
}

static int sw_write_mem(struct stub_recorder *rec, pid_t tid, uint64_t addr, const void *buf,
			size_t len)
{
	return stub_rec_write_mem(rec->impl, tid, addr, buf, len);
}

static int sw_mem_fd(const struct stub_recorder *rec)
{
	return stub_rec_mem_fd(rec->impl);
}

static bool sw_alive(const struct stub_recorder *rec)
{
	return stub_rec_alive(rec->impl);
}

static const struct stub_recorder_live_ops sw_live_ops = {
	sw_goal_start, sw_set_signal, sw_run_until, sw_pause_all, sw_waiting, sw_interrupt,
	sw_interrupted, sw_sync, sw_end, sw_hand_back, sw_tids, sw_has_thread, sw_task_regs,
	sw_regs_changed,
	sw_write_mem, sw_mem_fd, sw_alive,
};

static const struct stub_recorder_ops sw_ops = {
	sw_start, sw_run, sw_stop, sw_summary, sw_bundle, NULL, sw_free, &sw_live_ops,
};

/* --- hardware Intel PT -------------------------------------------------- */

/* 1 when the events cannot be opened and auto hands the program over to
 * single steps. */
static int hw_start(struct stub_recorder *rec)
{
	struct stub_hwpt_rec_options o = { .full = !rec->opt.snapshot,
					   .aux_size = rec->opt.snapshot ? rec->opt.snapshot
									 : rec->opt.aux_size,
					   .opts = STUB_HWPT_OPTS_DEFAULT };
	struct stub_hwpt_rec *r = NULL;
	char why[512] = "";
	int e = rec_launch(rec);

	if (e < 0)
		return e;
	o.dir = rec->dir;
	o.sysfs_root = rec->opt.sysfs_root;
	o.opts.noretcomp = rec->opt.noretcomp;
	o.opts.psb_period = rec->hw_psb;
	e = stub_hwpt_rec_new(&r, &o, rec->pid, rec->opt.argv, rec_attached(rec), why,
			      sizeof(why));
	if (e < 0) {
		stub_hwpt_rec_free(r);
		if (!strcmp(rec->opt.mode, "auto")) {
			rec_say(rec, "%s; recording in software", why);
			return 1;
		}
		rec_say(rec, "cannot record with Intel PT: %s", why);
		rec_abandon(rec);
		return e;
	}
	rec->impl = r;
	return 0;
}

static int hw_run(struct stub_recorder *rec)
{
	char why[512] = "";
	int e = stub_hwpt_rec_run(rec->impl, why, sizeof(why));

	if (e < 0)
		rec_say(rec, "recording stopped early: %s (the bundle in %s is incomplete)", why,
			rec->dir);
	return e;
}

static void hw_stop(struct stub_recorder *rec)
{
	stub_hwpt_rec_stop(rec->impl);
}

static void hw_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s)
{
	struct stub_hwpt_rec_summary h;

	stub_hwpt_rec_get_summary(rec->impl, &h);
	s->name = "hardware Intel PT";
	s->counted = false;
	s->s.threads = h.threads;
	s->s.gaps = h.gaps;
	s->s.trace_bytes = h.trace_bytes;
	s->s.snapshot = rec->opt.snapshot != 0;
}

static const struct replay_bundle *hw_bundle(const struct stub_recorder *rec)
{
	return stub_hwpt_rec_bundle(rec->impl);
}

static void hw_free(struct stub_recorder *rec)
{
	stub_hwpt_rec_free(rec->impl);
}

static const struct stub_recorder_ops hw_ops = {
	hw_start, hw_run, hw_stop, hw_summary, hw_bundle, NULL, hw_free, NULL,
};

/* --- Valgrind ----------------------------------------------------------- */

/* Valgrind starts the program itself; the directory is named after this
 * process. */
static int vg_start(struct stub_recorder *rec)
{
	struct stub_vgrec_options o = { .psb_period = rec->opt.psb_period,
					.noretcomp = rec->opt.noretcomp,
					.verify = rec->opt.vg_verify,
					.snapshot = rec->opt.snapshot,
					.progress = rec_progress, .progress_ctx = rec };
	struct stub_vgrec *r = NULL;
	char why[512] = "";
	int e;

	rec_set_dir(rec, getpid());
	o.dir = rec->dir;
	e = stub_vgrec_new(&r, &o, rec->opt.argv, why, sizeof(why));
	if (e < 0) {
		rec_say(rec, "cannot record with Valgrind: %s", why);
		stub_vgrec_free(r);
		return e;
	}
	rec->impl = r;
	return 0;
}

static int vg_run(struct stub_recorder *rec)
{
	char why[512] = "";
	int e = stub_vgrec_run(rec->impl, why, sizeof(why));

	if (e == -ENOEXEC) {
		/* Nothing ran: no recording, as when the program cannot start. */
		rec_say(rec, "cannot start %s under Valgrind", rec->opt.argv[0]);
		stub_recorder_delete(rec->dir);
		return STUB_RECORDER_NOTHING;
	}
	if (e < 0 && stub_rec_unwritable(e))
		rec_say(rec, "recording stopped: %s; %s keeps what was written before (its end is "
			"a gap); the program went on unrecorded, under Valgrind, to its end",
			strerror(-e), rec->dir);
	else if (e < 0)
		rec_say(rec, "recording stopped early: %s (the bundle in %s is incomplete)", why,
			rec->dir);
	return e;
}

static void vg_stop(struct stub_recorder *rec)
{
	stub_vgrec_stop(rec->impl);
}

static void vg_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s)
{
	s->name = "Valgrind";
	s->counted = true;
	stub_vgrec_get_summary(rec->impl, &s->s);
}

static const struct replay_bundle *vg_bundle(const struct stub_recorder *rec)
{
	return stub_vgrec_bundle(rec->impl);
}

/* Points at Valgrind's messages when it wrote any, and says what to do
 * when Valgrind could not run an instruction of the program (VEX has no
 * AVX-512, for one): the program died of SIGILL that a native run would
 * not have. */
static void vg_epilogue(struct stub_recorder *rec)
{
	char p[4200], line[512];
	struct stat sb;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", rec->dir, STUB_VGREC_LOG);
	if (stat(p, &sb) != 0 || sb.st_size == 0)
		return;
	rec_say(rec, "Valgrind's messages are in %s", p);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, "Illegal opcode at address ");

		if (!at)
			continue;
		rec_say(rec, "Valgrind cannot run the instruction at %.*s (an instruction set "
			"it does not emulate, such as AVX-512): the program died of SIGILL "
			"under it; --record=sw records it natively",
			(int)strcspn(at + 26, "\n"), at + 26);
		break;
	}
	if (f)
		fclose(f);
}

static void vg_free(struct stub_recorder *rec)
{
	stub_vgrec_free(rec->impl);
}

static const struct stub_recorder_ops vg_ops = {
	vg_start, vg_run, vg_stop, vg_summary, vg_bundle, vg_epilogue, vg_free, NULL,
};

/* --- Valgrind, light ---------------------------------------------------- */

/* The program runs when the recording does (lt_run): here only the
 * directory. */
static int lt_start(struct stub_recorder *rec)
{
	/* How SIGINT is handled now, before the command line ignores it for
	 * its own sake: the program gets it so (lt_run starts it later). */
	sigaction(SIGINT, NULL, &rec->light.sigint);
	rec_set_dir(rec, getpid());
	return 0;
}

/* The rebuild's periodic save: what rec_progress says, and every
 * LT_PROGRESS_SECS (HINDSIGHT_PROGRESS_SECS if set: tests) how far it has
 * come, by the tool's count of superblocks against the recorded run's
 * (HSIN_END), image by image. */
#define LT_PROGRESS_SECS 10.0

static double lt_progress_secs(void)
{
	const char *v = getenv("HINDSIGHT_PROGRESS_SECS");
	char *end;
	double d = v ? strtod(v, &end) : -1;

	return v && end != v && !*end && d >= 0 ? d : LT_PROGRESS_SECS;
}

static void lt_progress(void *ctx)
{
	struct stub_recorder *rec = ctx;
	const struct stub_vglight_scan *sc = &rec->light.scan;
	struct stub_recorder_summary s = { 0 };
	double now = rec_now_secs(), pct;
	uint64_t blocks;
	unsigned image;
	char where[96] = "";

	rec_progress(ctx);
	/* (Trailing the run, it is as far as the run: nothing to say.) */
	if (!rec->impl || rec->opt.rebuild_trail || now - rec->light.said < lt_progress_secs())
		return;
	rec->light.said = now;
	stub_vgrec_progress(rec->impl, &blocks, &image);
	vg_summary(rec, &s);
	if (sc->images > 1 && image < sc->images)
		snprintf(where, sizeof(where), "in the run's process image %u of %u, ", image,
			 sc->images);
	else if (sc->end_blocks) {
		pct = 100.0 * (double)blocks / (double)sc->end_blocks;
		snprintf(where, sizeof(where), "%.0f%% of the run%s, ", pct > 99 ? 99 : pct,
			 sc->images > 1 ? " (its last image)" : "");
	}
	rec_say(rec, "rebuilding: %s%" PRIu64 " instructions so far, in %.0f s", where,
		s.s.instructions, now - rec->light.from);
}

/* rebuild_last: the window @o starts at, by the log's look-over (a run
 * of one image only: the tool counts superblocks image by image). */
static void lt_window(struct stub_recorder *rec, struct stub_vgrec_options *o)
{
	const struct stub_vglight_scan *sc = &rec->light.scan;
	uint64_t last = rec->opt.rebuild_last;

	rec->light.window_from = 0;
	if (!last || sc->end_blocks <= last)
		return;            /* the whole, which is no longer */
	if (sc->images != 1) {
		rec_say(rec, "the program exec'd: its history is rebuilt whole, not only its "
			"last %" PRIu64 " superblocks", last);
		return;
	}
	o->window_from = rec->light.window_from = sc->end_blocks - last;
}

/* The mark @name in the bundle, holding @line, made; or removed when
 * @line is NULL. 0 or a negative errno (said). */
static int lt_mark(struct stub_recorder *rec, const char *name, const char *line)
{
	char path[4200];
	size_t n = line ? strlen(line) : 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", rec->dir, name);
	if (!line) {
		if (unlink(path) < 0 && errno != ENOENT) {
			rec_say(rec, "cannot remove %s: %s", path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	fd = replay_bundle_create(path);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n) {
		int e = fd < 0 ? fd : -EIO;

		rec_say(rec, "cannot write %s: %s", path, strerror(-e));
		if (fd >= 0)
			close(fd);
		return e;
	}
	close(fd);
	return 0;
}

/* After a rebuild: what the bundle holds, marked: a window
 * (STUB_VGLIGHT_WINDOW), or the whole (the marks removed). The history
 * alone is marked before it starts (lt_history_first). 0 or a negative
 * errno (said). */
static int lt_marks(struct stub_recorder *rec)
{
	const struct stub_vglight_scan *sc = &rec->light.scan;
	char line[256];
	int e;

	snprintf(line, sizeof(line), "superblocks %" PRIu64 " to %" PRIu64 " of the run's %"
		 PRIu64 "\n", rec->light.window_from, sc->end_blocks, sc->end_blocks);
	e = lt_mark(rec, STUB_VGLIGHT_WINDOW, rec->light.window_from ? line : NULL);
	if (e >= 0 && !rec->light.history_only)
		e = lt_mark(rec, STUB_VGLIGHT_HISTORY, NULL);
	return e;
}

/* Before a rebuild of the history alone, while the bundle is still
 * marked as being rebuilt: its mark (a command that needs the state then
 * rebuilds the whole, whatever happens after this), and the state logs
 * an earlier rebuild left (gigabytes nothing names any more). 0 or a
 * negative errno (said). */
static int lt_history_first(struct stub_recorder *rec)
{
	static const char *const ends[] = { ".state", ".state.sum", ".state.checked" };
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int e = lt_mark(rec, STUB_VGLIGHT_HISTORY, "the history only: no registers or memory\n");

	snprintf(path, sizeof(path), "%s/threads", rec->dir);
	d = e < 0 ? NULL : opendir(path);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		bool state = !strcmp(de->d_name, "state.idx");

		for (size_t i = 0; !state && i < sizeof(ends) / sizeof(ends[0]); i++) {
			size_t k = strlen(ends[i]);

			state = n > k && !strcmp(de->d_name + n - k, ends[i]);
		}
		snprintf(path, sizeof(path), "%s/threads/%s", rec->dir, de->d_name);
		if (state && unlink(path) < 0 && errno != ENOENT)
			rec_say(rec, "cannot remove %s: %s", path, strerror(errno));
	}
	if (d)
		closedir(d);
	return e;
}

static void rec_delete_made(const char *dir);

/* Before a light run into a directory that holds an earlier recording
 * (of any recorder): what was recorded or rebuilt there goes, else the
 * new inputs would pass for rebuilt (stub_vglight_pending) and the old
 * history be shown as theirs. */
static void lt_clean(struct stub_recorder *rec)
{
	char path[4200];

	/* Only over a recording: a directory that is none keeps its files. */
	snprintf(path, sizeof(path), "%s/trace.json", rec->dir);
	if (access(path, F_OK) != 0) {
		snprintf(path, sizeof(path), "%s/%s", rec->dir, STUB_VGLIGHT_LOG);
		if (access(path, F_OK) != 0)
			return;
	}
	rec_delete_made(rec->dir);
}

/* After a rebuild that trailed the light run: the window it made is the
 * run's last rebuild_trail superblocks if the run, now over, was of one
 * image and longer than that (the tool places the window at the end it
 * read, and gives up at an exec): 0, else -ECANCELED, the reason in @why. */
static int lt_trailed(struct stub_recorder *rec, const char *log, char *why, size_t size)
{
	struct stub_vglight_scan *sc = &rec->light.scan;
	uint64_t last = rec->opt.rebuild_trail;

	if (stub_vglight_scan(log, sc) < 0 || !stub_vglight_window_fits(sc, last)) {
		snprintf(why, size, "the run %s: a window of its last %" PRIu64 " superblocks "
			 "cannot be rebuilt beside it", sc->images != 1 ? "exec'd" :
			 "was no longer than the window", last);
		return -ECANCELED;
	}
	rec->light.window_from = sc->end_blocks - last;
	return 0;
}

/* The program runs under the light mode, which logs its inputs; then the
 * full recorder's bundle is rebuilt from them (stub/recorders/stub_vglight.h). */
static int lt_run(struct stub_recorder *rec)
{
	char tooldir[4096], valgrind[4096], why[512] = "", log[4200], verify[PATH_MAX];
	char busy[4200];
	struct stub_vgrec_options o = { .psb_period = rec->opt.psb_period,
					.noretcomp = rec->opt.noretcomp,
					.inputs = log,
					.progress = lt_progress, .progress_ctx = rec };
	struct stub_vgrec *r = NULL;
	double t0 = rec_now_secs();
	int e;

	if (!stub_vgrec_available(tooldir, sizeof(tooldir), why, sizeof(why)) ||
	    stub_spawn_resolve("valgrind", getenv("PATH"), valgrind, sizeof(valgrind)) < 0) {
		rec_say(rec, "cannot record with Valgrind: %s", why);
		return -ENOENT;
	}
	if (rec->opt.rebuild) {
		rec->light.wstatus = rec->opt.rebuild_wstatus;
		goto rebuild;
	}
	if (rec->opt.vg_verify) {
		int fd = open(rec->opt.vg_verify, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || !realpath(rec->opt.vg_verify, verify)) {
			rec_say(rec, "cannot create %s: %s", rec->opt.vg_verify, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -EIO;
		}
		close(fd);
	}
	lt_clean(rec);
	struct stub_vglight_how how = { .valgrind = valgrind, .tooldir = tooldir, .dir = rec->dir,
					.verify = rec->opt.vg_verify ? verify : NULL,
					.sigint = &rec->light.sigint,
					.started = rec->opt.light_started,
					.started_ctx = rec->opt.light_started_ctx };

	e = stub_vglight_record(&how, rec->opt.argv, &rec->light_stop, &rec->light.wstatus,
				&rec->light.bytes, why, sizeof(why));
	rec->light.secs = rec_now_secs() - t0;
	if (e == -ENOEXEC) {
		rec_say(rec, "cannot start %s under Valgrind: %s", rec->opt.argv[0], why);
		stub_recorder_delete(rec->dir);
		return STUB_RECORDER_NOTHING;
	}
	if (e < 0) {
		rec_say(rec, "recording stopped: %s", why);
		return e;
	}
	if (rec->light_stop) {
		int st = rec->light.wstatus;
		char ended[64];

		if (WIFEXITED(st))
			snprintf(ended, sizeof(ended), "it exited with status %d", WEXITSTATUS(st));
		else
			snprintf(ended, sizeof(ended), "it was killed by %s",
				 strsignal(WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL));
		rec_say(rec, "recording stopped as asked: the program was sent SIGTERM, and %s; "
			"its inputs up to there are in %s/%s (`hindsight rebuild %s` rebuilds its "
			"history up to there)", ended, rec->dir, STUB_VGLIGHT_LOG, rec->dir);
		return -EINTR;
	}
	if (rec->opt.light_defer) {
		rec->light.deferred = true;
		return 0;
	}
	rec_say(rec, "the program ran in %.2f s; its inputs: %" PRIu64 " bytes; rebuilding its "
		"history and state from them", rec->light.secs, rec->light.bytes);
rebuild:
	snprintf(log, sizeof(log), "%s/%s", rec->dir, STUB_VGLIGHT_LOG);
	o.dir = rec->dir;
	snprintf(busy, sizeof(busy), "%s/%s", rec->dir, STUB_VGLIGHT_BUSY);
	e = replay_bundle_create(busy);
	if (e < 0) {
		rec_say(rec, "cannot create %s: %s", busy, strerror(-e));
		return e;
	}
	close(e);
	/* A log that cannot be looked over leaves the progress without its
	 * share of the run (the rebuild itself says what is wrong). A run
	 * still going is looked over when it has ended. */
	if (!rec->opt.rebuild_trail) {
		stub_vglight_scan(log, &rec->light.scan);
		lt_window(rec, &o);
	}
	o.trail = rec->opt.rebuild_trail;
	o.trail_wstatus_fd = rec->opt.rebuild_trail_fd;
	if (rec->opt.rebuild)
		o.verify = rec->opt.vg_verify;     /* (the light run's is its own) */
	rec->light.history_only = rec->opt.rebuild && rec->opt.rebuild_history_only &&
				  !rec->light.window_from;
	if (rec->light.history_only && (e = lt_history_first(rec)) < 0)
		return e;
	rec->light.from = rec->light.said = rec_now_secs();
	o.inputs_wstatus = rec->light.wstatus;
	o.inputs_sigint = &rec->light.sigint;
	o.history_only = rec->light.history_only;
	o.follow = rec->opt.rebuild && rec->opt.rebuild_follow;
	o.here = rec->opt.rebuild_here;
	o.here_ctx = rec->opt.rebuild_here_ctx;
	t0 = rec_now_secs();
	e = stub_vgrec_new(&r, &o, rec->opt.argv, why, sizeof(why));
	if (e < 0) {
		rec_say(rec, "cannot rebuild with Valgrind: %s", why);
		stub_vgrec_free(r);
		return e;
	}
	rec->impl = r;
	/* Not vg_run: a rebuild that cannot start deletes nothing (the
	 * inputs are the recording). */
	e = stub_vgrec_run(r, why, sizeof(why));
	if (e >= 0 && rec->opt.rebuild_trail)
		e = lt_trailed(rec, log, why, sizeof(why));
	if (e < 0)
		rec_say(rec, "the rebuild stopped: %s (Valgrind's messages are in %s/%s; the "
			"inputs in %s are kept; `hindsight rebuild %s` tries again)", why, rec->dir,
			STUB_VGREC_LOG, rec->dir, rec->dir);
	else
		unlink(busy);      /* done (a divergence too: its gap says where) */
	if (e >= 0)
		e = lt_marks(rec);
	rec->light.rebuild_secs = rec_now_secs() - t0;
	return e;
}

static void lt_stop(struct stub_recorder *rec)
{
	rec->light_stop = 1;
	if (rec->impl)
		stub_vgrec_stop(rec->impl);
}

static void lt_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s)
{
	if (rec->impl)
		vg_summary(rec, s);
	s->name = "Valgrind, light";
	s->no_state = rec->light.history_only;
}

int stub_recorder_deferred(const struct stub_recorder *rec, int *wstatus)
{
	if (rec->kind != STUB_RECORDER_LIGHT || !rec->light.deferred)
		return 0;
	*wstatus = rec->light.wstatus;
	return 1;
}

static const struct replay_bundle *lt_bundle(const struct stub_recorder *rec)
{
	return rec->impl ? stub_vgrec_bundle(rec->impl) : NULL;
}

/* The inputs' cost beside the rebuilt bundle's, and a rebuild that
 * diverged. */
static void lt_epilogue(struct stub_recorder *rec)
{
	const struct replay_bundle *b;
	struct stub_recorder_summary s = { 0 };

	if (rec->light.deferred) {
		struct stub_vglight_scan scan;
		char log[4096];

		rec_say(rec, "recording in %s: the run's inputs, %" PRIu64 " bytes, in %.2f s; its "
			"history is rebuilt from them when first needed (`hindsight rebuild %s` "
			"does it now)", rec->dir, rec->light.bytes, rec->light.secs, rec->dir);
		if (snprintf(log, sizeof(log), "%s/%s", rec->dir, STUB_VGLIGHT_LOG) <
		    (int)sizeof(log) && stub_vglight_scan(log, &scan) == 0 && scan.stop)
			rec_say(rec, "warning: the program %s (the syscall at %#" PRIx64 "): "
				"the rebuild of its history will stop there (`record "
				"--record=valgrind` records such a run whole as it runs)", scan.what,
				scan.pc);
		return;
	}
	b = stub_vgrec_bundle(rec->impl);
	vg_summary(rec, &s);
	if (!rec->opt.rebuild)
		rec_say(rec, "light recording: %" PRIu64 " bytes of inputs (%.3f B/insn), recorded "
			"in %.2f s; rebuilt in %.2f s", rec->light.bytes,
			s.s.instructions ? (double)rec->light.bytes / (double)s.s.instructions : 0.0,
			rec->light.secs, rec->light.rebuild_secs);
	if (rec->light.window_from)
		rec_say(rec, "the history is a window: the run's last %" PRIu64 " superblocks "
			"(of %" PRIu64 "%s), the memory as it was where it starts; `hindsight "
			"rebuild %s` rebuilds the whole", rec->light.scan.end_blocks -
			rec->light.window_from, rec->light.scan.end_blocks,
			rec->opt.rebuild_trail ? ", rebuilt beside the run as it went" : "",
			rec->dir);
	for (size_t i = 0; b && i < b->ngaps; i++)
		if (!strcmp(b->gaps[i].kind, "diverged"))
			rec_say(rec, "%s: the history ends there (`record --record=valgrind` "
				"records such a run whole as it runs)", b->gaps[i].text);
	vg_epilogue(rec);
}

static const struct stub_recorder_ops lt_ops = {
	lt_start, lt_run, lt_stop, lt_summary, lt_bundle, lt_epilogue, vg_free, NULL,
};

/* --- the choice --------------------------------------------------------- */

/* Why auto must not pick Valgrind, or NULL. */
static const char *rec_no_vg(const struct stub_recorder_options *o)
{
	if (o->attach_pid)
		return "Valgrind cannot attach";
	if (o->ip_log || o->step_cpuid)
		return "--ip-log and --step-cpuid are for single steps";
	return NULL;
}

/* Options only the full Valgrind recorder honours (the light one's
 * rebuild writes the trace with the defaults): NULL, or which. */
static const char *rec_full_only(const struct stub_recorder_options *o)
{
	if (o->snapshot)
		return "--snapshot";
	if (o->psb_given)
		return "--psb-period";
	if (o->noretcomp)
		return "--noretcomp";
	return NULL;
}

/* auto without Intel PT (@why says why not): Valgrind where it is
 * installed and allowed (its light recorder, unless an option wants the
 * full one), else single steps; says which and why. */
static enum stub_recorder_kind rec_pick_auto(const struct stub_recorder *rec, const char *why)
{
	const char *no_vg = rec_no_vg(&rec->opt), *full = rec_full_only(&rec->opt);
	char dir[4096], vwhy[256];

	if (no_vg) {
		rec_say(rec, "%s; recording in software (single steps: %s)", why, no_vg);
		return STUB_RECORDER_SW;
	}
	if (!stub_vgrec_available(dir, sizeof(dir), vwhy, sizeof(vwhy))) {
		rec_say(rec, "%s, and %s; recording in software (single steps)", why, vwhy);
		return STUB_RECORDER_SW;
	}
	if (full) {
		rec_say(rec, "%s; recording with Valgrind, every effect (%s wants the full "
			"recorder; --record=sw single-steps natively)", why, full);
		return STUB_RECORDER_VG;
	}
	rec_say(rec, "%s; recording the program's inputs with Valgrind (its history is "
		"rebuilt from them; --record=valgrind records every effect as it runs, "
		"--record=sw single-steps natively)", why);
	return STUB_RECORDER_LIGHT;
}

/* The recorder for the mode: its kind, or -ENODEV after saying why the
 * one asked for cannot run. The reason Intel PT cannot be used comes from
 * stub_hwpt_available (no PMU: an AMD CPU, or a VM that does not expose
 * it). */
static int rec_pick(const struct stub_recorder *rec)
{
	const char *mode = rec->opt.mode;
	char why[256];

	if (!strcmp(mode, "sw"))
		return STUB_RECORDER_SW;
	if (!strcmp(mode, "valgrind") || !strcmp(mode, "light")) {
		char dir[4096];

		if (stub_vgrec_available(dir, sizeof(dir), why, sizeof(why)))
			return strcmp(mode, "light") ? STUB_RECORDER_VG : STUB_RECORDER_LIGHT;
		rec_say(rec, "cannot record with Valgrind: %s; --record=sw single-steps instead",
			why);
		return -ENODEV;
	}
	if (stub_hwpt_available(rec->opt.sysfs_root, why, sizeof(why)) > 0)
		return STUB_RECORDER_HW;
	if (!strcmp(mode, "pt")) {
		rec_say(rec, "%s", why);
		return -ENODEV;
	}
	return (int)rec_pick_auto(rec, why);
}

/* The recorder for serving a live program: single steps, the one that
 * can (stub_recorder_live_ops). -EOPNOTSUPP after saying why for the
 * others, -EINVAL for a recorder that does not exist. */
static int rec_pick_live(const struct stub_recorder *rec)
{
	const char *mode = rec->opt.mode;

	if (!strcmp(mode, "auto") || !strcmp(mode, "sw"))
		return STUB_RECORDER_SW;
	if (!strcmp(mode, "valgrind")) {
		rec_say(rec, "a program under Valgrind cannot be debugged live (its threads run "
			"inside Valgrind's process, out of ptrace's reach): record it with "
			"`hindsight record --record=valgrind` and serve the bundle with "
			"`serve --replay`, or serve with --record=sw");
		return -EOPNOTSUPP;
	}
	if (!strcmp(mode, "pt")) {
		rec_say(rec, "hardware Intel PT records control flow only, and a program debugged "
			"live needs every register and memory write of its past: serve with "
			"--record=sw, or record with `hindsight record --record=pt` and serve "
			"the bundle with `serve --replay`");
		return -EOPNOTSUPP;
	}
	rec_say(rec, "unknown recorder '%s' (auto, sw, pt or valgrind)", mode);
	return -EINVAL;
}

/* --psb-period in bytes as the hardware's psb_period term (2^(n+11)
 * bytes); -1 without the option. 0, or -EINVAL after saying why. */
static int rec_hw_psb(struct stub_recorder *rec)
{
	int n = 0;

	rec->hw_psb = -1;
	if (!rec->opt.psb_given)
		return 0;
	while (n < 20 && (2048L << n) < (long)rec->opt.psb_period)
		n++;
	if ((2048L << n) != (long)rec->opt.psb_period) {
		rec_say(rec, "hardware Intel PT's --psb-period is a power of two from 2048 bytes, "
			"not %ld", (long)rec->opt.psb_period);
		return -EINVAL;
	}
	rec->hw_psb = n;
	return 0;
}

static const struct stub_recorder_ops *const rec_ops[] = {
	[STUB_RECORDER_SW] = &sw_ops,
	[STUB_RECORDER_HW] = &hw_ops,
	[STUB_RECORDER_VG] = &vg_ops,
	[STUB_RECORDER_LIGHT] = &lt_ops,
};

int stub_recorder_new(struct stub_recorder **out, const struct stub_recorder_options *o)
{
	struct stub_recorder *rec = calloc(1, sizeof(*rec));
	int kind, e = 0;

	*out = NULL;
	if (!rec)
		return -ENOMEM;
	rec->opt = *o;
	stub_rec_disk_init(&rec->disk);
	rec->start_secs = rec_now_secs();
	if (!rec->opt.mode)
		rec->opt.mode = "auto";
	if (!rec->opt.psb_period)
		rec->opt.psb_period = STUB_RECORDER_PSB_PERIOD;
	kind = o->live ? rec_pick_live(rec) : rec_pick(rec);
	if (kind < 0)
		e = kind;
	if (e == 0 && (kind == STUB_RECORDER_VG || kind == STUB_RECORDER_LIGHT) && o->attach_pid) {
		rec_say(rec, "Valgrind cannot attach to a running process; --record=sw can");
		e = -EINVAL;
	}
	if (e == 0 && kind == STUB_RECORDER_HW)
		e = rec_hw_psb(rec);
	if (e < 0) {
		free(rec);
		return e;
	}
	rec->kind = (enum stub_recorder_kind)kind;
	rec->ops = rec_ops[kind];
	*out = rec;
	return 0;
}

int stub_recorder_start(struct stub_recorder *rec)
{
	int e = rec->ops->start(rec);

	if (e == 1) {
		rec->kind = STUB_RECORDER_SW;
		rec->ops = &sw_ops;
		e = rec->ops->start(rec);
	}
	/* A disk nearly full already is said before anything is written. */
	if (e == 0 && rec->impl && rec->kind != STUB_RECORDER_HW)
		rec_progress(rec);
	return e;
}

int stub_recorder_run(struct stub_recorder *rec)
{
	return rec->ops->run(rec);
}

void stub_recorder_stop(struct stub_recorder *rec)
{
	if (rec && (rec->impl || rec->kind == STUB_RECORDER_LIGHT))
		rec->ops->stop(rec);
}

void stub_recorder_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s)
{
	memset(s, 0, sizeof(*s));
	rec->ops->summary(rec, s);
}

const struct replay_bundle *stub_recorder_bundle(const struct stub_recorder *rec)
{
	return rec->ops->bundle(rec);
}

void stub_recorder_epilogue(struct stub_recorder *rec)
{
	if ((rec->impl || rec->light.deferred) && rec->ops->epilogue)
		rec->ops->epilogue(rec);
}

enum stub_recorder_kind stub_recorder_kind(const struct stub_recorder *rec)
{
	return rec->kind;
}

const char *stub_recorder_dir(const struct stub_recorder *rec)
{
	return rec->dir;
}

const struct stub_recorder_live_ops *stub_recorder_live(const struct stub_recorder *rec)
{
	return rec->opt.live && rec->impl ? rec->ops->live : NULL;
}

bool stub_recorder_attached(const struct stub_recorder *rec)
{
	return rec_attached(rec);
}

bool stub_recorder_rebuilding(const struct stub_recorder *rec)
{
	return rec->opt.rebuild;
}

void stub_recorder_free(struct stub_recorder *rec)
{
	if (!rec)
		return;
	if (rec->impl)
		rec->ops->free(rec);
	free(rec);
}

/* --- the files of a recording -------------------------------------------- */

static int rec_unlink(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* What a recorder or a rebuild made in @dir (its manifest, threads,
 * images, Valgrind's log, a light recording's marks), not the light
 * recording's inputs. */
static void rec_delete_made(const char *dir)
{
	static const char *const subdirs[] = { "threads", "images" };
	static const char *const files[] = { "trace.json", STUB_VGREC_LOG, STUB_VGLIGHT_WINDOW,
					     STUB_VGLIGHT_HISTORY, STUB_VGLIGHT_BUSY };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		if (access(path, F_OK) == 0)
			nftw(path, rec_unlink, 16, FTW_DEPTH | FTW_PHYS);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
}

void stub_recorder_delete(const char *dir)
{
	static const char *const light[] = { STUB_VGLIGHT_LOG, STUB_VGLIGHT_ENV,
					     STUB_VGLIGHT_VGLOG };
	char path[PATH_MAX + 32];

	rec_delete_made(dir);
	for (size_t i = 0; i < sizeof(light) / sizeof(light[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, light[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_KEEP, dir);
	replay_bundle_remove_tree(path);
	rmdir(dir);
}
