/*
 * cli/cli_serve.c: `hindsight serve`, a gdbserver-compatible stub.
 *
 *   hindsight serve [--once] [--debug] [HOST]:PORT PROG [ARGS...]
 *   hindsight serve [--once] [--debug] --attach PID [HOST]:PORT
 *   hindsight serve [--once] [--debug] --replay DIR [HOST]:PORT
 *
 * The command line and the messages are gdbserver's, so scripts and test
 * harnesses written for gdbserver work unchanged (gdbserver's own order
 * `--attach COMM PID` is accepted too). The listening socket is bound before
 * the program starts, so a busy port costs no process.
 */
#include "cli/cli_record.h"
#include "cli/cli_serve.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_crash.h"
#include "cli/cli_history.h"
#include "cli/cli_net.h"
#include "protocol/rsp_server.h"
#include "dwarf/dw_access.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend_report.h"
#include "replay/target/replay_target.h"
#include "stub/rectarget/stub_rec_target.h"
#include "stub/rectarget/stub_serve_target.h"
#include "stub/rectarget/stub_vg_target.h"
#include "stub/live/stub_target.h"

#define HINDSIGHT_VERSION "0.1"

struct serve_args {
	bool once;
	bool debug;
	long attach_pid;      /* 0: spawn */
	const char *replay;   /* a recording to serve instead of a process */
	bool no_record;       /* serve the process without recording it */
	const char *record;   /* --record: the recorder (auto, sw, on-request; pt,
			       * valgrind refused) */
	bool vfile_any;       /* vFile serves any file the stub can read */
	const char *rec_dir;  /* keep the recording here */
	const char *addr;
	char **argv;          /* program and arguments */
	const char *image_dirs[REPLAY_REPORT_IMAGE_DIRS_MAX];  /* --image-dir, with --replay */
	size_t nimage_dirs;
};

void cli_serve_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight serve [OPTIONS] [HOST]:PORT PROG [ARGS...]\n"
		"       hindsight serve [OPTIONS] --attach PID [HOST]:PORT\n"
		"       hindsight serve [OPTIONS] --replay DIR [HOST]:PORT\n"
		"\n"
		"Serve PROG (started stopped at its first instruction) or the running\n"
		"process PID to GDB (`target remote HOST:PORT`) or LLDB\n"
		"(`gdb-remote HOST:PORT`), like gdbserver. HOST defaults to 127.0.0.1;\n"
		"PORT 0 picks a free port, printed as `Listening on port N`.\n"
		"The program is recorded (in software, from its first instruction or the\n"
		"attach) while it is debugged, so GDB's reverse-step, reverse-next,\n"
		"reverse-finish and reverse-continue work on it. It records by single\n"
		"steps, tens of thousands of instructions a second (`hindsight doctor`\n"
		"says how many here): a breakpoint far into a big program takes\n"
		"minutes, and a resume that has run 15 s says so on the debugger's\n"
		"console. --record on-request runs it at full speed until the\n"
		"debugger asks for recording (GDB's `record btrace`, `monitor record\n"
		"start`), then records from there; --record valgrind runs it at\n"
		"Valgrind's speed and goes back over all of it; --no-record runs it\n"
		"at full speed, without going back.\n"
		"\n"
		"Options:\n"
		"  --once          exit when the first connection closes\n"
		"  --attach PID    attach to a running process instead of starting one\n"
		"  --replay DIR    serve a recording (made by `hindsight record`, or an LLDB\n"
		"                  trace bundle): its end is the present; GDB's\n"
		"                  `record btrace pt` reads its trace\n"
		"  -o, --record-dir DIR\n"
		"                  keep the recording of the served program in DIR\n"
		"                  (default: a temporary directory, removed at the end)\n"
		"  --record MODE   the recorder: auto (the default) or sw, single steps,\n"
		"                  from the first instruction (or the attach);\n"
		"                  on-request runs the program natively, as gdbserver\n"
		"                  does, until the debugger asks for recording (GDB's\n"
		"                  `record btrace`, or `monitor record start`), then\n"
		"                  records by single steps from there, until it asks to\n"
		"                  stop (`record stop`, `monitor record stop`); valgrind\n"
		"                  runs it live under Valgrind's light recorder, at\n"
		"                  Valgrind's speed, and goes back by rebuilding the run\n"
		"                  so far (then only what ran since; not with --attach);\n"
		"                  pt is refused (record\n"
		"                  with it, then serve --replay)\n"
		"  --no-record     serve the program like gdbserver, without recording it\n"
		"                  (full speed; no reverse execution)\n"
		"  --image-dir DIR with --replay: also look for the recording's images\n"
		"                  here (by build-id, then by name; repeatable)\n"
		"  --vfile-any     let the debugger read any file the stub can read\n"
		"                  (gdbserver's way); by default it reads only the\n"
		"                  program, its libraries, their debug files and the\n"
		"                  process's /proc files\n"
		"  --debug         log every packet to stderr\n"
		"  -h, --help      show this help\n"
		"\n"
		"Without --once the stub keeps the process and listens again when the\n"
		"debugger disconnects, until the process is gone or `monitor exit` was\n"
		"given. See hindsight-serve(1).\n");
}

static int parse_pid(const char *s, long *pid)
{
	char *end;

	errno = 0;
	*pid = strtol(s, &end, 10);
	return (errno || *end || *pid <= 0) ? -EINVAL : 0;
}

/* --attach PID [HOST]:PORT (ours) or --attach [HOST]:PORT PID (gdbserver's). */
static int parse_attach(int argc, char **argv, struct serve_args *a)
{
	if (argc == 2 && parse_pid(argv[0], &a->attach_pid) == 0) {
		a->addr = argv[1];
		return 0;
	}
	if (argc == 2 && parse_pid(argv[1], &a->attach_pid) == 0) {
		a->addr = argv[0];
		return 0;
	}
	fprintf(stderr, "hindsight serve: --attach needs a PID and [HOST]:PORT\n");
	return -EINVAL;
}

/* 0, or 1 after printing help, or -EINVAL after printing the error. */
static int parse_args(int argc, char **argv, struct serve_args *a)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 1 },
		{ "attach", no_argument, NULL, 'a' },
		{ "replay", required_argument, NULL, 'r' },
		{ "record-dir", required_argument, NULL, 'O' },
		{ "no-record", no_argument, NULL, 'n' },
		{ "record", required_argument, NULL, 'R' },
		{ "image-dir", required_argument, NULL, 'i' },
		{ "vfile-any", no_argument, NULL, 'v' },
		{ "debug", no_argument, NULL, 'd' },
		{ "remote-debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool attach = false;
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
		switch (c) {
		case 1: a->once = true; break;
		case 'a': attach = true; break;
		case 'r': a->replay = optarg; break;
		case 'O': a->rec_dir = optarg; break;
		case 'n': a->no_record = true; break;
		case 'R': a->record = optarg; break;
		case 'i':
			if (a->nimage_dirs == REPLAY_REPORT_IMAGE_DIRS_MAX) {
				fprintf(stderr, "hindsight serve: at most %d --image-dir\n",
					REPLAY_REPORT_IMAGE_DIRS_MAX);
				return -EINVAL;
			}
			a->image_dirs[a->nimage_dirs++] = optarg;
			break;
		case 'v': a->vfile_any = true; break;
		case 'd': a->debug = true; break;
		case 'o': a->rec_dir = optarg; break;
		case 'h': cli_serve_usage(stdout); return 1;
		default: cli_serve_usage(stderr); return -EINVAL;
		}
	}
	if (a->record && strcmp(a->record, "auto") && strcmp(a->record, "sw") &&
	    strcmp(a->record, "on-request") && strcmp(a->record, "pt") &&
	    strcmp(a->record, "valgrind")) {
		fprintf(stderr, "hindsight serve: --record wants auto, sw, on-request, pt or "
			"valgrind, not '%s'\n", a->record);
		return -EINVAL;
	}
	argv += optind;
	argc -= optind;
	if (attach)
		return parse_attach(argc, argv, a);
	if (a->replay) {
		if (argc != 1) {
			fprintf(stderr, "hindsight serve: --replay takes DIR and [HOST]:PORT only\n");
			return -EINVAL;
		}
		a->addr = argv[0];
		return 0;
	}
	if (argc < 1) {
		cli_serve_usage(stderr);
		return -EINVAL;
	}
	a->addr = argv[0];
	if (argc < 2) {
		fprintf(stderr, "hindsight serve: no program to debug (give PROG or --attach PID)\n");
		return -EINVAL;
	}
	a->argv = argv + 1;
	return 0;
}

/* --debug: one line per packet or ack, non-printable bytes as \xNN. */
static void log_packet(void *arg, char dir, const uint8_t *data, size_t len)
{
	(void)arg;
	fprintf(stderr, "[rsp] %s ", dir == '<' ? "<-" : "->");
	for (size_t i = 0; i < len && i < 2048; i++) {
		if (data[i] >= 0x20 && data[i] < 0x7f)
			fputc(data[i], stderr);
		else
			fprintf(stderr, "\\x%02x", data[i]);
	}
	fprintf(stderr, len > 2048 ? "...\n" : "\n");
}

/* The target being served: a live process or a recording. */
struct served {
	struct stub_target *live;
	struct stub_rec_target *rec;
	struct stub_serve_target *asked;   /* --record on-request */
	struct stub_vg_target *vg;         /* --record valgrind */
	struct replay_target *replay;
};

/* The program recorded while it is served (the default). */
static int start_recorded(const struct serve_args *a, struct served *t, struct rsp_target *out)
{
	struct stub_rec_target_options o = { .dir = a->rec_dir, .record = a->record };
	char err[512];
	int r;

	r = stub_rec_target_new(a->attach_pid ? NULL : a->argv, (pid_t)a->attach_pid, &o, &t->rec,
				err, sizeof(err));
	if (r) {
		if (r == -EOPNOTSUPP)           /* the recorder cannot serve live: why */
			fprintf(stderr, "hindsight serve: %s\n", err);
		else if (a->attach_pid)
			fprintf(stderr, "Cannot attach to process %ld: %s\n", a->attach_pid, err);
		else
			fprintf(stderr, "Cannot exec %s: %s.\n", a->argv[0], err);
		return r;
	}
	if (a->attach_pid)
		fprintf(stderr, "Attached; pid = %ld\n", a->attach_pid);
	else
		fprintf(stderr, "Process %s created; pid = %d\n", a->argv[0],
			(int)stub_rec_target_pid(t->rec));
	fprintf(stderr, "Recording in %s\n", stub_rec_target_dir(t->rec));
	/* What a long start-up costs, and the ways round it (docs/serve.md,
	 * "What each way costs"). */
	fprintf(stderr, "hindsight serve: recording by single steps, tens of thousands of "
		"instructions a second (`hindsight doctor` measures it): a breakpoint far into "
		"a big program takes minutes; --record on-request serves at full speed and records "
		"from where the debugger asks (`record btrace`, `monitor record start`), "
		"--record valgrind serves at Valgrind's speed and goes back over the whole run, "
		"--no-record serves at full speed without reverse execution\n");
	if (!a->rec_dir)
		cli_crash_remove(stub_rec_target_dir(t->rec));
	*out = stub_rec_target_rsp(t->rec);
	return 0;
}

/* --record valgrind: the program under Valgrind's light recorder, served
 * through Valgrind's gdbserver. */
static int start_valgrind(const struct serve_args *a, struct served *t, struct rsp_target *out)
{
	char err[512];
	int r;

	if (a->attach_pid) {
		fprintf(stderr, "hindsight serve: --record valgrind starts the program under "
			"Valgrind and cannot attach to a running one (--record sw or on-request "
			"can)\n");
		return -EINVAL;
	}
	struct stub_vg_target_options o = { .dir = a->rec_dir, .debug = a->debug,
					    .rebuild_follow = cli_rebuild_follow };

	r = stub_vg_target_new(a->argv, &o, &t->vg, err, sizeof(err));
	if (r) {
		fprintf(stderr, "Cannot exec %s: %s.\n", a->argv[0], err);
		return r;
	}
	fprintf(stderr, "Process %s created; pid = %d\n", a->argv[0], (int)stub_vg_target_pid(t->vg));
	fprintf(stderr, "Recording in %s\n", stub_vg_target_dir(t->vg));
	fprintf(stderr, "hindsight serve: running under Valgrind, its inputs recorded at about "
		"Valgrind's speed; going back rebuilds the run so far (at the full recorder's "
		"speed), and after that only what ran since\n");
	/* LLDB 14 on this machine reads the pid's /proc/PID/exe, which is
	 * Valgrind's tool, and replaces the program with it, unless its
	 * target has a platform that is not the host. */
	fprintf(stderr, "hindsight serve: from LLDB, select its platform before the program: "
		"`platform select remote-linux`, `target create %s`, then `gdb-remote` (else it "
		"takes Valgrind's tool, /proc/%d/exe, for the program)\n", a->argv[0],
		(int)stub_vg_target_pid(t->vg));
	if (!a->rec_dir)
		cli_crash_remove(stub_vg_target_dir(t->vg));
	*out = stub_vg_target_rsp(t->vg);
	return 0;
}

/* Threads whose history ends without a known pc (a gap, a trace cut
 * short) start at their last known one (replay_target_open). */
static void note_gap_ends(struct replay_target *rt)
{
	const struct replay_bundle *b = replay_target_bundle(rt);

	for (size_t i = 0; i < b->nthreads; i++) {
		struct replay_cursor *c = replay_target_cursor(rt, b->threads[i].tid);
		uint64_t pos;

		if (c && replay_report_starts_early(c, &pos))
			fprintf(stderr, "Thread %lld: the pc at the end of its history is not known "
				"(a gap, or a trace cut short): it starts at position %llu, the last "
				"with a known pc\n", (long long)b->threads[i].tid,
				(unsigned long long)pos);
	}
}

/* Every file opened for another user's recording (its manifest, traces,
 * state logs, images, debug files, sources) is opened on its owner's
 * behalf: what the owner could not read, the debugger gets nothing of
 * (dwarf/dw_access.h). Another user's recording names the files: served as
 * root, one naming /etc/shadow as an image would show it to the client. */
static int read_as_owner(const char *path)
{
	int64_t owner = replay_bundle_owner_of(path);

	if (owner < 0) {
		fprintf(stderr, "Cannot replay %s: %s\n", path, strerror(errno));
		return -EACCES;
	}
	if (owner != (int64_t)geteuid())
		dw_access_set_reader(owner);
	return 0;
}

/* A temporary recording started on request: removed if the stub dies. */
static void on_request_dir(const char *dir)
{
	cli_crash_remove(dir);
}

/* --record on-request: t->live served natively until the debugger asks
 * for recording. */
static int start_on_request(const struct serve_args *a, struct served *t, struct rsp_target *out)
{
	struct stub_rec_target_options o = { .dir = a->rec_dir, .record = "sw" };
	int r = stub_serve_target_new(t->live, &o, a->rec_dir ? NULL : on_request_dir, &t->asked);

	t->live = NULL;        /* the serving target's, freed with it */
	if (r) {
		fprintf(stderr, "hindsight serve: %s\n", strerror(-r));
		return r;
	}
	fprintf(stderr, "hindsight serve: running natively; recording starts when the debugger "
		"asks for it (GDB: `record btrace`, or `monitor record start`), then by single "
		"steps from there until `record stop`\n");
	*out = stub_serve_target_rsp(t->asked);
	return 0;
}

static int start_target(const struct serve_args *a, struct served *t, struct rsp_target *out)
{
	char err[512];
	int r;

	if (a->replay) {
		r = read_as_owner(a->replay);
		if (r)
			return r;
		replay_report_image_dirs(a->image_dirs, a->nimage_dirs);
		if (cli_rebuild_pending(a->replay) < 0)
			return 1;
		r = replay_target_open(a->replay, &t->replay, err, sizeof(err));
		if (r) {
			fprintf(stderr, "Cannot replay %s: %s\n", a->replay, err);
			return r;
		}
		fprintf(stderr, "Replaying %s; pid = %lld\n", a->replay,
			(long long)replay_target_pid(t->replay));
		cli_say_notes(replay_target_bundle(t->replay));
		note_gap_ends(t->replay);
		*out = replay_target_rsp(t->replay);
		return 0;
	}
	if (!a->no_record && a->record && !strcmp(a->record, "valgrind"))
		return start_valgrind(a, t, out);
	if (!a->no_record && !(a->record && !strcmp(a->record, "on-request")))
		return start_recorded(a, t, out);
	if (a->attach_pid) {
		r = stub_target_attach((pid_t)a->attach_pid, &t->live);
		if (r) {
			fprintf(stderr, "Cannot attach to process %ld: %s\n", a->attach_pid, strerror(-r));
			return r;
		}
		fprintf(stderr, "Attached; pid = %ld\n", a->attach_pid);
	} else {
		r = stub_target_spawn(a->argv, &t->live);
		if (r) {
			fprintf(stderr, "Cannot exec %s: %s.\n", a->argv[0], strerror(-r));
			return r;
		}
		fprintf(stderr, "Process %s created; pid = %d\n", a->argv[0],
			(int)stub_target_pid(t->live));
	}
	if (!a->no_record)
		return start_on_request(a, t, out);
	*out = stub_target_rsp(t->live);
	return 0;
}

/* SIGTERM, SIGINT or SIGHUP: the stub ends as if the debugger had gone
 * (a started program killed, an attached one let go, a temporary
 * recording removed), then dies of that signal. */
static volatile sig_atomic_t serve_quit;

static void serve_on_quit(int sig)
{
	serve_quit = sig;
}

static void serve_catch_quit(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa = { .sa_handler = serve_on_quit };  /* no SA_RESTART */

		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* What ending on a signal does to the program and the recording. */
static void say_quit(const struct serve_args *a, const struct served *t, bool has_process)
{
	const char *dir = t->rec ? stub_rec_target_dir(t->rec) :
			  t->asked ? stub_serve_target_dir(t->asked) :
			  t->vg ? stub_vg_target_dir(t->vg) : NULL;

	fprintf(stderr, "hindsight serve: %s", strsignal(serve_quit));
	if (has_process && !a->replay)
		fprintf(stderr, a->attach_pid ? "; detaching from process %ld" :
				 "; killing process %ld", a->attach_pid ? a->attach_pid :
				 (long)(t->rec ? stub_rec_target_pid(t->rec) :
					t->vg ? stub_vg_target_pid(t->vg) :
					t->live ? stub_target_pid(t->live) :
					stub_serve_target_pid(t->asked)));
	if (dir && !a->rec_dir)
		fprintf(stderr, "; removing the temporary recording %s", dir);
	else if (dir)
		fprintf(stderr, "; the recording is kept in %s", dir);
	fprintf(stderr, "\n");
}

static void stop_target(struct served *t)
{
	stub_target_free(t->live);
	stub_rec_target_free(t->rec);
	stub_serve_target_free(t->asked);
	stub_vg_target_free(t->vg);
	replay_target_free(t->replay);
}

static void report_end(const struct rsp_server *srv)
{
	const struct rsp_stop *st = &srv->last_stop;

	if (srv->detached)
		fprintf(stderr, "Detached from process %lld\n", (long long)st->thread.pid);
	else if (st->kind == RSP_STOP_EXITED)
		fprintf(stderr, "Child exited with status %d\n", st->status);
	else if (st->kind == RSP_STOP_TERMINATED)
		fprintf(stderr, "Child terminated with signal = %d (%s)\n", st->signo,
			strsignal(st->signo));
}

/* Accepts and serves connections until the stub should end. */
static int serve_connections(struct rsp_server *srv, int lfd, int port, bool once)
{
	for (;;) {
		char peer[64];
		int peer_port, fd, r;

		fd = cli_net_accept(lfd, &serve_quit, peer, sizeof(peer), &peer_port);
		if (fd < 0 && serve_quit)
			return 0;
		if (fd < 0) {
			fprintf(stderr, "hindsight serve: accept: %s\n", strerror(-fd));
			return 1;
		}
		fprintf(stderr, "Remote debugging from host %s, port %d\n", peer, peer_port);
		r = rsp_server_serve(srv, fd);
		close(fd);
		if (r == RSP_SERVE_QUIT)
			return 0;
		if (r < 0) {
			fprintf(stderr, "hindsight serve: connection failed: %s\n", strerror(-r));
		}
		if (r == RSP_SERVE_GONE || !srv->has_process) {
			report_end(srv);
			return 0;
		}
		if (once || srv->exit_requested)
			return 0;
		fprintf(stderr, "Remote side has terminated connection.  "
				"hindsight will reopen the connection.\n");
		fprintf(stderr, "Listening on port %d\n", port);
	}
}

int cli_serve_main(int argc, char **argv)
{
	struct rsp_server_options opt = { .name = "hindsight", .version = HINDSIGHT_VERSION };
	char host[256], port_s[16];
	struct serve_args a;
	struct served t = { 0 };
	struct rsp_target target;
	struct rsp_server srv;
	const char *what;
	int lfd, port, err, status;

	err = parse_args(argc, argv, &a);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_net_parse_addr(a.addr, host, sizeof(host), port_s, sizeof(port_s))) {
		fprintf(stderr, "hindsight serve: bad address '%s' (want [HOST]:PORT)\n", a.addr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	serve_catch_quit();
	lfd = cli_net_listen(host, port_s, &port, &what);
	if (lfd < 0) {
		if (lfd == -EADDRINUSE)
			fprintf(stderr, "Can't bind address: Address already in use.\nExiting\n");
		else
			fprintf(stderr, "Can't %s address %s: %s.\nExiting\n", what, a.addr, strerror(-lfd));
		return 1;
	}
	if (start_target(&a, &t, &target)) {
		close(lfd);
		fprintf(stderr, "Exiting\n");
		return 1;
	}
	if (a.debug) {
		opt.log = log_packet;
	}
	opt.quit = &serve_quit;
	opt.vfile_any = a.vfile_any;
	err = rsp_server_init(&srv, target, &opt);
	if (err) {
		fprintf(stderr, "hindsight serve: %s\n", strerror(-err));
		stop_target(&t);
		close(lfd);
		return 1;
	}
	fprintf(stderr, "Listening on port %d\n", port);
	status = serve_connections(&srv, lfd, port, a.once);
	rsp_server_release(&srv);
	if (serve_quit)
		say_quit(&a, &t, srv.has_process);
	stop_target(&t);
	cli_crash_remove(NULL);
	close(lfd);
	if (serve_quit) {
		signal(serve_quit, SIG_DFL);
		raise(serve_quit);
	}
	return status;
}
