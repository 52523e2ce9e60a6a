/*
 * cli/cli_net.c: TCP listening and accepting for `hindsight serve`.
 *
 * Like gdbserver, an empty host means loopback only; a name or address
 * binds exactly that. Port 0 lets the kernel choose, and the chosen port is
 * reported so scripts and tests can connect.
 */
#include "cli/cli_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cli_net_parse_addr(const char *spec, char *host, unsigned host_size, char *port,
		       unsigned port_size)
{
	const char *colon = strrchr(spec, ':');
	size_t hlen;
	const char *h = spec;

	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -EINVAL;
	hlen = (size_t)(colon - spec);
	if (hlen >= 2 && spec[0] == '[' && spec[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= host_size || strlen(colon + 1) >= port_size)
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = 0;
	snprintf(port, port_size, "%s", colon + 1);
	return 0;
}

static int bound_port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int cli_net_listen(const char *host, const char *port, int *bound_port, const char **what)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	int fd = -1, err = -EADDRNOTAVAIL, one = 1;

	*what = "resolve";
	if (getaddrinfo(host[0] ? host : "127.0.0.1", port, &hints, &res))
		return -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = -errno;
			*what = "socket";
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1) == 0)
			break;
		err = -errno;
		*what = "bind";
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err;
	*bound_port = bound_port_of(fd);
	return fd;
}

int cli_net_accept(int listen_fd, const volatile sig_atomic_t *quit, char *peer,
		   unsigned peer_size, int *peer_port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	for (;;) {
		struct pollfd p = { .fd = listen_fd, .events = POLLIN };
		int n;

		if (quit && *quit)
			return -EINTR;
		n = poll(&p, 1, quit ? 1000 : -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;          /* a signal, or the second passed: look at quit */
		len = sizeof(ss);
		fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
			return -errno;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*peer_port = 0;
	snprintf(peer, peer_size, "?");
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, peer, peer_size);
		*peer_port = ntohs(in->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, peer, peer_size);
		*peer_port = ntohs(in6->sin6_port);
	}
	return fd;
}
