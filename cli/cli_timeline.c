/*
 * cli/cli_timeline.c: `hindsight timeline`, the calls of every thread as a
 * picture.
 *
 * The spans come from replay/decode/spans.h. They are written as Chrome
 * trace-event JSON (the format Perfetto and chrome://tracing open: one
 * complete event, "X", per call, instant events for signals, gaps and the
 * crash, and hindsight's own facts under otherData.hindsight), or as one
 * self-contained HTML page: web/timeline.html with its script, its style,
 * d3 and that same JSON put in (all of them built into the binary by
 * cli/cli_timeline_assets.S), so the page needs nothing but a browser.
 * docs/timeline.md is the reference.
 */
#include "cli/cli_record.h"
#include "cli/cli_timeline.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli_history.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend_report.h"

#define TIMELINE_IMAGE_DIRS 16
#define TIMELINE_RESOLUTION 20000

/* The page's parts (cli/cli_timeline_assets.S). */
extern const char hs_asset_page[], hs_asset_page_end[];
extern const char hs_asset_css[], hs_asset_css_end[];
extern const char hs_asset_js[], hs_asset_js_end[];
extern const char hs_asset_d3[], hs_asset_d3_end[];

enum format { FORMAT_GUESS, FORMAT_JSON, FORMAT_HTML };

struct tl_args {
	const char *dir, *out, *range;
	enum format format;
	uint64_t resolution;
	const char *image_dirs[TIMELINE_IMAGE_DIRS];
	size_t nimage_dirs;
};

void cli_timeline_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight timeline REC [RANGE] [-o FILE] [OPTIONS]\n"
		"\n"
		"Draw the calls of every thread of a recording as nested spans on the\n"
		"recording's clock (instructions of all threads for a software recording,\n"
		"TSC ticks for a hardware one), with signals, gaps and the crash marked\n"
		"and the positions `goto` takes on every span. RANGE is a part of the\n"
		"clock: A,B  A,+K  A,  ,B (default: all of it).\n"
		"\n"
		"Options:\n"
		"  -o FILE       write FILE: .html a page that draws it (zoom, pan, search,\n"
		"                click for details; no network needed), .json Chrome\n"
		"                trace-event JSON for Perfetto (ui.perfetto.dev) or\n"
		"                chrome://tracing. Default: the JSON on stdout\n"
		"  --format html|json  whatever FILE's name says\n"
		"  --resolution N  calls shorter than 1/N of the range are merged into\n"
		"                blocks (default %d; 0: keep every call)\n"
		"  --image-dir DIR  also look for the recording's images here (repeatable)\n"
		"  -h, --help    show this help\n"
		"See docs/timeline.md.\n",
		TIMELINE_RESOLUTION);
}

/* A,B  A,+K  A,  ,B  A (= A,) */
static int parse_range(const char *r, struct replay_spans_opts *o)
{
	char a[64], *comma;
	uint64_t k;

	o->have_range = true;
	o->lo = 0;
	o->hi = UINT64_MAX;
	if (strlen(r) >= sizeof(a))
		return -EINVAL;
	strcpy(a, r);
	comma = strchr(a, ',');
	if (comma)
		*comma++ = '\0';
	if (a[0] && replay_history_parse_u64(a, &o->lo) < 0)
		return -EINVAL;
	if (!comma || !*comma)
		return a[0] || comma ? 0 : -EINVAL;
	if (*comma == '+') {
		if (!a[0] || replay_history_parse_u64(comma + 1, &k) < 0 || k == 0 || o->lo > UINT64_MAX - k)
			return -EINVAL;
		o->hi = o->lo + k - 1;
		return 0;
	}
	if (replay_history_parse_u64(comma, &o->hi) < 0 || o->hi < o->lo)
		return -EINVAL;
	return 0;
}

static int parse_args(int argc, char **argv, struct tl_args *a)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "resolution", required_argument, NULL, 'r' },
		{ "image-dir", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	a->resolution = TIMELINE_RESOLUTION;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'f':
			if (!strcmp(optarg, "html"))
				a->format = FORMAT_HTML;
			else if (!strcmp(optarg, "json"))
				a->format = FORMAT_JSON;
			else {
				fprintf(stderr, "hindsight: --format is html or json, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if (replay_history_parse_u64(optarg, &a->resolution) < 0 || a->resolution > 100000000) {
				fprintf(stderr, "hindsight: bad --resolution '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			if (a->nimage_dirs == TIMELINE_IMAGE_DIRS) {
				fprintf(stderr, "hindsight: at most %d --image-dir\n", TIMELINE_IMAGE_DIRS);
				return 2;
			}
			a->image_dirs[a->nimage_dirs++] = optarg;
			break;
		case 'h': return 1;
		default:
			fprintf(stderr, "Try 'hindsight timeline --help'.\n");
			return 2;
		}
	}
	if (optind < argc)
		a->dir = argv[optind++];
	if (optind < argc)
		a->range = argv[optind++];
	if (!a->dir || optind < argc) {
		fprintf(stderr, "hindsight: %s\nTry 'hindsight timeline --help'.\n",
			a->dir ? "timeline takes one recording and one RANGE" : "timeline wants a recording");
		return 2;
	}
	if (a->format == FORMAT_GUESS) {
		size_t n = a->out ? strlen(a->out) : 0;

		a->format = n >= 5 && (!strcmp(a->out + n - 5, ".html") || !strcmp(a->out + n - 4, ".htm"))
				    ? FORMAT_HTML
				    : FORMAT_JSON;
	}
	replay_report_image_dirs(a->image_dirs, a->nimage_dirs);
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* The length of the UTF-8 sequence at @s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* @s as a JSON string. <, > and & are escaped too, so that the text can
 * sit inside the page's <script>; bytes that are not UTF-8 become U+FFFD. */
static void put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p++);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p++);
		else if (*p < 0x80)
			fputc(*p++, f);
		else if ((n = utf8_len(p)) != 0)
			fwrite(p, 1, n, f), p += n;
		else
			fputs("\\ufffd", f), p++;
	}
	fputc('"', f);
}

struct writer {
	FILE *f;
	const struct replay_bundle *b;
	const struct replay_spans *sp;
	const char *rec;           /* the recording as a command names it */
	int64_t pid;
	bool first;
};

static void event_start(struct writer *w, const char *ph, size_t thread)
{
	fprintf(w->f, "%s\n{\"ph\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64, w->first ? "" : ",",
		ph, w->pid, w->b->threads[thread].tid);
	w->first = false;
}

static void thread_name(const struct writer *w, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "thread %zu (%" PRId64 ")", i + 1, w->b->threads[i].tid);
}

static void write_metadata(struct writer *w)
{
	const char *prog = w->b->argv && w->b->argv[0] ? w->b->argv[0] : "process";
	const char *base = strrchr(prog, '/');
	char name[64];

	for (size_t i = 0; i < w->b->nthreads; i++) {
		if (i == 0) {
			event_start(w, "M", i);
			fputs(",\"name\":\"process_name\",\"args\":{\"name\":", w->f);
			put_str(w->f, base ? base + 1 : prog);
			fputs("}}", w->f);
		}
		thread_name(w, i, name, sizeof(name));
		event_start(w, "M", i);
		fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", w->f);
		put_str(w->f, name);
		fputs("}}", w->f);
		event_start(w, "M", i);
		fprintf(w->f, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}}", i + 1);
	}
}

static void write_span(struct writer *w, const struct replay_spans_span *s)
{
	event_start(w, "X", s->thread);
	fprintf(w->f, ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 ",\"name\":", s->t0 - w->sp->origin,
		s->t1 - s->t0);
	if (s->calls) {
		char name[48];

		snprintf(name, sizeof(name), "%" PRIu64 " calls", s->calls);
		put_str(w->f, name);
		fputs(",\"cat\":\"merged\"", w->f);
	} else {
		put_str(w->f, s->function ? s->function : "??");
		fputs(",\"cat\":\"call\"", w->f);
	}
	fprintf(w->f, ",\"args\":{\"depth\":%d,\"first\":%" PRIu64 ",\"last\":%" PRIu64, s->depth,
		s->first, s->last);
	if (s->calls) {
		char names[512] = "";
		size_t n = 0;

		for (size_t i = 0; i < REPLAY_SPANS_NAMES && s->names[i] && n < sizeof(names); i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
					      s->names[i]);
		fprintf(w->f, ",\"calls\":%" PRIu64 ",\"functions\":", s->calls);
		put_str(w->f, names);
	}
	if (s->file) {
		fputs(",\"file\":", w->f);
		put_str(w->f, s->file);
		if (s->line)
			fprintf(w->f, ",\"line\":%u", s->line);
	}
	if (s->signal)
		fputs(",\"signal\":true", w->f);
	fputs("}}", w->f);
}

static void write_mark(struct writer *w, const struct replay_spans_mark *m)
{
	static const char *const cats[] = { "signal", "gap", "crash" };
	char name[160];

	switch (m->kind) {
	case REPLAY_MARK_SIGNAL:
		snprintf(name, sizeof(name), "signal handler: %s", m->function ? m->function : "??");
		break;
	case REPLAY_MARK_GAP:
		snprintf(name, sizeof(name), "gap: %s", m->text ? m->text : "");
		break;
	case REPLAY_MARK_CRASH:
		snprintf(name, sizeof(name), "killed by signal %d", w->b->exit_status);
		if (w->b->exit_status > 0 && w->b->exit_status < NSIG && sigabbrev_np(w->b->exit_status))
			snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(w->b->exit_status));
		break;
	}
	event_start(w, "i", m->thread);
	fprintf(w->f, ",\"s\":\"t\",\"ts\":%" PRIu64 ",\"name\":", m->time - w->sp->origin);
	put_str(w->f, name);
	fprintf(w->f, ",\"cat\":\"%s\",\"args\":{\"position\":%" PRIu64 "}}", cats[m->kind],
		m->position);
}

static void write_other(struct writer *w)
{
	static const char *const clocks[] = { "instructions", "tsc", "positions" };
	const struct replay_spans *sp = w->sp;
	char name[64];

	fputs("\n],\n\"otherData\":{\"hindsight\":{\"recording\":", w->f);
	put_str(w->f, w->rec);
	fprintf(w->f,
		",\"clock\":\"%s\",\"origin\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
		",\"quantum\":%" PRIu64 ",\"exit\":",
		clocks[sp->clock], sp->origin, sp->start - sp->origin, sp->end - sp->origin, sp->quantum);
	put_str(w->f, w->b->exit_kind ? w->b->exit_kind : "unknown");
	fputs(",\"threads\":[", w->f);
	for (size_t i = 0; i < w->b->nthreads; i++) {
		thread_name(w, i, name, sizeof(name));
		fprintf(w->f, "%s{\"tid\":%" PRId64 ",\"number\":%zu,\"positions\":%" PRIu64 ",\"name\":",
			i ? "," : "", w->b->threads[i].tid, i + 1, sp->positions[i]);
		put_str(w->f, name);
		fputc('}', w->f);
	}
	fputs("]}}}\n", w->f);
}

static void write_json(struct writer *w)
{
	w->first = true;
	fputs("{\"traceEvents\":[", w->f);
	write_metadata(w);
	for (size_t i = 0; i < w->sp->nspans; i++)
		write_span(w, &w->sp->spans[i]);
	for (size_t i = 0; i < w->sp->nmarks; i++)
		write_mark(w, &w->sp->marks[i]);
	write_other(w);
}

/* ---- the page ------------------------------------------------------------ */

static void put_html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* The template with its tokens replaced. */
static void write_html(struct writer *w)
{
	static const struct {
		const char *token;
		const char *start, *end;
	} parts[] = {
		{ "/*@CSS@*/", hs_asset_css, hs_asset_css_end },
		{ "/*@D3@*/", hs_asset_d3, hs_asset_d3_end },
		{ "/*@JS@*/", hs_asset_js, hs_asset_js_end },
		{ "/*@DATA@*/", NULL, NULL },
		{ "@TITLE@", NULL, NULL },
	};
	const char *p = hs_asset_page, *end = hs_asset_page_end;
	const char *prog = w->b->argv && w->b->argv[0] ? w->b->argv[0] : "";
	char title[512];

	snprintf(title, sizeof(title), "%s%s%s", prog, *prog ? " \xe2\x80\x94 " : "", w->rec);
	while (p < end) {
		size_t best = 0, at = (size_t)(end - p);

		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			const char *q = memmem(p, (size_t)(end - p), parts[i].token, strlen(parts[i].token));

			if (q && (size_t)(q - p) < at) {
				at = (size_t)(q - p);
				best = i;
			}
		}
		fwrite(p, 1, at, w->f);
		if (at == (size_t)(end - p))
			break;
		if (parts[best].start)
			fwrite(parts[best].start, 1, (size_t)(parts[best].end - parts[best].start), w->f);
		else if (!strcmp(parts[best].token, "@TITLE@"))
			put_html(w->f, title);
		else
			write_json(w);
		p += at + strlen(parts[best].token);
	}
}

/* ---- the command --------------------------------------------------------- */

struct progress {
	struct timespec t0;
	time_t last;
	bool shown;
};

static int progress(void *ctx, uint64_t items)
{
	struct progress *pr = ctx;
	struct timespec t;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t);
	s = (double)(t.tv_sec - pr->t0.tv_sec) + (double)(t.tv_nsec - pr->t0.tv_nsec) / 1e9;
	if (s >= 1.0 && (time_t)s != pr->last) {
		pr->last = (time_t)s;
		pr->shown = true;
		fprintf(stderr, "timeline: %" PRIu64 " instructions...\n", items);
	}
	return 0;
}

static int write_out(const struct tl_args *a, struct writer *w)
{
	FILE *f = a->out ? fopen(a->out, "w") : stdout;
	int rc;

	if (!f) {
		fprintf(stderr, "hindsight: %s: %s\n", a->out, strerror(errno));
		return -1;
	}
	w->f = f;
	if (a->format == FORMAT_HTML)
		write_html(w);
	else
		write_json(w);
	rc = ferror(f) ? -1 : 0;
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", a->out ? a->out : "stdout", strerror(errno));
		if (a->out)
			remove(a->out);
	}
	return rc;
}

int cli_timeline_main(int argc, char **argv)
{
	struct replay_spans_opts o = { 0 };
	struct replay_spans sp = { 0 };
	struct replay_report *r = NULL;
	const struct replay_bundle *b;
	struct progress pr = { 0 };
	struct tl_args a = { 0 };
	struct writer w = { 0 };
	char err[512], path[PATH_MAX];
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? (cli_timeline_usage(stdout), 0) : rc;
	if (a.range && parse_range(a.range, &o) < 0) {
		fprintf(stderr, "hindsight: bad RANGE '%s' (A,B  A,+K  A,  ,B)\n", a.range);
		return 2;
	}
	if (cli_rebuild_pending(a.dir) < 0)
		return 1;
	rc = replay_report_open(a.dir, false, &r, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return 1;
	}
	b = r->b;
	rc = replay_report_timeline_want(r);
	cli_say_notes(b);      /* with the state logs' check, made as they opened */
	if (rc == 0) {
		o.resolution = a.resolution;
		o.progress = progress;
		o.ctx = &pr;
		clock_gettime(CLOCK_MONOTONIC, &pr.t0);
		rc = replay_report_timeline(r, &o, &sp);
	}
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", a.dir,
			rc == -EINVAL ? "the trace's configuration is not supported" : strerror(-rc));
	} else {
		if (pr.shown)
			fprintf(stderr, "timeline: %" PRIu64 " instructions, %zu spans, done\n",
				sp.items, sp.nspans);
		for (size_t i = 0; i < b->nthreads; i++)
			if (!sp.positions[i])
				fprintf(stderr, "hindsight: warning: thread %zu (%" PRId64 "): nothing in its "
					"trace decodes\n", i + 1, b->threads[i].tid);
		w.b = b;
		w.sp = &sp;
		w.rec = b->perf_file ? b->perf_file : a.dir;
		if (realpath(w.rec, path))
			w.rec = path;
		w.pid = b->pid > 0 ? b->pid : 1;
		rc = write_out(&a, &w);
	}
	replay_spans_release(&sp);
	replay_report_free(r);
	return rc < 0 ? 1 : 0;
}
