/*
 * replay/target/replay_monitor.c: when, goto, record-info, history and calls over
 * the replay target's cursors (see replay_monitor.h).
 */
#include "replay/target/replay_monitor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/decode/calls.h"
#include "replay/decode/cursor.h"
#include "replay/decode/decode.h"
#include "replay/decode/history_format.h"
#include "replay/decode/index.h"
#include "replay/decode/provenance.h"
#include "replay/model/state.h"
#include "replay/decode/symbols.h"
#include "replay/decode/timeline.h"

#define LISTING_SIZE 10

static const char help_text[] =
	"  when         Show the current position and the size of the history.\n"
	"  goto N       Move the current thread to position N of its history.\n"
	"  record-info  Show the recorder, instructions, threads, gaps and bytes.\n"
	"  history [RANGE] [/m /s /r /f /p]  Instruction history (record instruction-history).\n"
	"  calls [RANGE] [/i /l /c]          Function-call history (record function-call-history).\n"
	"  last ADDR LEN [--json]  The last change of LEN bytes at ADDR before now.\n";

static struct replay_cursor *cursor(const struct replay_monitor_ctx *m)
{
	return m->cursors[m->current];
}

static int64_t tid(const struct replay_monitor_ctx *m)
{
	return m->b->threads[m->current].tid;
}

static int cmd_when(const struct replay_monitor_ctx *m, struct rsp_buf *out)
{
	struct replay_cursor *c = cursor(m);
	uint64_t pos = replay_cursor_position(c), size = replay_cursor_size(c), pc;
	int err = rsp_buf_printf(out, "position %" PRIu64 " of %" PRIu64 " in thread %" PRId64,
				 pos, size, tid(m));

	if (!err && pos > size)
		err = rsp_buf_puts(out, " (the end of history)");
	else if (!err && pos == 1)
		err = rsp_buf_puts(out, " (the beginning of history)");
	if (!err && replay_cursor_pc(c, &pc) == 0)
		err = rsp_buf_printf(out, ", pc 0x%" PRIx64, pc);
	return err ? err : rsp_buf_puts(out, "\n");
}

static int cmd_goto(const struct replay_monitor_ctx *m, const char *arg, struct rsp_buf *out)
{
	struct replay_cursor *c = cursor(m);
	char *end;
	uint64_t n;
	int rc;

	errno = 0;
	n = strtoull(arg, &end, 0);
	while (*end == ' ')
		end++;
	if (!*arg || *arg == '-' || errno || *end)
		return rsp_buf_printf(out, "goto: expected a position, got '%s'.\n", arg);
	rc = replay_cursor_goto(c, n);
	if (rc == -ENOENT)
		return rsp_buf_printf(out, "goto: position %" PRIu64 " is outside the history "
				      "(1 to %" PRIu64 ").\n", n, replay_cursor_size(c) + 1);
	if (rc < 0)
		return rc;
	rc = cmd_when(m, out);
	return rc ? rc : rsp_buf_puts(out, "(GDB: `maintenance flush register-cache` shows it)\n");
}

/* In memory (a perf.data opened directly) or on disk; 0 if not known. */
static uint64_t file_size(const struct replay_bundle *b, const char *file)
{
	uint64_t size;

	return replay_bundle_file_size(b, file, &size) == 0 ? size : 0;
}

static int cmd_record_info(const struct replay_monitor_ctx *m, struct rsp_buf *out)
{
	const struct replay_bundle *b = m->b;
	uint64_t insns = 0, gaps = 0, pt = 0, state = 0, cut_pos, cut_time;
	size_t cuts = 0, noimage = 0;
	int err;

	/* A mapping with no file ([stack], [vdso] without a copy, anonymous
	 * memory) lost nothing unless code ran there, and then the decoder
	 * has a gap of its own there: not a recorded gap. */
	for (size_t i = 0; i < b->ngaps; i++)
		noimage += b->gaps[i].kind && !strcmp(b->gaps[i].kind, "image-missing");
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct replay_index *idx = replay_cursor_index(m->cursors[i]);

		insns += idx->ninsns;
		gaps += idx->ngaps;
		pt += file_size(b, b->threads[i].pt_file);
		state += file_size(b, b->threads[i].state_file);
		cuts += m->st && replay_state_cut(m->st, b->threads[i].tid, &cut_pos, &cut_time) &&
			cut_pos <= idx->ninsns;
	}
	err = rsp_buf_printf(out, "recorder: %s\ninstructions: %" PRIu64 "\nthreads: %zu\n"
			     "gaps: %" PRIu64 " (decoded) + %zu (recorded)\n"
			     "bytes: %" PRIu64 " of trace, %" PRIu64 " of state log\n",
			     b->recorder ? b->recorder : "unknown", insns, b->nthreads, gaps,
			     b->ngaps - noimage + cuts, pt, state);
	if (!err && noimage)
		err = rsp_buf_printf(out, "mappings without an image: %zu (code that ran there "
				     "decodes as a gap)\n", noimage);
	for (size_t i = 0; i < b->nthreads && !err; i++) {
		const struct replay_index *idx = replay_cursor_index(m->cursors[i]);

		err = rsp_buf_printf(out, "  thread %" PRId64 ": %" PRIu64 " instructions, %" PRIu64
				     " gaps, at position %" PRIu64 "%s\n", b->threads[i].tid,
				     idx->ninsns, idx->ngaps, replay_cursor_position(m->cursors[i]),
				     i == m->current ? " (current)" : "");
		if (!err && m->st && replay_state_cut(m->st, b->threads[i].tid, &cut_pos, &cut_time) &&
		    cut_pos <= idx->ninsns)
			err = rsp_buf_printf(out, "    state log cut short (no end record): "
					     "registers known up to position %" PRIu64
					     ", memory up to time %" PRIu64 "\n", cut_pos,
					     cut_time ? cut_time - 1 : 0);
	}
	if (!err && b->exit_kind)
		err = rsp_buf_printf(out, "end: %s %d\n", b->exit_kind, b->exit_status);
	return err;
}

/* Splits @args into a range and modifiers. 0, or 1 with a message. */
static int listing_args(const char *args, bool calls, char *range, size_t size,
			struct replay_history_opts *o, struct rsp_buf *out)
{
	char buf[256], *save = NULL, *w, bad = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	range[0] = 0;
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(range);

		if (w[0] == '/') {
			if (replay_history_modifiers(w, calls, o, &bad) < 0) {
				rsp_buf_printf(out, "Invalid modifier: %c.\n", bad);
				return 1;
			}
		} else {
			snprintf(range + len, size - len, "%s", w);
		}
	}
	return 0;
}

static FILE *text_open(char **text, size_t *len)
{
	*text = NULL;
	return open_memstream(text, len);
}

/* Appends the stream's text to @out (cut at REPLAY_MONITOR_MAX_TEXT). */
static int text_close(FILE *f, char **text, size_t *len, struct rsp_buf *out)
{
	int err;

	if (fclose(f) != 0 || !*text) {
		free(*text);
		return -ENOMEM;
	}
	if (*len > REPLAY_MONITOR_MAX_TEXT)
		strcpy(*text + REPLAY_MONITOR_MAX_TEXT - 64, "\n(cut: ask for a smaller range)\n");
	err = rsp_buf_puts(out, *text);
	free(*text);
	return err;
}

static int list_history(const struct replay_monitor_ctx *m, struct replay_decoder *d,
			const struct replay_history_opts *o, uint64_t begin, uint64_t end, FILE *f)
{
	uint64_t pos = replay_cursor_position(cursor(m));
	struct replay_history_src last = { 0 };
	struct replay_item it;
	int rc = replay_index_seek(replay_cursor_index(cursor(m)), d, begin);

	while (rc == 0 && (rc = replay_decoder_next(d, &it)) == 1 && it.index <= end) {
		rc = 0;
		if (it.kind == REPLAY_ITEM_GAP) {
			fprintf(f, "%" PRIu64 "\t", it.index);
			replay_history_print_gap(f, it.error, it.text);
		} else {
			replay_history_print_insn(f, m->sym, o, &it, it.index == pos, &last);
		}
		if (ftell(f) > REPLAY_MONITOR_MAX_TEXT)
			break;
	}
	replay_history_src_release(&last);
	return rc < 0 ? rc : 0;
}

static int cmd_history(const struct replay_monitor_ctx *m, const char *args, struct rsp_buf *out)
{
	struct replay_history_opts o = { 0 };
	struct replay_decoder *d = NULL;
	uint64_t size = replay_cursor_size(cursor(m)), pos = replay_cursor_position(cursor(m));
	uint64_t begin, end;
	char range[128], msg[160], *text;
	size_t len;
	FILE *f;
	int rc;

	if (listing_args(args, false, range, sizeof(range), &o, out))
		return 0;
	if (replay_history_range(range, LISTING_SIZE, size, pos > size ? size : pos, &begin, &end,
				 msg, sizeof(msg)) < 0)
		return rsp_buf_printf(out, "%s\n", msg);
	rc = replay_decoder_new(m->b, m->current, &d);
	if (rc < 0)
		return rc;
	f = text_open(&text, &len);
	if (!f) {
		replay_decoder_free(d);
		return -ENOMEM;
	}
	rc = list_history(m, d, &o, begin, end, f);
	replay_decoder_free(d);
	if (rc < 0) {
		fclose(f);
		free(text);
		return rc;
	}
	return text_close(f, &text, &len, out);
}

static int cmd_calls(const struct replay_monitor_ctx *m, const char *args, struct rsp_buf *out)
{
	struct replay_history_opts o = { 0 };
	struct replay_calls calls = { 0 };
	struct replay_decoder *d = NULL;
	uint64_t begin, end;
	char range[128], msg[160], *text;
	size_t len;
	FILE *f;
	int rc;

	if (listing_args(args, true, range, sizeof(range), &o, out))
		return 0;
	rc = replay_decoder_new(m->b, m->current, &d);
	if (rc == 0)
		rc = replay_calls_build(&calls, d, m->sym, NULL, NULL);
	replay_decoder_free(d);
	if (rc < 0) {
		replay_calls_release(&calls);
		return rc;
	}
	if (replay_history_range(range, LISTING_SIZE, calls.n, calls.n, &begin, &end, msg,
				 sizeof(msg)) < 0) {
		replay_calls_release(&calls);
		return rsp_buf_printf(out, "%s\n", msg);
	}
	f = text_open(&text, &len);
	for (uint64_t i = begin; f && i <= end && ftell(f) <= REPLAY_MONITOR_MAX_TEXT; i++)
		replay_history_print_segment(f, &o, i, &calls.segs[i - 1]);
	replay_calls_release(&calls);
	return f ? text_close(f, &text, &len, out) : -ENOMEM;
}

/* ---- last ------------------------------------------------------------ */

/* @n bytes as hex pairs ("??" for one the log does not know). */
static int put_bytes(struct rsp_buf *out, const uint8_t *b, const uint8_t *status, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = !status || status[i] == REPLAY_STATE_KNOWN ||
			status[i] == REPLAY_STATE_UNTOUCHED ?
			rsp_buf_printf(out, "%s%02x", i && !status ? "" : i ? " " : "", b[i]) :
			rsp_buf_puts(out, i ? " ??" : "??");
	return err;
}

/* @s as a JSON string. */
static int put_json_string(struct rsp_buf *out, const char *s)
{
	int err = rsp_buf_puts(out, "\"");

	for (; s && *s && !err; s++)
		err = *s == '"' || *s == '\\' ? rsp_buf_printf(out, "\\%c", *s) :
		      (unsigned char)*s < 0x20 ? rsp_buf_printf(out, "\\u%04x", *s) :
		      rsp_buf_printf(out, "%c", *s);
	return err ? err : rsp_buf_puts(out, "\"");
}

/* The writer's pc and its symbol. */
static void writer_where(const struct replay_monitor_ctx *m, const struct replay_prov_write *w,
			 uint64_t *pc, struct replay_symbol *sym)
{
	memset(sym, 0, sizeof(*sym));
	*pc = 0;
	replay_symbolizer_at(m->sym, w->time);     /* the images mapped then */
	for (size_t i = 0; i < m->b->nthreads; i++)
		if (m->b->threads[i].tid == w->tid &&
		    replay_cursor_item_ip(m->cursors[i], w->position, pc) == 0 &&
		    m->sym->lookup(m->sym->ctx, *pc, sym) < 0)
			memset(sym, 0, sizeof(*sym));
}

static int last_json(struct rsp_buf *out, const struct replay_prov_write *w, uint64_t now,
		     uint64_t pc, const struct replay_symbol *sym)
{
	uint8_t all[REPLAY_PROV_MAX];
	int err;

	memset(all, REPLAY_STATE_KNOWN, sizeof(all));
	err = rsp_buf_printf(out, "{\"addr\": %" PRIu64 ", \"len\": %zu, \"found\": true, "
			     "\"thread\": %" PRId64 ", \"position\": %" PRIu64 ", \"ago\": %"
			     PRIu64 ", \"pc\": %" PRIu64 ", \"function\": ", w->addr, w->len,
			     w->tid, w->position, now + 1 - w->time, pc);
	err = err ? err : put_json_string(out, sym->function);
	err = err ? err : rsp_buf_puts(out, ", \"file\": ");
	err = err ? err : put_json_string(out, sym->file);
	err = err ? err : rsp_buf_printf(out, ", \"line\": %u, \"old\": \"", sym->line);
	err = err ? err : put_bytes(out, w->before, NULL, w->len);
	err = err ? err : rsp_buf_puts(out, "\", \"new\": \"");
	err = err ? err : put_bytes(out, w->after, NULL, w->len);
	return err ? err : rsp_buf_puts(out, "\"}\n");
}

static int last_text(struct rsp_buf *out, const struct replay_prov_write *w, uint64_t now,
		     uint64_t pc, const struct replay_symbol *sym)
{
	int err = rsp_buf_printf(out, "last write to %zu bytes at 0x%" PRIx64 ": thread %" PRId64
				 " position %" PRIu64 " (%" PRIu64 " instructions back), pc 0x%"
				 PRIx64, w->len, w->addr, w->tid, w->position, now + 1 - w->time,
				 pc);

	if (!err && sym->function)
		err = rsp_buf_printf(out, " <%s+%" PRIu64 ">", sym->function, pc - sym->start);
	if (!err && sym->file)
		err = rsp_buf_printf(out, " at %s:%u", sym->file, sym->line);
	err = err ? err : rsp_buf_puts(out, "\n  old: ");
	err = err ? err : put_bytes(out, w->before, w->before_status, w->len);
	err = err ? err : rsp_buf_puts(out, "\n  new: ");
	err = err ? err : put_bytes(out, w->after, w->after_status, w->len);
	return err ? err : rsp_buf_printf(out, "\n(`monitor goto %" PRIu64 "` in that thread "
					  "goes to it: the state before the write)\n", w->position);
}

/* No write before @now: the bytes as the log knows them, or not. */
static int last_none(const struct replay_monitor_ctx *m, struct rsp_buf *out, uint64_t addr,
		     size_t len, uint64_t now, bool json)
{
	uint8_t b[REPLAY_PROV_MAX], status[REPLAY_PROV_MAX];
	bool known = replay_state_read_mem_status(m->st, now, addr, b, len, status) == 0;
	int err;

	for (size_t i = 0; i < len; i++)
		known &= status[i] == REPLAY_STATE_KNOWN;
	if (json)
		err = rsp_buf_printf(out, "{\"addr\": %" PRIu64 ", \"len\": %zu, \"found\": false, "
				     "\"value\": %s", addr, len, known ? "\"" : "null");
	else
		err = rsp_buf_printf(out, "no write to %zu bytes at 0x%" PRIx64 " before now in "
				     "the recording: %s", len, addr, known ? "they held " :
				     "the recording never saw their value (memory of the program's "
				     "files is as mapped)");
	if (!err && known)
		err = put_bytes(out, b, json ? NULL : status, len);
	if (!err && json)
		err = rsp_buf_puts(out, known ? "\"}\n" : "}\n");
	else if (!err)
		err = rsp_buf_puts(out, known ? " from its start.\n" : ".\n");
	return err;
}

static int cmd_last(const struct replay_monitor_ctx *m, const char *args, struct rsp_buf *out)
{
	struct replay_prov_write w;
	struct replay_symbol sym;
	uint64_t addr, len, now, pc;
	char *end;
	bool json;
	int r;

	addr = strtoull(args, &end, 0);
	len = end != args ? strtoull(end, &end, 0) : 0;
	while (*end == ' ')
		end++;
	json = !strcmp(end, "--json");
	if (!len || len > REPLAY_PROV_MAX || (*end && !json))
		return rsp_buf_printf(out, "last: expected ADDR LEN (1 to %d bytes) [--json], got "
				      "'%s'.\n", REPLAY_PROV_MAX, args);
	if (!m->st || !m->tl || replay_timeline_time(m->tl, &now) < 0)
		return rsp_buf_puts(out, "last: the recording has no state log (a hardware trace "
				    "records no writes).\n");
	r = replay_prov_change_before(m->st, addr, (size_t)len, now, &w);
	if (r == -ENODATA)
		return rsp_buf_puts(out, json ? "{\"found\": null, \"why\": \"state log cut "
				    "short\"}\n" : "last: the state log was cut short: a write "
				    "after where it ends cannot be ruled out.\n");
	if (r < 0)
		return last_none(m, out, addr, (size_t)len, now, json);
	writer_where(m, &w, &pc, &sym);
	return json ? last_json(out, &w, now, pc, &sym) : last_text(out, &w, now, pc, &sym);
}

/* @cmd is @word alone or followed by a space: the rest in *@args. */
static bool is_cmd(const char *cmd, const char *word, const char **args)
{
	size_t n = strlen(word);

	if (strncmp(cmd, word, n) || (cmd[n] && cmd[n] != ' '))
		return false;
	for (*args = cmd + n; **args == ' '; (*args)++)
		;
	return true;
}

/* The commands replay_monitor_run answers, but "help". */
static const char *const commands[] = { "when", "goto", "record-info", "history", "calls", "last" };

bool replay_monitor_is_command(const char *cmd)
{
	const char *args;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (is_cmd(cmd, commands[i], &args))
			return true;
	return false;
}

int replay_monitor_run(const struct replay_monitor_ctx *m, const char *cmd, struct rsp_buf *out)
{
	const char *args;

	if (!strcmp(cmd, "help"))
		return rsp_buf_puts(out, help_text);
	if (!replay_monitor_is_command(cmd))
		return -ENOENT;
	if (!m->b->nthreads)
		return is_cmd(cmd, "record-info", &args) ? cmd_record_info(m, out) : -ENOENT;
	if (is_cmd(cmd, "when", &args))
		return cmd_when(m, out);
	if (is_cmd(cmd, "goto", &args))
		return cmd_goto(m, args, out);
	if (is_cmd(cmd, "record-info", &args))
		return cmd_record_info(m, out);
	if (is_cmd(cmd, "history", &args))
		return cmd_history(m, args, out);
	if (is_cmd(cmd, "calls", &args))
		return cmd_calls(m, args, out);
	if (is_cmd(cmd, "last", &args))
		return cmd_last(m, args, out);
	return -ENOENT;
}
