/*
 * protocol/rsp_packet.h: a packet's payload parsed into a typed request.
 *
 * Parsing is table-driven (rsp_packet.c: one row per packet name with its
 * match rule and argument parser) and knows nothing of what a request means.
 * Packet names are compared up to their separator, so `vCont?` and `vCont;`,
 * `qXfer:btrace:` and `qXfer:btrace-conf:` never mix. A packet no row knows
 * is RSP_REQ_UNKNOWN (the empty reply); a known one with bad arguments is
 * RSP_REQ_MALFORMED (an E reply).
 *
 * Parsing works in place: hex and binary arguments are decoded into the
 * payload buffer itself, and pointers in the request point into it, so the
 * request is valid as long as the payload is.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_PACKET_H
#define HINDSIGHT_PROTOCOL_RSP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/target.h"

enum rsp_req_type {
	RSP_REQ_UNKNOWN,
	RSP_REQ_MALFORMED,
	RSP_REQ_SUPPORTED,          /* qSupported[:features] */
	RSP_REQ_START_NOACK,        /* QStartNoAckMode */
	RSP_REQ_HALT_REASON,        /* ? */
	RSP_REQ_SET_THREAD,         /* H{g,c}<id> */
	RSP_REQ_THREAD_ALIVE,       /* T<id> */
	RSP_REQ_CURRENT_THREAD,     /* qC */
	RSP_REQ_THREAD_INFO_FIRST,  /* qfThreadInfo */
	RSP_REQ_THREAD_INFO_NEXT,   /* qsThreadInfo */
	RSP_REQ_THREAD_EXTRA_INFO,  /* qThreadExtraInfo,<id> */
	RSP_REQ_ATTACHED,           /* qAttached[:pid] */
	RSP_REQ_READ_REGS,          /* g */
	RSP_REQ_WRITE_REGS,         /* G<hex> */
	RSP_REQ_READ_REG,           /* p<n> */
	RSP_REQ_WRITE_REG,          /* P<n>=<hex> */
	RSP_REQ_READ_MEM,           /* m<addr>,<len> */
	RSP_REQ_WRITE_MEM,          /* M<addr>,<len>:<hex> and X<addr>,<len>:<bin> */
	RSP_REQ_INSERT_POINT,       /* Z<type>,<addr>,<kind> */
	RSP_REQ_REMOVE_POINT,       /* z<type>,<addr>,<kind> */
	RSP_REQ_CONTINUE,           /* c[addr], C<sig>[;addr] */
	RSP_REQ_STEP,               /* s[addr], S<sig>[;addr] */
	RSP_REQ_VCONT,              /* vCont;<action>[:<id>]... */
	RSP_REQ_VCONT_QUERY,        /* vCont? */
	RSP_REQ_REVERSE_STEP,       /* bs */
	RSP_REQ_REVERSE_CONTINUE,   /* bc */
	RSP_REQ_KILL,               /* k */
	RSP_REQ_VKILL,              /* vKill;<pid> */
	RSP_REQ_DETACH,             /* D[;pid] */
	RSP_REQ_XFER_READ,          /* qXfer:<object>:read:<annex>:<off>,<len> */
	RSP_REQ_MONITOR,            /* qRcmd,<hex text> */
	RSP_REQ_PASS_SIGNALS,       /* QPassSignals:<sig>[;<sig>]... */
	RSP_REQ_PROGRAM_SIGNALS,    /* QProgramSignals:... */
	RSP_REQ_NON_STOP,           /* QNonStop:<0|1> */
	RSP_REQ_SYMBOL,             /* qSymbol:... */
	RSP_REQ_HOST_INFO,          /* qHostInfo (LLDB) */
	RSP_REQ_PROCESS_INFO,       /* qProcessInfo (LLDB) */
	RSP_REQ_SHLIB_INFO_ADDR,    /* qShlibInfoAddr (LLDB) */
	RSP_REQ_MEMORY_REGION_INFO, /* qMemoryRegionInfo:<addr> (LLDB) */
	RSP_REQ_THREAD_SUFFIX,      /* QThreadSuffixSupported (LLDB) */
	RSP_REQ_THREADS_IN_STOP,    /* QListThreadsInStopReply (LLDB) */
	RSP_REQ_ERROR_STRINGS,      /* QEnableErrorStrings (LLDB) */
	RSP_REQ_THREAD_STOP_INFO,   /* qThreadStopInfo<tid> (LLDB) */
	RSP_REQ_SERVER_VERSION,     /* qGDBServerVersion (LLDB) */
	RSP_REQ_VFILE,              /* vFile:<op>:<args> (host I/O) */
	RSP_REQ_BTRACE,             /* Qbtrace:{bts,pt,off} */
	RSP_REQ_BTRACE_CONF,        /* Qbtrace-conf:{bts,pt}:size=<n> */
	RSP_REQ_COUNT,              /* not a request: the number of types */
};

/* Client features named in qSupported. */
enum rsp_client_feature {
	RSP_CLIENT_MULTIPROCESS = 1u << 0,
	RSP_CLIENT_SWBREAK = 1u << 1,
	RSP_CLIENT_HWBREAK = 1u << 2,
	RSP_CLIENT_VCONT_SUPPORTED = 1u << 3, /* GDB; we also take it to mean
					       * "E.text errors are understood" */
	RSP_CLIENT_NO_RESUMED = 1u << 4,
};

enum rsp_xfer_kind {
	RSP_XFER_KIND_FEATURES,
	RSP_XFER_KIND_THREADS,
	RSP_XFER_KIND_BTRACE,      /* annex all / new / delta, in .btrace_read */
	RSP_XFER_KIND_BTRACE_CONF,
	RSP_XFER_KIND_TARGET,      /* one of enum rsp_xfer_object, in .object */
};

#define RSP_VCONT_MAX 64

struct rsp_vcont_action {
	char action;               /* c C s S t r */
	int gdb_signo;             /* for C / S, GDB numbering */
	uint64_t range_start, range_end; /* for r */
	bool has_thread;           /* no thread: applies to all */
	struct rsp_ptid thread;
};

struct rsp_request {
	enum rsp_req_type type;
	int error;                 /* MALFORMED: why (negative errno) */
	const char *error_text;    /* MALFORMED: for E.text replies */

	/* A thread named by the packet (H, T, qThreadExtraInfo, qThreadStopInfo,
	 * LLDB's ;thread: suffix on g / G / p / P / m). */
	bool has_thread;
	struct rsp_ptid thread;

	union {
		unsigned client_features;   /* SUPPORTED: RSP_CLIENT_* */
		char thread_op;             /* SET_THREAD: 'g' or 'c' */
		struct {
			uint64_t addr;
			size_t len;
			const uint8_t *data;    /* WRITE_MEM, decoded */
		} mem;
		struct {
			unsigned regno;
			const uint8_t *data;    /* WRITE_REG / WRITE_REGS, decoded */
			size_t len;
		} reg;
		struct {
			enum rsp_point_type type;
			uint64_t addr;
			int kind;
		} point;
		struct {
			int gdb_signo;          /* 0 when none */
			bool has_addr;
			uint64_t addr;
		} resume;
		struct {
			size_t n;
			struct rsp_vcont_action actions[RSP_VCONT_MAX];
		} vcont;
		struct {
			enum rsp_xfer_kind kind;
			enum rsp_xfer_object object;
			enum rsp_btrace_read btrace_read;
			const char *annex;      /* NUL-terminated, in the payload */
			uint64_t offset;
			uint64_t len;
		} xfer;
		struct {
			const char *text;       /* decoded, NUL-terminated */
		} monitor;
		struct {
			uint8_t host[RSP_NSIG]; /* host numbers, from GDB's */
			uint8_t raw[256];       /* the numbers as sent (LLDB's are
						 * the host's: rsp_client_host_signal) */
		} pass;                     /* PASS_SIGNALS */
		int64_t pid;                /* VKILL, DETACH, ATTACHED (-1: none) */
		bool flag;                  /* NON_STOP */
		uint64_t addr;              /* MEMORY_REGION_INFO */
		char *vfile_args;           /* VFILE: "<op>:<args>", writable */
		struct {
			bool off;               /* BTRACE: Qbtrace:off */
			enum rsp_btrace_format format; /* BTRACE (unless off), BTRACE_CONF */
			uint64_t size;          /* BTRACE_CONF */
		} btrace;
	} u;
};

/* Parses the @len payload bytes at @payload (modified in place; there must
 * be one writable byte after them for a NUL) into @req. Always returns 0:
 * failures are req->type RSP_REQ_UNKNOWN or RSP_REQ_MALFORMED. */
int rsp_request_parse(uint8_t *payload, size_t len, struct rsp_request *req);

/* Parses a thread id: `p<pid>.<tid>`, `p<pid>` (all its threads),
 * `<tid>`, `-1`, `0`. Advances *@p. 0 or -EINVAL. */
int rsp_ptid_parse(const char **p, const char *end, struct rsp_ptid *out);

#endif
