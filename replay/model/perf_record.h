/*
 * replay/model/perf_record.h: one perf sideband record, parsed.
 *
 * The kernel writes PERF_RECORD_* records into a perf event's DATA area,
 * and perf copies them into perf.data. Each starts with a perf_event_header
 * (type, misc, size) and, when the event has sample_id_all, ends with a
 * trailer of the sample_type fields TID, TIME, ID, STREAM_ID, CPU,
 * IDENTIFIER (in that order, each present only if its bit is set). This
 * parser turns the bytes of one record into a typed value; it is shared by
 * the perf.data reader (replay/model/perf_data.c) and the hardware recorder's
 * DATA area (stub/recorders/stub_hwpt_sideband.c). Pure: no I/O, nothing allocated;
 * strings in the result point into the caller's buffer.
 */
#ifndef HINDSIGHT_REPLAY_PERF_RECORD_H
#define HINDSIGHT_REPLAY_PERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the records of one event end: its attr's sample_id_all and
 * sample_type. */
struct replay_perf_sid_layout {
	bool sample_id_all;
	uint64_t sample_type;
};

/* The sample_id trailer; a field is valid if its has_ flag is set. */
struct replay_perf_sample_id {
	bool has_tid, has_time, has_id, has_cpu;
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

struct replay_perf_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	bool has_prot;             /* MMAP2: prot / flags are known */
	uint32_t prot, flags;
	uint8_t build_id_size;     /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id[20];
	const char *filename;      /* NUL-terminated, inside the record */
};

struct replay_perf_record {
	uint32_t type;             /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	union {
		struct replay_perf_mmap mmap;  /* MMAP, MMAP2 */
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint32_t pid, tid; } itrace_start;
		struct { uint64_t aux_offset, aux_size, flags; } aux;
		struct { uint64_t id, lost; } lost;
		/* FORK, EXIT */
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task;
		/* SWITCH (no pid / tid), SWITCH_CPU_WIDE */
		struct { bool out; uint32_t pid, tid; } sw;
		struct { uint64_t lost; } lost_samples;
	} u;
	struct replay_perf_sample_id sid;
};

/* Bytes of the sample_id trailer for @l (0 without sample_id_all). */
size_t replay_perf_sid_size(const struct replay_perf_sid_layout *l);

/* Parses the record at @buf (@len bytes available, at least the record's
 * header.size). Record types this parser does not know are returned with
 * only type / misc / size filled. Returns the record's size (> 0), or:
 * -EAGAIN if @len is shorter than the header or the header's size (the
 * record is incomplete), -EBADMSG if the record is malformed (size below
 * the header, body shorter than its fields and
 * trailer, a string without its NUL). *@why (if not NULL) is then a static
 * one-line reason. */
int replay_perf_record_parse(const void *buf, size_t len,
			     const struct replay_perf_sid_layout *l,
			     struct replay_perf_record *out, const char **why);

/* The time of the PERF_RECORD_SAMPLE at @buf (@len bytes, at least its
 * header's size) of an event with @sample_type: a sample's body starts
 * with IDENTIFIER, IP, TID and TIME, each there if its bit is set. 0 with
 * *@time set, -ENOENT if the event samples no time, -EBADMSG if the record
 * is too short to hold it. */
int replay_perf_sample_time(const void *buf, size_t len, uint64_t sample_type, uint64_t *time);

/* The record type's name ("MMAP2", "AUX", ...), or "unknown". */
const char *replay_perf_record_name(uint32_t type);

#endif
