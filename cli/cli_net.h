/*
 * cli/cli_net.h: the listening socket of `hindsight serve`.
 */
#ifndef HINDSIGHT_CLI_CLI_NET_H
#define HINDSIGHT_CLI_CLI_NET_H

#include <signal.h>

/* Splits "[HOST]:PORT" (HOST may be "[v6]") into @host (empty when none)
 * and @port. 0 or -EINVAL. */
int cli_net_parse_addr(const char *spec, char *host, unsigned host_size, char *port,
		       unsigned port_size);

/* Listens on @host (127.0.0.1 when empty) and @port ("0": any free port).
 * Returns the socket and sets *@bound_port, or a negative errno; *@what
 * names the failing step ("bind", "resolve", ...). */
int cli_net_listen(const char *host, const char *port, int *bound_port, const char **what);

/* Accepts one client; the peer's address goes to @peer. The socket or a
 * negative errno; -EINTR once *@quit is set (looked at every second and
 * whenever a signal arrives; @quit may be NULL). */
int cli_net_accept(int listen_fd, const volatile sig_atomic_t *quit, char *peer,
		   unsigned peer_size, int *peer_port);

#endif
