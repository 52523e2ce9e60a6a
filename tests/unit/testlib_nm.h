/* A unit-test helper: the address nm gives a symbol in an executable (an
 * independent source for addresses the code under test finds itself). */
#ifndef TESTLIB_NM_H
#define TESTLIB_NM_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The address nm gives @sym in @exe; fails the test when there is none. */
static inline uint64_t nm_symbol(const char *exe, const char *sym)
{
	char cmd[1024], line[512], type, name[256];
	uint64_t addr, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = addr;
	pclose(f);
	assert_true(found != 0);
	return found;
}

#endif
