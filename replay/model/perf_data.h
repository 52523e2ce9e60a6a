/*
 * replay/model/perf_data.h: a perf.data file of Intel PT (`perf record -e
 * intel_pt//u`, full-trace or --snapshot) as a hindsight recording.
 *
 * The reader walks the data section: PERF_RECORD_AUXTRACE_INFO gives the
 * decoder's configuration (replay/model/perf_ptinfo.h), each
 * PERF_RECORD_AUXTRACE record is followed in the file by `size` bytes of
 * PT, which are appended to the stream of its mmap index (one stream per
 * thread, or per cpu with per-cpu mmaps), and the kernel's sideband records
 * (MMAP / MMAP2, COMM, ITRACE_START, AUX, LOST, EXIT) go through
 * replay/model/perf_sideband.h into mappings and gaps. The result is a
 * struct replay_bundle (recorder "perf") plus the PT streams in memory;
 * replay_perf_data_write saves both as a bundle directory.
 *
 * Full-trace mode: a stream's records continue one another (AUX offsets);
 * a hole between them is trace the kernel or perf lost, recorded as a gap.
 * Snapshot mode: each AUXTRACE record is one snapshot, a separate segment;
 * what happened between two snapshots was not recorded (a gap), and each
 * snapshot may start with the end of an older, overwritten packet, which
 * the decoder skips by synchronizing at the next PSB.
 *
 * Per-cpu mmaps (perf's default for `perf record -- prog`): a stream is a
 * cpu's, its AUXTRACE records name no thread. With one thread seen and one
 * stream, the stream is that thread's. Otherwise the context-switch
 * records (PERF_RECORD_SWITCH, or SWITCH_CPU_WIDE when both are there;
 * perf writes them with --switch-events) split each cpu's stream into
 * PSB blocks of threads, as LLDB's per-cpu bundles are split
 * (replay/model/percpu.h): the bundle's threads get segments; without such
 * records the file is refused.
 *
 * Errors: one line in @err naming the offset ("perf.data: record at offset
 * 0x1234: size 0 is invalid"); nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_PERF_DATA_H
#define HINDSIGHT_REPLAY_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_file.h"
#include "replay/model/perf_ptinfo.h"

/* One PERF_RECORD_AUXTRACE's payload within its stream. */
struct replay_perf_segment {
	uint64_t file_offset;      /* of the payload in perf.data */
	uint64_t aux_offset;       /* the record's offset in the AUX area */
	uint64_t size;
	uint64_t stream_offset;    /* where it starts in the stream's data */
	uint64_t time;             /* of the sideband record before it */
};

struct replay_perf_stream {
	uint32_t idx;              /* perf's mmap index */
	int32_t cpu;               /* -1 for per-thread mmaps */
	int64_t tid;               /* -1 when unknown (per-cpu mmaps) */
	bool split;                /* per-cpu, split into the threads' segments */
	uint8_t *data;             /* the payloads, concatenated */
	size_t size;
	struct replay_perf_segment *segs;
	size_t nsegs;
};

struct replay_perf_data {
	struct replay_perf_file file;          /* header, attrs, features (buf cleared) */
	const struct replay_perf_attr *pt_attr;/* the intel_pt event, in file.attrs */
	struct replay_perf_ptinfo info;
	bool have_info;
	struct replay_perf_stream *streams;
	size_t nstreams;
	struct replay_bundle *bundle;          /* owned; see _detach_bundle */
};

/* Reads the perf.data in @buf (@len bytes; need not outlive the result).
 * @name is the file's name for messages. Returns 0; -EINVAL, -ENOTSUP,
 * -EBADMSG (see replay_perf_file_parse, plus: a record cut short, of size
 * 0, or running past the data section; an AUXTRACE payload past the end;
 * no intel_pt event or no AUXTRACE_INFO; perf record -z compression),
 * -ENOTSUP (per-cpu trace of several threads without switch records),
 * -ENOMEM, or replay_percpu_split_mem's errors; with a line in @err. */
int replay_perf_data_parse(const void *buf, size_t len, const char *name,
			   struct replay_perf_data **out, char *err, size_t errsize);

/* replay_perf_data_parse on the file at @path (mapped read-only). Also
 * -errno of open / fstat / mmap with "PATH: strerror". */
int replay_perf_data_read(const char *path, struct replay_perf_data **out, char *err,
			  size_t errsize);

/* Saves @pd as a bundle in @dir (created if missing): each stream as
 * threads/TID.pt, a thread of split per-cpu streams as its segments one
 * after the other in threads/TID.pt (the segments, kept in trace.json,
 * then point there: call this once), the threads added to the bundle, and
 * trace.json. 0 or a negative errno with a line in @err. */
int replay_perf_data_write(struct replay_perf_data *pd, const char *dir, char *err,
			   size_t errsize);

/* @pd's bundle in memory, now the caller's: each stream's bytes taken
 * from it as the in-memory file replay_perf_data_write would write (a
 * thread's threads/TID.pt; a split cpu's cpus/CPU.pt, which the threads'
 * segments name), the threads added. Nothing is written. 0, or -ENOTSUP
 * (a thread's trace in two streams) or -ENOMEM with a line in @err; @pd is
 * then only fit to be freed. */
int replay_perf_data_to_bundle(struct replay_perf_data *pd, struct replay_bundle **out,
			       char *err, size_t errsize);

/* The bundle, now the caller's (pd->bundle becomes NULL). */
struct replay_bundle *replay_perf_data_detach_bundle(struct replay_perf_data *pd);

/* The per-cpu stream of cpu @cpu split into threads' segments (those
 * naming "cpus/CPU.pt"), or NULL. */
const struct replay_perf_stream *replay_perf_data_cpu_stream(const struct replay_perf_data *pd,
							     uint32_t cpu);

/* The stream of thread @tid (or, with per-cpu mmaps, of the cpu the single
 * traced thread ran on), or NULL. */
const struct replay_perf_stream *replay_perf_data_stream(const struct replay_perf_data *pd,
							 int64_t tid);

void replay_perf_data_free(struct replay_perf_data *pd);

#endif
