/*
 * cli/main.c: the `hindsight` command and its subcommands.
 *
 * Each subcommand is one row of `commands`: its name, a one-line summary
 * and its entry point. `hindsight CMD --help` and `hindsight help CMD` show
 * a subcommand's usage. cli/ is the only place that prints or exits.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli_doctor.h"
#include "cli/cli_history.h"
#include "cli/cli_import.h"
#include "cli/cli_record.h"
#include "cli/cli_replay.h"
#include "cli/cli_run.h"
#include "cli/cli_serve.h"
#include "cli/cli_timeline.h"

#define HINDSIGHT_VERSION "0.1"

struct command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
	void (*usage)(FILE *out);
};

static const struct command commands[] = {
	{ "serve", "serve a program to GDB or LLDB over the remote protocol, like gdbserver",
	  cli_serve_main, cli_serve_usage },
	{ "record", "run a program (or follow a process) and record its execution",
	  cli_record_main, cli_record_usage },
	{ "rebuild", "rebuild a light recording's history from the inputs it logged",
	  cli_rebuild_main, cli_rebuild_usage },
	{ "run", "run a program under the recorder; if it crashes, explain how it got there",
	  cli_run_main, cli_run_usage },
	{ "replay", "debug a recording forward and backward with GDB's commands",
	  cli_replay_main, cli_replay_usage },
	{ "history", "print a recording's instruction history, like GDB's record instruction-history",
	  cli_history_main, cli_history_usage },
	{ "import", "turn a perf.data, an LLDB trace bundle or a raw PT file into a recording",
	  cli_import_main, cli_import_usage },
	{ "calls", "print a recording's function-call history, like GDB's record function-call-history",
	  cli_calls_main, cli_calls_usage },
	{ "timeline", "draw the calls of every thread of a recording: a page, or JSON for Perfetto",
	  cli_timeline_main, cli_timeline_usage },
	{ "doctor", "what this machine gives hindsight: Intel PT, ptrace, debug registers, single steps",
	  cli_doctor_main, cli_doctor_usage },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight COMMAND [ARGS...]\n"
		"       hindsight help COMMAND | --help | --version\n"
		"\n"
		"hindsight records how a program got where it is and lets GDB, LLDB or\n"
		"its own front end walk that history.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun `hindsight COMMAND --help` for a command's options.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hindsight %s\n", HINDSIGHT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		cmd = find(argv[2]);
		if (cmd) {
			cmd->usage(stdout);
			return 0;
		}
		argv[1] = argv[2];
	}
	cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "hindsight: unknown command '%s'. Try 'hindsight --help'.\n", argv[1]);
		return 2;
	}
	return cmd->main(argc - 1, argv + 1);
}
