/*
 * protocol/rsp_frame.h: RSP framing, both directions.
 *
 * The decoder is a state machine fed one byte at a time (idle, payload,
 * escape, run-length, checksum), so partial reads, acks between packets and
 * the 0x03 interrupt need no special cases. It undoes `}` escaping and `*`
 * run-length encoding and checks the checksum over the bytes as received.
 * The encoder escapes `$ # } *` in everything the stub sends (GDB and LLDB
 * undo escapes in every packet, and an unescaped `*` would read as RLE) and
 * never uses RLE itself.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_FRAME_H
#define HINDSIGHT_PROTOCOL_RSP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/rsp_buf.h"

enum rsp_frame_event {
	RSP_FRAME_NONE,      /* byte consumed, nothing complete */
	RSP_FRAME_PACKET,    /* a whole packet: payload in frame->payload */
	RSP_FRAME_ERROR,     /* a whole packet that could not be taken:
			      * frame->error is -EMSGSIZE (longer than the
			      * limit), -EBADMSG (bad run-length) or
			      * -ENOMEM */
	RSP_FRAME_ACK,       /* '+' between packets */
	RSP_FRAME_NACK,      /* '-' between packets */
	RSP_FRAME_INTERRUPT, /* 0x03 between packets */
};

enum rsp_frame_state {
	RSP_FRAME_IDLE,
	RSP_FRAME_IN_PAYLOAD,
	RSP_FRAME_IN_ESCAPE,
	RSP_FRAME_IN_RLE,
	RSP_FRAME_IN_CSUM1,
	RSP_FRAME_IN_CSUM2,
};

struct rsp_frame {
	enum rsp_frame_state state;
	size_t max_payload;    /* decoded payload bytes allowed */
	struct rsp_buf payload;
	uint8_t sum;           /* running sum of the raw payload bytes */
	uint8_t csum;          /* checksum received */
	bool csum_ok;          /* valid with PACKET / ERROR */
	int error;             /* valid with ERROR */
};

void rsp_frame_init(struct rsp_frame *f, size_t max_payload);
void rsp_frame_release(struct rsp_frame *f);

/* Feeds one received byte. With PACKET the payload is valid until the next
 * call (payload.data is never NULL then, and has room for a NUL after
 * payload.len bytes); csum_ok says whether the checksum matched. */
enum rsp_frame_event rsp_frame_feed(struct rsp_frame *f, uint8_t byte);

/* Appends `$<escaped payload>#<checksum>` to @out. 0 or -ENOMEM. */
int rsp_frame_encode(struct rsp_buf *out, const void *payload, size_t len);

#endif
