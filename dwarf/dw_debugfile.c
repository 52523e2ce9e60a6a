/* dw_debugfile: separate debug files by build-id and .gnu_debuglink; see
 * dw_debugfile.h. */
#include "dwarf/dw_debugfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"

static const char dw_debug_root[] = "/usr/lib/debug";

uint32_t dw_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static int dw_file_crc(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	int fd = dw_open_regular(path);
	ssize_t n;

	if (fd < 0)
		return fd;
	*crc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*crc = dw_crc32(*crc, buf, (size_t)n);
	close(fd);
	return n < 0 ? -EIO : 0;
}

/* Opens @path if it is an ELF file with DWARF. */
static int dw_try(const char *path, struct dw_elf **out)
{
	int rc = dw_elf_open(path, out);

	if (rc == 0 && !dw_elf_has_data(*out, ".debug_info")) {
		dw_elf_free(*out);
		*out = NULL;
		return -ENODATA;
	}
	return rc;
}

static int dw_by_build_id(struct dw_elf *img, struct dw_elf **out, char *found, size_t max)
{
	const uint8_t *id, *id2;
	size_t n = dw_elf_build_id(img, &id), len;
	char hex[2 * 64 + 1];

	if (n < 2 || n > 64)
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(found, max, "%s/.build-id/%.2s/%s.debug", dw_debug_root, hex, hex + 2);
	if (dw_try(found, out) != 0)
		return -ENOENT;
	len = dw_elf_build_id(*out, &id2);
	if (len != n || memcmp(id, id2, n) != 0) {
		dw_elf_free(*out);
		*out = NULL;
		return -ENOENT;
	}
	return 0;
}

static int dw_by_debuglink(struct dw_elf *img, const char *path, struct dw_elf **out, char *found, size_t max)
{
	uint32_t want, crc;
	const char *link = dw_elf_debuglink(img, &want);
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 1;
	const char *dir = slash ? path : ".";
	char cand[4096];

	if (!link || strchr(link, '/'))
		return -ENOENT;
	for (int k = 0; k < 3; k++) {
		if (k == 0)
			snprintf(cand, sizeof(cand), "%.*s/%s", dirlen, dir, link);
		else if (k == 1)
			snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dirlen, dir, link);
		else
			snprintf(cand, sizeof(cand), "%s%.*s/%s", dw_debug_root, dirlen, dir, link);
		if (strcmp(cand, path) == 0 || dw_file_crc(cand, &crc) != 0 || crc != want)
			continue;
		if (dw_try(cand, out) == 0) {
			snprintf(found, max, "%s", cand);
			return 0;
		}
	}
	snprintf(found, max, "%s", link);
	return -ENOENT;
}

int dw_debugfile_find(struct dw_elf *img, const char *path, struct dw_elf **out, char *found, size_t max)
{
	*out = NULL;
	if (dw_by_build_id(img, out, found, max) == 0)
		return 0;
	if (path && dw_by_debuglink(img, path, out, found, max) == 0)
		return 0;
	if (!path || !dw_elf_debuglink(img, NULL))
		found[0] = '\0';
	return -ENOENT;
}
