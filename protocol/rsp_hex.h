/*
 * protocol/rsp_hex.h: the number and hex-string forms used in packets.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_HEX_H
#define HINDSIGHT_PROTOCOL_RSP_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Value of hex digit @c, or -1. */
int rsp_hex_digit(int c);

/* Parses hex digits at *@p (stopping at @end or a non-digit) into @out and
 * advances *@p. Returns 0, -EINVAL if there is no digit, -ERANGE past 64
 * bits. */
int rsp_hex_u64(const char **p, const char *end, uint64_t *out);

/* Decodes @len hex digits from @in into @out (len / 2 bytes; @out may equal
 * @in). Returns the byte count or -EINVAL on an odd length or a bad digit. */
int rsp_hex_decode(const char *in, size_t len, uint8_t *out);

#endif
