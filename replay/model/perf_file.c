/*
 * replay/model/perf_file.c: perf.data's header, attributes and features
 * (replay/model/perf_file.h).
 *
 * Layouts are perf's (tools/perf/util/header.h): a 104-byte header of
 * magic, header size, attribute entry size, three file sections (attrs,
 * data, event_types) and a 256-bit feature bitmap. Strings in feature
 * sections are a u32 length (NUL and padding included) and the bytes.
 */
#include "replay/model/perf_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERF_MAGIC2 0x32454c4946524550ULL    /* "PERFILE2" little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_HEADER_SIZE 104
#define PERF_PIPE_HEADER_SIZE 16
#define BUILD_ID_MISC_SIZE (1 << 15)         /* perf's PERF_RECORD_MISC_BUILD_ID_SIZE */

struct section {
	uint64_t offset, size;
};

static int fail(char *err, size_t errsize, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errsize, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && errsize)
		vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return rc;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Whether [@off, @off + @size) lies within the file. */
static bool inside(const struct replay_perf_file *f, uint64_t off, uint64_t size)
{
	return off <= f->len && size <= f->len - off;
}

static int check_section(const struct replay_perf_file *f, const char *what, uint64_t at,
			 struct section s, char *err, size_t errsize)
{
	if (inside(f, s.offset, s.size))
		return 0;
	return fail(err, errsize, -EBADMSG,
		    "%s at offset 0x%llx: offset 0x%llx size 0x%llx runs past the end of the "
		    "file (0x%zx bytes)", what, (unsigned long long)at,
		    (unsigned long long)s.offset, (unsigned long long)s.size, f->len);
}

static struct section section_at(const uint8_t *p)
{
	return (struct section){ rd64(p), rd64(p + 8) };
}

static int parse_attr(struct replay_perf_file *f, struct replay_perf_attr *a, uint64_t at,
		      uint64_t entry_size, char *err, size_t errsize)
{
	const uint8_t *p = f->buf + at;
	uint32_t asize = rd32(p + 4);   /* perf_event_attr.size */
	struct section ids;
	size_t n;
	int rc;

	if (!asize)
		asize = PERF_ATTR_SIZE_VER0;
	if (asize < PERF_ATTR_SIZE_VER0 || asize > entry_size - 16)
		return fail(err, errsize, -EBADMSG,
			    "attribute at offset 0x%llx: size %u does not fit its entry (%llu bytes)",
			    (unsigned long long)at, asize, (unsigned long long)entry_size);
	memset(&a->attr, 0, sizeof(a->attr));
	memcpy(&a->attr, p, asize < sizeof(a->attr) ? asize : sizeof(a->attr));
	ids = section_at(p + entry_size - 16);
	rc = check_section(f, "attribute ids", at + entry_size - 16, ids, err, errsize);
	if (rc)
		return rc;
	n = ids.size / 8;
	a->ids = n ? calloc(n, 8) : NULL;
	if (n && !a->ids)
		return -ENOMEM;
	if (n)
		memcpy(a->ids, f->buf + ids.offset, n * 8);
	a->nids = n;
	return 0;
}

static int parse_attrs(struct replay_perf_file *f, char *err, size_t errsize)
{
	uint64_t entry = rd64(f->buf + 16);
	struct section s = section_at(f->buf + 24);
	int rc = check_section(f, "attribute section", 24, s, err, errsize);

	if (rc)
		return rc;
	if (entry < PERF_ATTR_SIZE_VER0 + 16 || entry > 4096)
		return fail(err, errsize, -EBADMSG, "header at offset 0x10: attribute size %llu "
			    "is invalid", (unsigned long long)entry);
	if (s.size % entry)
		return fail(err, errsize, -EBADMSG, "attribute section at offset 0x%llx: size "
			    "%llu is not a multiple of %llu", (unsigned long long)s.offset,
			    (unsigned long long)s.size, (unsigned long long)entry);
	f->nattrs = s.size / entry;
	f->attrs = f->nattrs ? calloc(f->nattrs, sizeof(*f->attrs)) : NULL;
	if (f->nattrs && !f->attrs)
		return -ENOMEM;
	for (size_t i = 0; i < f->nattrs && !rc; i++)
		rc = parse_attr(f, &f->attrs[i], s.offset + i * entry, entry, err, errsize);
	return rc;
}

/* A feature string at *@pos within [.., @end); advances *@pos. */
static int feat_string(const struct replay_perf_file *f, uint64_t *pos, uint64_t end,
		       char **out, char *err, size_t errsize)
{
	uint32_t n;

	if (end - *pos < 4)
		goto bad;
	n = rd32(f->buf + *pos);
	if (n > end - *pos - 4)
		goto bad;
	*out = strndup((const char *)f->buf + *pos + 4, n);
	if (!*out)
		return -ENOMEM;
	*pos += 4 + (uint64_t)n;
	return 0;
bad:
	return fail(err, errsize, -EBADMSG, "feature string at offset 0x%llx runs past its "
		    "section", (unsigned long long)*pos);
}

static int feat_cmdline(struct replay_perf_file *f, struct section s, char *err, size_t errsize)
{
	uint64_t pos = s.offset + 4, end = s.offset + s.size;
	uint32_t n;
	int rc = 0;

	if (s.size < 4)
		return fail(err, errsize, -EBADMSG, "HEADER_CMDLINE at offset 0x%llx is empty",
			    (unsigned long long)s.offset);
	n = rd32(f->buf + s.offset);
	if (n > s.size / 4)
		return fail(err, errsize, -EBADMSG, "HEADER_CMDLINE at offset 0x%llx: %u "
			    "arguments cannot fit", (unsigned long long)s.offset, n);
	f->cmdline = calloc((size_t)n + 1, sizeof(char *));
	if (!f->cmdline)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = feat_string(f, &pos, end, &f->cmdline[i], err, errsize);
	return rc;
}

static int add_build_id(struct replay_perf_file *f, const uint8_t *p, uint16_t misc,
			uint16_t size)
{
	struct replay_perf_build_id *bi;
	size_t idlen = 20;

	bi = realloc(f->build_ids, (f->nbuild_ids + 1) * sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	f->build_ids = bi;
	bi += f->nbuild_ids;
	bi->pid = (int32_t)rd32(p + 8);
	if ((misc & BUILD_ID_MISC_SIZE) && p[12 + 20] <= 20)
		idlen = p[12 + 20];
	for (size_t i = 0; i < idlen; i++)
		sprintf(bi->hex + 2 * i, "%02x", p[12 + i]);
	bi->hex[2 * idlen] = 0;
	bi->filename = strndup((const char *)p + 36, size - 36u);
	if (!bi->filename)
		return -ENOMEM;
	f->nbuild_ids++;
	return 0;
}

/* HEADER_BUILD_ID: records of {header, pid, build_id[24], filename}. */
static int feat_build_id(struct replay_perf_file *f, struct section s, char *err,
			 size_t errsize)
{
	uint64_t pos = s.offset, end = s.offset + s.size;
	int rc = 0;

	while (pos < end && !rc) {
		const uint8_t *p = f->buf + pos;
		uint16_t size;

		if (end - pos < 8 || (size = (uint16_t)(rd32(p + 4) >> 16)) < 36 ||
		    size > end - pos)
			return fail(err, errsize, -EBADMSG, "HEADER_BUILD_ID entry at offset "
				    "0x%llx: size is invalid", (unsigned long long)pos);
		rc = add_build_id(f, p, (uint16_t)(rd32(p + 4) & 0xffff), size);
		pos += size;
	}
	return rc;
}

static int parse_feature(struct replay_perf_file *f, unsigned bit, struct section s,
			 char *err, size_t errsize)
{
	uint64_t pos = s.offset;

	switch (bit) {
	case REPLAY_PERF_FEAT_CPUID:
		return feat_string(f, &pos, s.offset + s.size, &f->cpuid, err, errsize);
	case REPLAY_PERF_FEAT_CPUDESC:
		return feat_string(f, &pos, s.offset + s.size, &f->cpudesc, err, errsize);
	case REPLAY_PERF_FEAT_OSRELEASE:
		return feat_string(f, &pos, s.offset + s.size, &f->osrelease, err, errsize);
	case REPLAY_PERF_FEAT_CMDLINE:
		return feat_cmdline(f, s, err, errsize);
	case REPLAY_PERF_FEAT_BUILD_ID:
		return feat_build_id(f, s, err, errsize);
	case REPLAY_PERF_FEAT_NRCPUS:
		if (s.size >= 4)
			f->nrcpus_avail = rd32(f->buf + s.offset);
		return 0;
	default:
		return 0;
	}
}

/* perf's name of feature @bit and what it holds; NULL for a bit perf
 * does not name. */
static const char *feat_name(unsigned bit, const char **what)
{
	static const char *const names[][2] = {
		[1] = { "HEADER_TRACING_DATA", "tracepoint formats" },
		[2] = { "HEADER_BUILD_ID", "the images' build-ids" },
		[3] = { "HEADER_HOSTNAME", "the host name" },
		[4] = { "HEADER_OSRELEASE", "the kernel release" },
		[5] = { "HEADER_VERSION", "perf's version" },
		[6] = { "HEADER_ARCH", "the architecture" },
		[7] = { "HEADER_NRCPUS", "the number of cpus" },
		[8] = { "HEADER_CPUDESC", "the CPU's name" },
		[9] = { "HEADER_CPUID", "the CPU's family, model and stepping" },
		[10] = { "HEADER_TOTAL_MEM", "the memory size" },
		[11] = { "HEADER_CMDLINE", "perf's command line" },
		[12] = { "HEADER_EVENT_DESC", "the events' names" },
		[13] = { "HEADER_CPU_TOPOLOGY", "the CPU topology" },
		[14] = { "HEADER_NUMA_TOPOLOGY", "the NUMA topology" },
		[15] = { "HEADER_BRANCH_STACK", "the branch stack flag" },
		[16] = { "HEADER_PMU_MAPPINGS", "the PMUs' names" },
		[17] = { "HEADER_GROUP_DESC", "the event groups" },
		[18] = { "HEADER_AUXTRACE", "perf's index of the AUX data" },
		[19] = { "HEADER_STAT", "the stat flag" },
		[20] = { "HEADER_CACHE", "the CPU caches" },
		[21] = { "HEADER_SAMPLE_TIME", "the first and last sample times" },
		[22] = { "HEADER_MEM_TOPOLOGY", "the memory topology" },
		[23] = { "HEADER_CLOCKID", "the clock id" },
		[24] = { "HEADER_DIR_FORMAT", "the directory format" },
		[25] = { "HEADER_BPF_PROG_INFO", "BPF programs" },
		[26] = { "HEADER_BPF_BTF", "BPF types" },
		[27] = { "HEADER_COMPRESSED", "the compression" },
		[28] = { "HEADER_CPU_PMU_CAPS", "the CPU PMU's capabilities" },
		[29] = { "HEADER_CLOCK_DATA", "the clock data" },
		[30] = { "HEADER_HYBRID_TOPOLOGY", "the hybrid topology" },
		[31] = { "HEADER_PMU_CAPS", "the PMUs' capabilities" },
	};

	if (bit < sizeof(names) / sizeof(names[0]) && names[bit][0]) {
		*what = names[bit][1];
		return names[bit][0];
	}
	*what = "a feature perf does not name";
	return NULL;
}

/* What losing feature @bit costs, or NULL when decoding needs it. */
static const char *feat_loss(unsigned bit)
{
	switch (bit) {
	case REPLAY_PERF_FEAT_CPUID:
		return NULL;    /* libipt's errata workarounds depend on the CPU */
	case REPLAY_PERF_FEAT_BUILD_ID:
		return "images are taken by path and name, their build unchecked";
	default:
		return "decoding does not use it";
	}
}

static int add_note(struct replay_perf_file *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int add_note(struct replay_perf_file *f, const char *fmt, ...)
{
	char **v;
	va_list ap;
	int n;

	v = realloc(f->notes, (f->nnotes + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->notes = v;
	va_start(ap, fmt);
	n = vasprintf(&v[f->nnotes], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	f->nnotes++;
	return 0;
}

/* Undoes what a failed parse_feature of @bit kept (the build-ids from
 * @nbuild_ids on, the command line). */
static void drop_feature(struct replay_perf_file *f, unsigned bit, size_t nbuild_ids)
{
	if (bit == REPLAY_PERF_FEAT_BUILD_ID) {
		for (size_t i = nbuild_ids; i < f->nbuild_ids; i++)
			free(f->build_ids[i].filename);
		f->nbuild_ids = nbuild_ids;
	} else if (bit == REPLAY_PERF_FEAT_CMDLINE) {
		for (char **a = f->cmdline; a && *a; a++)
			free(*a);
		free(f->cmdline);
		f->cmdline = NULL;
	}
}

/* Feature @bit is damaged for @why: a note saying what is lost, or the
 * error when decoding needs it. */
static int lose_feature(struct replay_perf_file *f, unsigned bit, const char *why, char *err,
			size_t errsize)
{
	const char *what, *name = feat_name(bit, &what), *loss = feat_loss(bit);
	char unnamed[32];

	if (!name) {
		snprintf(unnamed, sizeof(unnamed), "feature bit %u", bit);
		name = unnamed;
	}
	if (!loss)
		return fail(err, errsize, -EBADMSG, "%s (%s): %s, and decoding needs it", name,
			    what, why);
	return add_note(f, "%s (%s) skipped: %s; %s", name, what, why, loss);
}

/* The feature table runs past the end of the file at @table: every
 * feature from @first on is lost. */
static int lose_table(struct replay_perf_file *f, unsigned first, uint64_t table, char *err,
		      size_t errsize)
{
	char why[128];
	int rc = 0;

	snprintf(why, sizeof(why), "the feature table at offset 0x%llx is cut short by the "
		 "end of the file (0x%zx bytes)", (unsigned long long)table, f->len);
	for (unsigned bit = first; bit < REPLAY_PERF_FEAT_BITS && !rc; bit++) {
		if (!(f->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		rc = lose_feature(f, bit, why, err, errsize);
	}
	return rc;
}

/* Each feature in bit order. One that is damaged or cut short (a copy
 * missing its end, as perf script still reads) is skipped with a note,
 * unless decoding needs it. */
static int parse_features(struct replay_perf_file *f, char *err, size_t errsize)
{
	uint64_t table = f->data_offset + f->data_size;
	int rc = 0;

	for (unsigned bit = 0; bit < REPLAY_PERF_FEAT_BITS && !rc; bit++) {
		size_t nbuild_ids = f->nbuild_ids;
		char why[256] = "";
		struct section s;

		if (!(f->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!inside(f, table, 16))
			return lose_table(f, bit, table, err, errsize);
		s = section_at(f->buf + table);
		if (inside(f, s.offset, s.size))
			rc = parse_feature(f, bit, s, why, sizeof(why));
		else
			rc = fail(why, sizeof(why), -EBADMSG, "its 0x%llx bytes at offset 0x%llx "
				  "run past the end of the file (0x%zx bytes)",
				  (unsigned long long)s.size, (unsigned long long)s.offset, f->len);
		if (rc == -EBADMSG) {
			drop_feature(f, bit, nbuild_ids);
			rc = lose_feature(f, bit, why, err, errsize);
		}
		table += 16;
	}
	return rc;
}

static int parse_header(struct replay_perf_file *f, char *err, size_t errsize)
{
	struct section data;
	uint64_t magic, hsize;

	if (f->len < 16)
		return fail(err, errsize, -EINVAL, "not a perf.data file (%zu bytes)", f->len);
	magic = rd64(f->buf);
	hsize = rd64(f->buf + 8);
	if (magic == PERF_MAGIC2_SWAPPED)
		return fail(err, errsize, -ENOTSUP, "big-endian perf.data files are not supported");
	if (magic != PERF_MAGIC2)
		return fail(err, errsize, -EINVAL, "not a perf.data file (bad magic)");
	if (hsize == PERF_PIPE_HEADER_SIZE)
		return fail(err, errsize, -ENOTSUP, "pipe-mode perf.data (perf record -o -) is "
			    "not supported: record to a file");
	if (hsize != PERF_HEADER_SIZE)
		return fail(err, errsize, -ENOTSUP, "header at offset 0x8: header size %llu is "
			    "not the known %d", (unsigned long long)hsize, PERF_HEADER_SIZE);
	if (f->len < PERF_HEADER_SIZE)
		return fail(err, errsize, -EBADMSG, "header at offset 0x0: the file ends at 0x%zx, "
			    "inside the %d-byte header", f->len, PERF_HEADER_SIZE);
	data = section_at(f->buf + 40);
	if (check_section(f, "data section", 40, data, err, errsize))
		return -EBADMSG;
	f->data_offset = data.offset;
	f->data_size = data.size;
	memcpy(f->features, f->buf + 72, sizeof(f->features));
	return 0;
}

int replay_perf_file_parse(struct replay_perf_file *f, const uint8_t *buf, size_t len,
			   char *err, size_t errsize)
{
	int rc;

	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->len = len;
	rc = parse_header(f, err, errsize);
	if (!rc)
		rc = parse_attrs(f, err, errsize);
	if (!rc)
		rc = parse_features(f, err, errsize);
	if (rc == -ENOMEM)
		fail(err, errsize, rc, "out of memory");
	if (rc)
		replay_perf_file_release(f);
	return rc;
}

void replay_perf_file_release(struct replay_perf_file *f)
{
	for (size_t i = 0; i < f->nattrs; i++)
		free(f->attrs[i].ids);
	free(f->attrs);
	free(f->cpuid);
	free(f->cpudesc);
	free(f->osrelease);
	for (char **a = f->cmdline; a && *a; a++)
		free(*a);
	free(f->cmdline);
	for (size_t i = 0; i < f->nbuild_ids; i++)
		free(f->build_ids[i].filename);
	free(f->build_ids);
	for (size_t i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	memset(f, 0, sizeof(*f));
}

const struct replay_perf_attr *replay_perf_file_attr_by_id(const struct replay_perf_file *f,
							   uint64_t id)
{
	for (size_t i = 0; i < f->nattrs; i++)
		for (size_t j = 0; j < f->attrs[i].nids; j++)
			if (f->attrs[i].ids[j] == id)
				return &f->attrs[i];
	return NULL;
}
