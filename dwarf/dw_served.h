/* dw_served: the files of one address space that a debugger may read
 * through the stub (GDB's host I/O, vFile), and nothing else.
 *
 * They are the files mapped in it (the program, its libraries, the vDSO
 * image of a recording), under the names they were mapped by, and the
 * separate debug files GDB looks for: by build-id,
 * /usr/lib/debug/.build-id/xx/rest.debug; by .gnu_debuglink, next to the
 * object, in its .debug/ directory and under /usr/lib/debug/<its
 * directory>; and /usr/lib/debug/<path>.debug. Another name of one of them
 * (the program's PT_INTERP /lib64/ld-linux-x86-64.so.2, a library's
 * link_map name /lib/x86_64-linux-gnu/libc.so.6 for the mapped
 * /usr/lib/...) is served when its real path is one of theirs.
 *
 * A name is served only if the file opened under it is the file it stands
 * for: a mapped object must have its device and inode (those of
 * /proc/PID/maps for a live process), a debug file the object's build-id
 * (the debuglink's CRC when the object has none). A name swapped for a
 * link to another file since serves nothing. And a file is served only if
 * the reader could read it (the user of the process, the owner of the
 * recording): one that is readable by all, or its own and readable by its
 * owner, so neither a crafted recording nor a debug link leads to a file
 * only the stub's user may read. Files of the stub's own that a target
 * adds by their exact path (the /proc files of a live process) are served
 * as they are.
 */
#ifndef DW_SERVED_H
#define DW_SERVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_pool.h"

#define DW_SERVED_DEBUG_ROOT "/usr/lib/debug"

enum dw_served_kind {
	DW_SERVED_OBJECT,   /* a mapped file: the object's device and inode */
	DW_SERVED_DEBUG,    /* its debug file: the object's build-id, or CRC */
	DW_SERVED_PLAIN,    /* a file of the stub's own, by its exact path */
};

/* The identity a mapped file must have: st_dev and st_ino. */
struct dw_served_id {
	uint64_t dev, ino;
};

struct dw_served_object {
	struct dw_served_id id;
	bool known;             /* read from the file, which had the identity */
	uint8_t build_id[64];
	size_t build_id_len;    /* 0: none */
	const char *debuglink;  /* .gnu_debuglink's file name, NULL: none */
	uint32_t crc;           /* and its CRC */
};

struct dw_served_name {
	const char *name;       /* as the debugger asks for it */
	const char *open;       /* the stub's path to it */
	const char *real;       /* realpath of open when added; NULL: none */
	enum dw_served_kind kind;
	size_t object;          /* OBJECT, DEBUG: index in objects */
};

struct dw_served {
	struct dw_pool pool;
	const char *root;       /* the names' file system: "" or "/proc/PID/root" */
	int64_t reader;         /* uid files must be readable by; -1 or 0: any */
	struct dw_served_name *names;
	size_t nnames, names_cap;
	struct dw_served_object *objects;
	size_t nobjects, objects_cap;
};

/* @root prefixes every name added with add_object (NULL or "": the stub's
 * own file system, "/proc/PID/root": a live process's); copied. */
void dw_served_init(struct dw_served *s, const char *root);
void dw_served_release(struct dw_served *s);
/* Served files must be readable by the user @uid (-1, the default, or 0:
 * any file). */
void dw_served_set_reader(struct dw_served *s, int64_t uid);

/* Adds the object mapped as @name (absolute in @root; any name for one
 * that is no file GDB asks for, "[vdso]") and its debug files. @path is
 * where the stub reads it (NULL: @root and @name); @id the identity it must
 * have (NULL: that of the file at @path now). A second add of @name is
 * ignored. An object that cannot be read, or is not the file @id says, is
 * added all the same: its name is refused at open. 0 or -ENOMEM. */
int dw_served_add_object(struct dw_served *s, const char *name, const char *path,
			 const struct dw_served_id *id);
/* Adds the debug file (by build-id) of an object known only by its @len
 * bytes at @buf: a live process's vDSO, which is no file. 0 (also for bytes
 * that are no ELF image with a build-id) or -ENOMEM. */
int dw_served_add_image(struct dw_served *s, const void *buf, size_t len);
/* Adds the stub's own file @path (absolute), served by that exact name as
 * it is. 0 or -ENOMEM. */
int dw_served_add_plain(struct dw_served *s, const char *path);

/* Opens @name for reading: a descriptor (the caller closes it), -EACCES
 * when @name is not served or the file there is not the one it stands for,
 * or the error of opening a served name (-ENOENT: not there), -ENOMEM. */
int dw_served_open(struct dw_served *s, const char *name);
/* readlink of a served name (exact names only): the length written to
 * @buf (no NUL), -EACCES when not served, or the error of readlink. */
int dw_served_readlink(struct dw_served *s, const char *name, char *buf, size_t size);

/* serve --vfile-any: @name under @root ("" or "/proc/PID/root"), whatever
 * file it is, if it is a regular one (a device or a FIFO is never opened:
 * -EACCES). A descriptor or the error of the open. */
int dw_served_open_any(const char *root, const char *name);
/* readlink of @name under @root: as dw_served_readlink. */
int dw_served_readlink_any(const char *root, const char *name, char *buf, size_t size);

#endif
