/*
 * replay/target/svr4.h: the shared-library list of a recording, as
 * qXfer:libraries-svr4 spells it.
 *
 * There is no process to walk r_debug in: the list is made from the
 * recording's mappings. Each file other than the program itself that has a
 * dynamic section (ld.so, libc, dlopened libraries, the vDSO) is one
 * library, with l_addr its load bias and l_ld its dynamic section's
 * address; link_map addresses (lm) are made-up identities, which is all
 * GDB uses them for. With it GDB has the libraries' symbols and line tables
 * in the past, so stepping back into and out of them works.
 *
 * lmid, the namespace (GDB 13 requires the attribute), is 0 for every
 * library. Stopped in a library, GDB 13 looks a global up only in that
 * library's namespace; the main program is always in the initial one, and
 * so is a library whose lmid is 0 (GDB's "not known"), whatever address
 * GDB takes the initial namespace's r_debug to be (DT_DEBUG in the
 * program's .dynamic, read from memory: a recording may not have those
 * bytes). A made-up lmid (it was 1) put the libraries in another namespace
 * than the program: stopped in one, GDB found none of the program's
 * globals ("'g_sum' has unknown type; cast it to its declared type").
 */
#ifndef HINDSIGHT_REPLAY_SVR4_H
#define HINDSIGHT_REPLAY_SVR4_H

#include <stdint.h>

struct replay_bundle;
struct rsp_buf;

/* Appends the <library-list-svr4> of the mappings of @b alive at logical
 * time @time (the program @exec_path left out) to @out. 0 or -ENOMEM. */
int replay_svr4_build(const struct replay_bundle *b, const char *exec_path, uint64_t time,
		      struct rsp_buf *out);

#endif
