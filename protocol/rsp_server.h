/*
 * protocol/rsp_server.h: the server: one target, one connection at a time.
 *
 * rsp_server_serve() runs a connection until the client goes away: it reads
 * bytes, frames them, parses each packet into a request, hands the request
 * to its handler (protocol/rsp_handlers.c) and sends the reply. While the
 * target runs it also waits on the target's event fd and sends the stop
 * reply when the target stops. State that outlives a connection (the last
 * stop, whether the target is running, `monitor exit`) stays in the server,
 * so a client can reconnect to the same process, as with gdbserver.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_SERVER_H
#define HINDSIGHT_PROTOCOL_RSP_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "protocol/rsp_btrace.h"
#include "protocol/rsp_buf.h"
#include "protocol/rsp_conn.h"
#include "protocol/rsp_packet.h"
#include "protocol/rsp_reply.h"
#include "protocol/rsp_vfile.h"
#include "protocol/target.h"

/* The largest packet we accept, announced as PacketSize. */
#define RSP_PACKET_SIZE 0x20000

struct rsp_server_options {
	rsp_log_fn log;     /* every packet, or NULL */
	void *log_arg;
	const char *name;   /* for qGDBServerVersion and monitor help */
	const char *version;
	/* Set (by a signal handler) when the stub must end: the connection is
	 * given up within a second, as RSP_SERVE_QUIT. NULL: never. */
	const volatile sig_atomic_t *quit;
	bool vfile_any;     /* vFile serves any file the stub can read */
};

struct rsp_server {
	struct rsp_target target;
	struct rsp_server_options opt;

	/* This connection. */
	struct rsp_conn conn;
	struct rsp_client client;
	struct rsp_buf reply;
	bool noack_after_reply;
	struct rsp_vfile vfile;     /* files the client opened with vFile */

	/* Across connections. */
	struct rsp_ptid g_thread;   /* Hg: registers and memory */
	struct rsp_ptid c_thread;   /* Hc: legacy resume packets, bs / bc */
	struct rsp_stop last_stop;
	bool running;               /* resumed, a stop reply is owed */
	bool exit_requested;        /* monitor exit */
	bool has_process;
	bool detached;              /* the process was let go (D), not ended */

	struct rsp_thread_info *threads; /* scratch, refreshed by threads_get */
	size_t nthreads, threads_cap;
	struct rsp_buf scratch;
	struct rsp_buf tdesc;
	struct rsp_btrace_state btrace;
};

enum rsp_serve_end {
	RSP_SERVE_DISCONNECTED,     /* the client closed the connection */
	RSP_SERVE_GONE,             /* ... and the process is gone too */
	RSP_SERVE_QUIT,             /* options.quit was set: the server ended it */
};

/* Sets up a server for @target, whose process is stopped (the initial stop
 * is reported as SIGTRAP in its first thread, as gdbserver does). */
int rsp_server_init(struct rsp_server *s, struct rsp_target target,
		    const struct rsp_server_options *opt);
void rsp_server_release(struct rsp_server *s);

/* Serves the client on @fd until it disconnects. Returns an enum
 * rsp_serve_end or a negative errno for a failure of the connection. */
int rsp_server_serve(struct rsp_server *s, int fd);

/* What the handlers ask of the server (its threads, resuming, the stop
 * reply) is protocol/rsp_server_state.h's. */

#endif
