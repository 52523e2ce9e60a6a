/* dw_demangle: Itanium C++ demangling through __cxa_demangle (libstdc++'s
 * copy of libiberty's demangler, the same code addr2line -C runs). Linked
 * with -lstdc++; no C++ is compiled into hindsight. */
#include "dwarf/dw_demangle.h"

#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

const char *dw_demangle(struct dw_pool *pool, const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;

	const char *at = strchr(name, '@');
	char *plain = at ? strndup(name, (size_t)(at - name)) : NULL;
	int status = 0;
	char *d = __cxa_demangle(plain ? plain : name, NULL, NULL, &status);

	free(plain);
	if (!d || status != 0) {
		free(d);
		return name;
	}
	size_t ld = strlen(d), ls = at ? strlen(at) : 0;
	char *r = dw_pool_alloc(pool, ld + ls + 1);

	if (r) {
		memcpy(r, d, ld);
		memcpy(r + ld, at ? at : "", ls + 1);
	}
	free(d);
	return r;
}
