/*
 * tests/unit/test_replay_image.c: the bytes an image mapping reads, as
 * the loader and the kernel make them.
 *
 * A constructed ELF file (one PT_LOAD of code with a bss: file size 0x200,
 * memory size 0x280, the file's bytes 0xaa after its headers, 0x300 bytes
 * long) mapped a page at a time, as perf and /proc/PID/maps give it: its
 * file bytes, zero from the segment's file size to the end of that page
 * (the loader clears it) although the file holds 0xaa there, zero past the
 * file's end in its last page, nothing in a page wholly past the end, a
 * read crossing a mapping's end answered up to it. Then DynamoRIO's real
 * `hello` (shared/ptdata) as `import --elf` maps it: its code ends at its
 * segment's end, 0x401027, and the rest of that page is the file's.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/model/image.h"

#define HELLO HINDSIGHT_SHARED "/ptdata/dynamorio/test_simple/hello"
#define FILE_SIZE 0x300
#define FILESZ 0x200
#define MEMSZ 0x280

static char path[64];

/* Writes the constructed ELF file at @path (type @type). */
static void write_elf(uint16_t type)
{
	uint8_t f[FILE_SIZE];
	Elf64_Ehdr eh = { .e_type = type, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			  .p_vaddr = 0x400000, .p_paddr = 0x400000, .p_filesz = FILESZ,
			  .p_memsz = MEMSZ, .p_align = 0x1000 };
	FILE *out;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memset(f, 0xaa, sizeof(f));
	memcpy(f, &eh, sizeof(eh));
	memcpy(f + sizeof(eh), &ph, sizeof(ph));
	out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(f, 1, sizeof(f), out), sizeof(f));
	assert_int_equal(fclose(out), 0);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_replay_image.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unlink(path);
}

/* A bundle mapping @file at @start (@size bytes from @offset), and its
 * image at time 0. */
static struct replay_image *image_of(struct replay_bundle **b, const char *file,
				     uint64_t start, uint64_t size, uint64_t offset)
{
	struct replay_mapping m = { .time_unmap = REPLAY_TIME_NEVER, .start = start,
				    .size = size, .offset = offset, .file = (char *)file,
				    .system_path = (char *)file };
	struct replay_image *img;
	struct pt_image *unused;

	assert_int_equal(replay_bundle_new(b), 0);
	assert_true(replay_bundle_add_mapping(*b, &m) >= 0);
	assert_int_equal(replay_image_new(*b, &img), 0);
	assert_true(replay_image_at(img, 0, &unused) >= 0);
	return img;
}

/* Reads @len bytes at @addr: what came, each byte checked against @want
 * (-1: any) up to @n. */
static void expect_read(struct replay_image *img, uint64_t addr, size_t len, int n,
			const int *want)
{
	uint8_t buf[64];

	assert_true(len <= sizeof(buf));
	assert_int_equal(replay_image_read(img, 0, addr, buf, len), n);
	for (int i = 0; i < n; i++)
		if (want[i] >= 0 && buf[i] != want[i])
			fail_msg("byte %d at 0x%llx: 0x%02x, want 0x%02x", i,
				 (unsigned long long)addr + (unsigned)i, buf[i], want[i]);
}

static void test_bss_and_page_end(void **state)
{
	struct replay_bundle *b;
	struct replay_image *img;
	int want[32];

	(void)state;
	write_elf(ET_EXEC);
	img = image_of(&b, path, 0x400000, 0x2000, 0);
	/* the file's bytes, then the bss: zero although the file has 0xaa */
	for (int i = 0; i < 32; i++)
		want[i] = i < 16 ? 0xaa : 0;
	expect_read(img, 0x400000 + FILESZ - 16, 32, 32, want);
	/* past the memory size: still zero to the page's end */
	for (int i = 0; i < 32; i++)
		want[i] = 0;
	expect_read(img, 0x400000 + MEMSZ - 8, 32, 32, want);
	/* past the file's end in its last page: zero; the page ends the read */
	expect_read(img, 0x400000 + FILE_SIZE - 8, 16, 16, want);
	expect_read(img, 0x401000 - 8, 16, 8, want);
	/* a page wholly past the file's end faults */
	expect_read(img, 0x401000, 16, -ENOENT, want);
	replay_image_free(img);
	replay_bundle_free(b);
}

/* A read crossing the mapping's end: the bytes up to it. */
static void test_partial_at_mapping_end(void **state)
{
	struct replay_bundle *b;
	struct replay_image *img;
	int want[16];

	(void)state;
	write_elf(ET_EXEC);
	img = image_of(&b, path, 0x400000, FILESZ - 8, 0);
	for (int i = 0; i < 16; i++)
		want[i] = 0xaa;
	expect_read(img, 0x400000 + FILESZ - 16, 16, 8, want);
	expect_read(img, 0x400000 + FILESZ - 8, 16, -ENOENT, want);
	replay_image_free(img);
	replay_bundle_free(b);
}

/* DynamoRIO's hello as `import --elf` maps it: the code segment
 * (0x401000, 0x27 bytes, filesz == memsz) as whole pages; the bytes after
 * its end are the file's, as the kernel maps them. */
static void test_code_at_segment_end(void **state)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	struct replay_bundle *b;
	struct replay_image *img;
	uint8_t file[32];
	int want[32], n, x = -1;
	FILE *f;

	(void)state;
	if (access(HELLO, R_OK) != 0)
		skip();
	n = replay_elf_load_segments(HELLO, segs);
	for (int i = 0; i < n; i++)
		if (segs[i].executable)
			x = i;
	assert_true(x >= 0);
	assert_int_equal(segs[x].vaddr, 0x401000);
	assert_int_equal(segs[x].file_end, 0x401027);
	assert_int_equal(segs[x].pages, 0x1000);
	f = fopen(HELLO, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)segs[x].offset + 0x20, SEEK_SET), 0);
	assert_int_equal(fread(file, 1, sizeof(file), f), sizeof(file));
	fclose(f);
	for (int i = 0; i < 32; i++)
		want[i] = file[i];
	img = image_of(&b, HELLO, segs[x].vaddr, segs[x].pages, segs[x].offset);
	/* the last syscall (0f 05 at 0x401025) and 15 bytes from it, as a
	 * decoder asks */
	expect_read(img, 0x401020, 32, 32, want);
	assert_int_equal(want[5], 0x0f);
	assert_int_equal(want[6], 0x05);
	replay_image_free(img);
	replay_bundle_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bss_and_page_end),
		cmocka_unit_test(test_partial_at_mapping_end),
		cmocka_unit_test(test_code_at_segment_end),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
