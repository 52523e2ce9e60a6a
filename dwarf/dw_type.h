/* dw_type: a program's C types as its DWARF describes them, in the shape
 * the front end's expressions (replay/frontend/cexpr.h) compute and print with.
 *
 * One struct dw_type per type DIE, built on first use and kept (owned by
 * the image that read it, or, for the types an expression makes up itself,
 * by whoever made them) until the image is freed; pointers between types
 * are plain pointers, so a type graph with cycles (struct node { struct
 * node *next; }) is walked without lookups. Qualifiers and typedefs are
 * types of their own, as in DWARF, so `const char *` prints as written;
 * dw_type_strip() looks through them.
 *
 * Arrays have one dimension each: `int m[2][3]` is an array of 2 arrays of
 * 3 ints. A flexible or unknown-size array (`char tail[]`) has
 * count_known false. Bit-fields say their bits from the start of the
 * member's byte offset (DW_AT_data_bit_offset, or DW_AT_bit_offset turned
 * little-endian). */
#ifndef DW_TYPE_H
#define DW_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dw_type_kind {
	DW_TYPE_VOID,
	DW_TYPE_BASE,       /* integers, characters, bool, floating point */
	DW_TYPE_POINTER,
	DW_TYPE_STRUCT,
	DW_TYPE_UNION,
	DW_TYPE_ENUM,
	DW_TYPE_ARRAY,
	DW_TYPE_TYPEDEF,
	DW_TYPE_CONST,
	DW_TYPE_VOLATILE,
	DW_TYPE_RESTRICT,
	DW_TYPE_FUNCTION,
};

/* A base type's DW_ATE, reduced to what C computes with. */
enum dw_type_enc {
	DW_ENC_NONE,
	DW_ENC_SIGNED,
	DW_ENC_UNSIGNED,
	DW_ENC_SIGNED_CHAR,   /* char (signed on x86-64), signed char */
	DW_ENC_UNSIGNED_CHAR, /* unsigned char */
	DW_ENC_BOOL,          /* _Bool */
	DW_ENC_FLOAT,         /* float, double, long double (x87 80-bit in 16 bytes) */
};

struct dw_type;

struct dw_member {
	const char *name;            /* NULL: an anonymous struct or union member */
	const struct dw_type *type;
	uint64_t offset;             /* bytes from the start of the struct */
	unsigned bit_size;           /* 0: not a bit-field */
	unsigned bit_offset;         /* bit-fields: bits from offset * 8, little-endian */
};

struct dw_enumerator {
	const char *name;
	int64_t value;               /* as the enum's signedness reads it */
};

struct dw_type {
	enum dw_type_kind kind;
	const char *name;            /* "int", "node" (struct node), a typedef's name; NULL anonymous */
	uint64_t size;               /* bytes; 0 for void, functions and incomplete types */
	bool declaration;            /* an incomplete struct, union or enum (no definition found) */
	enum dw_type_enc enc;        /* BASE; ENUM: DW_ENC_SIGNED or DW_ENC_UNSIGNED */
	const struct dw_type *target; /* POINTER, TYPEDEF, qualifiers: the type named; ARRAY: the
				      * element; FUNCTION: the return type (NULL: void) */
	uint64_t count;              /* ARRAY: elements */
	bool count_known;            /* ARRAY: false for `int a[]` */
	const struct dw_member *members;   /* STRUCT, UNION, in declaration order */
	size_t nmembers;
	const struct dw_enumerator *enumerators; /* ENUM */
	size_t nenumerators;
	const struct dw_type *const *params; /* FUNCTION: parameter types */
	size_t nparams;
	bool prototyped, varargs;    /* FUNCTION */
};

/* @t without typedefs and qualifiers (NULL stays NULL). */
static inline const struct dw_type *dw_type_strip(const struct dw_type *t)
{
	while (t && (t->kind == DW_TYPE_TYPEDEF || t->kind == DW_TYPE_CONST ||
		     t->kind == DW_TYPE_VOLATILE || t->kind == DW_TYPE_RESTRICT))
		t = t->target;
	return t;
}

/* The size of @t in bytes through typedefs and qualifiers (arrays: count
 * times the element's; 0 for void, functions, incomplete types). */
static inline uint64_t dw_type_size(const struct dw_type *t)
{
	t = dw_type_strip(t);
	if (!t)
		return 0;
	if (t->kind == DW_TYPE_ARRAY)
		return t->count_known ? t->count * dw_type_size(t->target) : 0;
	return t->size;
}

#endif
