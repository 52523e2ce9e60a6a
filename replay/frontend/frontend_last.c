/*
 * replay/frontend/frontend_last.c: what `last` follows and `watch` watches, and
 * where it last changed (see frontend_last.h).
 *
 * EXPR goes to (address, length) in one function
 * (replay_frontend_target_parse) through the C expressions.
 */
#include "replay/frontend/frontend_last.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_type.h"
#include "replay/frontend/frontend_vars.h"
#include "protocol/rsp_regs.h"
#include "replay/frontend/cexpr.h"
#include "replay/decode/cursor.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_origin.h"
#include "replay/decode/provenance.h"
#include "replay/model/state.h"
#include "replay/decode/timeline.h"

_Static_assert(REPLAY_FRONTEND_VALUE_MAX == REPLAY_PROV_MAX, "a value followed is provenance's");

/* The register $NAME names (64-bit, or $pc / $sp / $fp), or -1. */
static int reg_slot(const char *name)
{
	static const struct { const char *alias, *reg; } aliases[] = {
		{ "sp", "rsp" }, { "fp", "rbp" },
	};
	int r;

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].reg;
	r = rsp_reg_find(name, strlen(name));
	return r < 0 || rsp_reg_descs[r].size != 8 ? -1 : (int)rsp_reg_descs[r].user;
}

int replay_frontend_target_parse(struct replay_frontend *f, const char *expr,
				 struct replay_frontend_target *t, char *err, size_t errsize)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	struct cexpr_value *v = NULL;
	uint64_t len;

	memset(t, 0, sizeof(*t));
	snprintf(t->what, sizeof(t->what), "%s", expr);
	if (expr[0] == '$' && reg_slot(expr + 1) >= 0) {
		t->reg = true;
		t->slot = reg_slot(expr + 1);
		return 0;
	}
	if (!cx) {
		snprintf(err, errsize, "Out of memory.");
		return -1;
	}
	/* The bytes the C expression names, and its type when its value can
	 * be read here (to print the values before and after). */
	if (cexpr_lvalue(cx, expr, &t->addr, &len) < 0) {
		snprintf(err, errsize, "%s", cexpr_error(cx));
		return -1;
	}
	if (cexpr_eval(cx, expr, &v) == 0) {
		t->type = v->type;
		cexpr_value_free(v);
	}
	if (!len || len > REPLAY_PROV_MAX) {
		snprintf(err, errsize, "last: 1 to %d bytes (%s is %" PRIu64 ").", REPLAY_PROV_MAX,
			 expr, len);
		return -1;
	}
	t->len = (size_t)len;
	return 0;
}

char *replay_frontend_target_text(struct replay_frontend *f, const struct replay_frontend_target *t,
				  const uint8_t *b, size_t n)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	struct cexpr_value *v;
	uint64_t x = 0;
	char *text;
	size_t k = 0, size = 8 + n * 6;

	if (t->type && cx && dw_type_size(t->type) == n &&
	    (v = cexpr_value_bytes(cx, t->type, b, NULL, NULL)) &&
	    (text = cexpr_format_value(cx, v, 0)))
		return text;
	text = malloc(size > 32 ? size : 32);
	if (!text)
		return NULL;
	if (n == 1 || n == 2 || n == 4 || n == 8) {
		memcpy(&x, b, n);
		snprintf(text, 32, "%" PRIu64, x);
		return text;
	}
	text[k++] = '{';
	for (size_t i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, size - k, "%s0x%02x", i ? ", " : "", b[i]);
	snprintf(text + k, size - k, "}");
	return text;
}

int replay_frontend_last_write(struct replay_frontend *f, uint64_t addr, size_t len,
			       struct replay_frontend_write *w)
{
	struct replay_prov_write pw;
	int r;

	memset(w, 0, sizeof(*w));
	if (replay_timeline_time(f->tl, &w->now) < 0)
		return -EOPNOTSUPP;
	r = replay_prov_change_before(f->st, addr, len, w->now, &pw);
	if (r == -ENODATA)
		return r;
	if (r < 0)
		return -ENOENT;
	w->tid = pw.tid;
	w->position = pw.position;
	w->time = pw.time;
	for (size_t i = 0; i < len && i < REPLAY_FRONTEND_VALUE_MAX; i++) {
		w->after[i] = pw.after[i];
		w->after_known[i] = pw.after_status[i] == REPLAY_STATE_KNOWN;
	}
	return 0;
}

int replay_frontend_last_mapping(struct replay_frontend *f, uint64_t addr, size_t len,
				 struct replay_frontend_mapping *m)
{
	struct replay_state_mapping map;

	memset(m, 0, sizeof(*m));
	if (!f->st || replay_timeline_time(f->tl, &m->now) < 0)
		return -EOPNOTSUPP;
	if (replay_state_map_before(f->st, addr, len, m->now, &map) < 0)
		return -ENOENT;
	m->tid = map.tid;
	m->position = map.index;
	m->time = map.time;
	m->how = replay_prov_map_how(map.how);
	m->call = replay_prov_syscall_name(replay_prov_syscall_at(f->st, map.tid, map.index));
	return 0;
}

int replay_frontend_last_reg(struct replay_frontend *f, int slot,
			     struct replay_frontend_reg_change *out)
{
	struct replay_prov_env env = { f->st, f->img, replay_frontend_origin_cursor, f,
				       f->interrupt };
	struct replay_prov_reg m = { 0 };
	int64_t tid = replay_frontend_tid(f);
	int r;

	memset(out, 0, sizeof(*out));
	out->name = replay_prov_reg_name(slot);
	if (!f->st)
		return -EOPNOTSUPP;
	replay_timeline_time(f->tl, &out->now);
	r = replay_prov_reg_origin(&env, tid, slot,
				   replay_cursor_position(replay_frontend_cursor(f)), &m);
	out->after = m.after;
	if (r < 0)
		return r;
	out->position = m.position;
	out->has_time = replay_state_time_at(f->st, tid, m.position + 1, &out->time) == 0;
	out->has_insn = m.has_insn;
	out->ip = m.ip;
	snprintf(out->text, sizeof(out->text), "%s", m.text);
	out->before = m.before;
	out->load = m.load;
	out->mem_addr = m.mem_addr;
	out->mem_len = m.mem_len;
	return 0;
}

int replay_frontend_watch(struct replay_frontend *f, const struct replay_frontend_target *t,
			  int number, bool on)
{
	if (on)
		return replay_timeline_point_insert(f->tl, REPLAY_TIMELINE_WATCH, t->addr, t->len,
						    number);
	return replay_timeline_point_remove(f->tl, REPLAY_TIMELINE_WATCH, t->addr, t->len, number);
}
