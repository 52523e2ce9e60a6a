/*
 * cli/cli_replay_print.c: `hindsight replay`'s C: print, output, ptype,
 * whatis, info locals and info args, as GDB 13 prints them, through the
 * session's evaluator (replay/frontend/frontend_vars.h, replay/frontend/cexpr.h) in the
 * selected frame.
 */
#include "cli/cli_replay_print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/frontend/frontend.h"
#include "replay/frontend/cexpr.h"
#include "replay/frontend/frontend_vars.h"

/* Runs one of cexpr's whole commands and prints what it says. */
static int run(struct cli_session *s, const char *args,
	       int (*cmd)(struct cexpr *cx, const char *args, char **out), bool newline)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	char *out = NULL;

	if (!cx) {
		fprintf(stderr, "Out of memory.\n");
		return -1;
	}
	if (cmd(cx, args, &out) < 0) {
		fflush(stdout);
		fprintf(stderr, "%s\n", cexpr_error(cx));
		return -1;
	}
	fputs(out, stdout);
	if (newline)
		putchar('\n');
	free(out);
	return 0;
}

int cli_replay_cmd_print(struct cli_session *s, const char *args, const struct command *c)
{
	switch (c->arg) {
	case CLI_PRINT_OUTPUT:
		return run(s, args, cexpr_cmd_output, false);
	case CLI_PRINT_PTYPE:
		return run(s, args, cexpr_cmd_ptype, true);
	case CLI_PRINT_WHATIS:
		return run(s, args, cexpr_cmd_whatis, true);
	default:
		return run(s, args, cexpr_cmd_print, true);
	}
}

struct vars_out {
	struct cexpr *cx;
};

static void print_var(void *ctx, const char *name, const struct cexpr_value *v, const char *err)
{
	struct vars_out *o = ctx;
	char *text = v ? cexpr_format_value_plain(o->cx, v, 0) : NULL;

	if (text)
		printf("%s = %s\n", name, text);
	else
		printf("%s = <error: %s>\n", name, err ? err : "out of memory");
	free(text);
}

int cli_replay_info_vars(struct cli_session *s, bool args)
{
	struct vars_out o = { replay_frontend_cexpr(s->f) };
	int n;

	if (!o.cx) {
		fprintf(stderr, "Out of memory.\n");
		return -1;
	}
	n = replay_frontend_frame_vars(s->f, args, print_var, &o);
	if (n == -ENOENT) {
		printf("No symbol table info available.\n");
		return 0;
	}
	if (n == -ENODATA) {
		fprintf(stderr, "No frame selected.\n");
		return -1;
	}
	if (n < 0) {
		fprintf(stderr, "Out of memory.\n");
		return -1;
	}
	if (n == 0)
		printf(args ? "No arguments.\n" : "No locals.\n");
	return 0;
}
