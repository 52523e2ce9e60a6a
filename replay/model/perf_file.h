/*
 * replay/model/perf_file.h: the frame of a perf.data file.
 *
 * perf.data ("PERFILE2") is a file header, an array of event attributes
 * (each a perf_event_attr followed by the file section of its sample ids),
 * the data section (a sequence of records, replay/model/perf_data.c walks it),
 * and after the data section one file section per feature bit set in the
 * header's bitmap, in bit order. This reads the header, the attributes and
 * the features hindsight uses (HEADER_CPUID, HEADER_CMDLINE,
 * HEADER_BUILD_ID, HEADER_OSRELEASE, HEADER_NRCPUS) from a buffer holding
 * the whole file. Pipe-mode files (written to a pipe: attributes and
 * features as records) are refused. Every offset and size is checked
 * against the buffer; errors name the offset of what is wrong.
 *
 * The features come last in the file, so a copy cut short loses them
 * first: a feature whose table entry or section is cut short or damaged is
 * skipped with a note saying what is lost (as perf script reads on
 * without it), except HEADER_CPUID, which decoding needs (libipt's errata
 * workarounds depend on the CPU): that is an error.
 */
#ifndef HINDSIGHT_REPLAY_PERF_FILE_H
#define HINDSIGHT_REPLAY_PERF_FILE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Feature bits of perf.data's header (perf's enum of HEADER_*). */
enum {
	REPLAY_PERF_FEAT_BUILD_ID = 2,
	REPLAY_PERF_FEAT_OSRELEASE = 4,
	REPLAY_PERF_FEAT_NRCPUS = 7,
	REPLAY_PERF_FEAT_CPUDESC = 8,
	REPLAY_PERF_FEAT_CPUID = 9,
	REPLAY_PERF_FEAT_CMDLINE = 11,
	REPLAY_PERF_FEAT_AUXTRACE = 18,
	REPLAY_PERF_FEAT_BITS = 256,
};

struct replay_perf_attr {
	struct perf_event_attr attr;   /* zero-extended or cut to this kernel's size */
	uint64_t *ids;                 /* the sample ids of this event */
	size_t nids;
};

/* A build-id from HEADER_BUILD_ID. */
struct replay_perf_build_id {
	int32_t pid;
	char hex[41];
	char *filename;
};

struct replay_perf_file {
	const uint8_t *buf;            /* borrowed: must outlive this */
	size_t len;
	uint64_t data_offset, data_size;
	uint64_t features[REPLAY_PERF_FEAT_BITS / 64];
	struct replay_perf_attr *attrs;
	size_t nattrs;
	char *cpuid;                   /* "GenuineIntel,6,94,3", or NULL */
	char *cpudesc;
	char *osrelease;
	char **cmdline;                /* perf's own argv, NULL-terminated, or NULL */
	uint32_t nrcpus_avail;
	struct replay_perf_build_id *build_ids;
	size_t nbuild_ids;
	/* Features skipped because their section is damaged or cut short,
	 * one line each saying what is lost. */
	char **notes;
	size_t nnotes;
};

/* Parses the header, attributes and features of the perf.data in @buf.
 * Returns 0; -EINVAL with "not a perf.data file (bad magic)",
 * -ENOTSUP for pipe-mode files or a header size it does not know, -EBADMSG
 * for a header, attribute or HEADER_CPUID that is cut short or points
 * outside the file ("attribute section at offset 0x68: size 0x1000 runs
 * past the end of the file (0x8000 bytes)"), -ENOMEM. @err gets the
 * one-line reason. Other damaged features are f->notes. On failure *@f is
 * released. */
int replay_perf_file_parse(struct replay_perf_file *f, const uint8_t *buf, size_t len,
			   char *err, size_t errsize);
void replay_perf_file_release(struct replay_perf_file *f);

/* The attribute whose ids include @id, or NULL. */
const struct replay_perf_attr *replay_perf_file_attr_by_id(const struct replay_perf_file *f,
							   uint64_t id);

#endif
