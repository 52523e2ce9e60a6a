/* tests/programs/sockname.c: calls whose length argument the kernel writes
 * back, which Valgrind's wrappers read (before and after the call) and do
 * not report as written: getsockname of one end of a socketpair (an
 * AF_UNIX socket with no name: the kernel writes 2, the family's size,
 * over the buffer's size), and getsockopt's option length; the lock
 * fcntl(F_GETLK) finds (the kernel writes F_UNLCK over the type asked
 * about, where no lock conflicts: SQLite's WAL mode asks so). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

volatile socklen_t g_len, g_optlen;

int main(void)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa), optlen = 64;
	char opt[64], path[] = "/tmp/hsrec-sockname-XXXXXX";
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int sv[2], fd = mkstemp(path);

	printf("before %u %u %d ", (unsigned)len, (unsigned)optlen, fl.l_type); /* LINE:before */
	if (fd < 0 || unlink(path) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 ||
	    getsockname(sv[0], (struct sockaddr *)&sa, &len) != 0 ||
	    getsockopt(sv[0], SOL_SOCKET, SO_TYPE, opt, &optlen) != 0 ||
	    fcntl(fd, F_GETLK, &fl) != 0)
		return 1;
	g_len = len;
	g_optlen = optlen;
	printf("len %u optlen %u type %d\n", (unsigned)len, (unsigned)optlen, fl.l_type); /* LINE:print */
	return 0;
}
