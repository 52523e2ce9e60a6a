/*
 * tests/unit/test_rsp_client.c: the debugger's end of the remote protocol
 * (protocol/rsp_client.h) against a peer played by the test over a socket
 * pair: what the client sends is read back byte for byte, and what a stub
 * would send is written for it to read, cut anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/rsp_client.h"

struct pair {
	struct rsp_client c;
	int peer;                  /* the stub's end */
	int mine;
};

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));
	int sv[2];

	assert_non_null(p);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	p->mine = sv[0];
	p->peer = sv[1];
	assert_int_equal(rsp_client_init(&p->c, p->mine, p->mine, 2000), 0);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	rsp_client_release(&p->c);
	close(p->mine);
	if (p->peer >= 0)
		close(p->peer);
	free(p);
	return 0;
}

/* What the client sent, up to now. */
static void peer_expect(struct pair *p, const char *want)
{
	char got[512];
	size_t n = 0, len = strlen(want);

	while (n < len) {
		struct pollfd pfd = { .fd = p->peer, .events = POLLIN };
		ssize_t r;

		assert_true(poll(&pfd, 1, 2000) == 1);
		r = read(p->peer, got + n, len - n);
		assert_true(r > 0);
		n += (size_t)r;
	}
	got[n] = 0;
	assert_string_equal(got, want);
}

static void peer_send(struct pair *p, const char *bytes)
{
	assert_int_equal(write(p->peer, bytes, strlen(bytes)), (ssize_t)strlen(bytes));
}

static void test_call_with_acks(void **state)
{
	struct pair *p = *state;

	/* The reply comes first, so the call does not wait for it. */
	peer_send(p, "+$OK#9a");
	assert_int_equal(rsp_client_call(&p->c, "QStartNoAckMode"), 0);
	assert_string_equal((const char *)p->c.reply.data, "OK");
	peer_expect(p, "$QStartNoAckMode#b0+");
	p->c.noack = true;
	peer_send(p, "$T05thread:1f;#3d");
	assert_int_equal(rsp_client_call(&p->c, "?"), 0);
	assert_string_equal((const char *)p->c.reply.data, "T05thread:1f;");
	peer_expect(p, "$?#3f");   /* no ack once acks are off */
}

static void test_console_and_cut(void **state)
{
	struct pair *p = *state;

	p->c.noack = true;
	/* Console output before the reply, the reply cut in three. */
	peer_send(p, "$O68690a#b");
	assert_int_equal(rsp_client_send(&p->c, "qRcmd,6869"), 0);
	assert_int_equal(rsp_client_poll(&p->c, false), 0);
	peer_send(p, "d$O");
	assert_int_equal(rsp_client_poll(&p->c, false), 0);
	peer_send(p, "4f4b#");
	peer_send(p, "7f");
	/* "O4f4b" is console output too ("OK" as hex): no reply yet. */
	assert_int_equal(rsp_client_poll(&p->c, false), 0);
	assert_string_equal((const char *)p->c.console.data, "hi\nOK");
	peer_send(p, "$OK#9a");
	assert_int_equal(rsp_client_poll(&p->c, true), 1);
	assert_string_equal((const char *)p->c.reply.data, "OK");
}

static void test_bad_checksum_and_nack(void **state)
{
	struct pair *p = *state;

	/* A reply with a bad checksum is refused ('-'), the good one after
	 * taken; a '-' for what the client sent makes it send it again. */
	peer_send(p, "-$OK#00$OK#9a");
	assert_int_equal(rsp_client_call(&p->c, "g"), 0);
	assert_string_equal((const char *)p->c.reply.data, "OK");
	peer_expect(p, "$g#67$g#67-+");
	assert_false(rsp_client_is_error(&p->c));
	peer_send(p, "$E01#a6");
	assert_int_equal(rsp_client_call(&p->c, "m0,1"), 0);
	assert_true(rsp_client_is_error(&p->c));
	peer_send(p, "$E.no#50");
	assert_int_equal(rsp_client_call(&p->c, "m0,1"), 0);
	assert_true(rsp_client_is_error(&p->c));
	peer_send(p, "$E1#76");      /* not an error: hex data */
	assert_int_equal(rsp_client_call(&p->c, "m0,1"), 0);
	assert_false(rsp_client_is_error(&p->c));
}

static void test_peer_gone_and_timeout(void **state)
{
	struct pair *p = *state;

	p->c.timeout_ms = 50;
	assert_int_equal(rsp_client_call(&p->c, "g"), -ETIMEDOUT);
	close(p->peer);
	p->peer = -1;
	assert_int_equal(rsp_client_poll(&p->c, true), -EPIPE);
	assert_int_equal(rsp_client_send(&p->c, "g"), -EPIPE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_call_with_acks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_and_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_checksum_and_nack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_gone_and_timeout, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
