/*
 * tests/fuzz/fuzz_bundle.c: libFuzzer target over the bundle reader
 * (replay/model/bundle_load.c) and the per-cpu split (replay/model/percpu.c).
 *
 * The input is written as trace.json into a temporary directory that also
 * holds a tiny PT file (t.pt: a PSB+, a TSC, PSBEND), a context-switch
 * trace (s.cs: in and out of thread 2 around that TSC) and a tiny ELF file
 * (m.elf: one PT_LOAD of code with a bss, shorter than a page) the
 * manifest may name, and t.pt.sum, t.pt's checksums (replay/model/sums.h:
 * two blocks, the second one's crc wrong); a bundle that loads has its
 * checksums checked (replay/model/sums.c) and is then decoded, every thread to
 * its end, and each mapping's bytes are read around its ends at the
 * recording's end time. Any step may fail; none may crash, leak or hit
 * undefined behaviour.
 *
 * fuzz-build: replay/model/bundle*.c replay/model/percpu.c replay/model/perf_*.c replay/decode/decode.c replay/model/image.c replay/model/image_find.c replay/decode/insn.c replay/model/elf_load.c replay/model/sums.c dwarf/dw_elf.c dwarf/dw_access.c -lipt -ljansson -lelf -lZydis -lz
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>

#include "replay/model/bundle.h"
#include "replay/decode/decode.h"
#include "replay/model/image.h"
#include "replay/model/sums.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static const uint8_t pt[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82,                         /* PSB */
	0x19, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* TSC 0x10 */
	0x02, 0x23,                                     /* PSBEND */
	0x00, 0x00,
};

static void put_switch(uint8_t *p, int out, uint64_t time)
{
	uint32_t type = 15, pid = 1, tid = 2;
	uint16_t misc = out ? 1u << 13 : 0, rsize = 32;

	memset(p, 0, 32);
	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &rsize, 2);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &tid, 4);
	memcpy(p + 24, &time, 8);
}

static int write_file(const char *name, const void *p, size_t n)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* m.elf: a shared object whose one PT_LOAD (R E, at 0) has 0x200 bytes
 * in the file and 0x280 in memory; the file is 0x300 bytes of 0xaa. */
static int write_elf(void)
{
	uint8_t f[0x300];
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = 0x200,
			  .p_memsz = 0x280, .p_align = 0x1000 };

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memset(f, 0xaa, sizeof(f));
	memcpy(f, &eh, sizeof(eh));
	memcpy(f + sizeof(eh), &ph, sizeof(ph));
	return write_file("m.elf", f, sizeof(f));
}

static int setup(void)
{
	uint8_t cs[64], sums[REPLAY_SUMS_HEADER + 2 * REPLAY_SUMS_RECORD] = REPLAY_SUMS_MAGIC;

	snprintf(dir, sizeof(dir), "/tmp/fuzz_bundle.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	replay_sums_put(sums + REPLAY_SUMS_HEADER, 16, replay_sums_crc(0, pt, 16));
	replay_sums_put(sums + REPLAY_SUMS_HEADER + REPLAY_SUMS_RECORD, sizeof(pt) - 16, 1);
	put_switch(cs, 0, 1);
	put_switch(cs + 32, 1, 100);
	if (write_file("t.pt", pt, sizeof(pt)) || write_file("s.cs", cs, sizeof(cs)) ||
	    write_file("t.pt.sum", sums, sizeof(sums)) ||
	    write_elf())
		return -1;
	return 0;
}

/* Each mapping's bytes around its start and end, as the debugger reads. */
static void read_mappings(const struct replay_bundle *b)
{
	struct replay_image *img;
	struct pt_image *unused;
	uint8_t buf[64];

	if (replay_image_new(b, &img))
		return;
	if (replay_image_at(img, b->end_time, &unused) >= 0)
		for (size_t i = 0; i < b->nmaps && i < 16; i++) {
			uint64_t at[] = { b->maps[i].start, b->maps[i].start + b->maps[i].size - 16,
					  b->maps[i].start + b->maps[i].size };

			for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++)
				replay_image_read(img, 0, at[k], buf, sizeof(buf));
		}
	replay_image_free(img);
}

static void decode_all(const struct replay_bundle *b)
{
	for (size_t t = 0; t < b->nthreads; t++) {
		struct replay_decoder *d;
		struct replay_item it;
		int n = 0;

		if (replay_decoder_new(b, t, &d))
			continue;
		while (n++ < 10000 && replay_decoder_next(d, &it) == 1)
			;
		replay_decoder_free(d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct replay_bundle *b;
	char err[256];

	if (!ready) {
		if (setup())
			abort();
		ready = 1;
	}
	if (write_file("trace.json", data, size))
		return 0;
	if (replay_bundle_load(dir, &b, err, sizeof(err)) == 0) {
		replay_bundle_check_sums(b, NULL, REPLAY_SUMS_TRACES | REPLAY_SUMS_STATES);
		decode_all(b);
		read_mappings(b);
		replay_bundle_free(b);
	}
	return 0;
}
