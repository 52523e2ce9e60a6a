/* dw_demangle: C++ (Itanium ABI) names to their readable form, the way
 * addr2line -C prints them (libiberty's cplus_demangle with DMGL_PARAMS |
 * DMGL_ANSI). Only names starting with "_Z" are demangled, so C names such
 * as "i" never turn into types; a suffix from '@' on ("@plt", "@@GLIBC_2.2.5")
 * is kept as it is, as bfd_demangle does. */
#ifndef DW_DEMANGLE_H
#define DW_DEMANGLE_H

#include "dwarf/dw_pool.h"

/* Returns the demangled name in @pool, or @name itself when it is not a
 * mangled name or does not demangle; NULL only when out of memory. */
const char *dw_demangle(struct dw_pool *pool, const char *name);

#endif
