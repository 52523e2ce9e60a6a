/*
 * cli/cli_crash.c: the temporary recording removed when hindsight itself
 * dies of a fatal signal (cli_crash.h). Only system calls run inside the
 * handler: open, getdents64, unlinkat, close, write, sigaction, raise.
 */
#include "cli/cli_crash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CRASH_DEPTH 4  /* a recording: DIR/threads/TID.pt, DIR/images/... */

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS };
#define CRASH_NSIGS (sizeof(crash_sigs) / sizeof(crash_sigs[0]))

static struct sigaction crash_old[CRASH_NSIGS];
static char crash_dir[PATH_MAX];
static char crash_msg[PATH_MAX + 128];
static size_t crash_msg_len;
static bool crash_installed;

/* Empties the directory @dfd (and the ones below it); whether it removed
 * anything. An entry that is a directory fails unlinkat with EISDIR and
 * is emptied and removed in turn, so d_type is never trusted. */
static bool crash_empty(int dfd, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	bool removed = false;
	ssize_t n;

	while ((n = getdents64(dfd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int sub;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (unlinkat(dfd, d->d_name, 0) == 0) {
				removed = true;
				continue;
			}
			if (errno != EISDIR || depth >= CRASH_DEPTH)
				continue;
			sub = openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				continue;
			while (crash_empty(sub, depth + 1) && lseek(sub, 0, SEEK_SET) == 0)
				;
			close(sub);
			removed |= unlinkat(dfd, d->d_name, AT_REMOVEDIR) == 0;
		}
	}
	return removed;
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	size_t i = 0;
	int saved = errno;

	while (i < CRASH_NSIGS && crash_sigs[i] != sig)
		i++;
	if (crash_dir[0]) {
		int dfd = open(crash_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (dfd >= 0) {
			/* Entries removed while listing may hide others: again
			 * from the start until a pass removes nothing. */
			while (crash_empty(dfd, 1) && lseek(dfd, 0, SEEK_SET) == 0)
				;
			close(dfd);
		}
		if (rmdir(crash_dir) == 0)
			(void)!write(STDERR_FILENO, crash_msg, crash_msg_len);
		crash_dir[0] = '\0';
	}
	errno = saved;
	if (i == CRASH_NSIGS)
		return;
	sigaction(sig, &crash_old[i], NULL);
	if ((crash_old[i].sa_flags & SA_SIGINFO) && crash_old[i].sa_sigaction) {
		crash_old[i].sa_sigaction(sig, si, uc);
	} else if (crash_old[i].sa_handler != SIG_DFL && crash_old[i].sa_handler != SIG_IGN) {
		crash_old[i].sa_handler(sig);
	} else {
		/* Blocked while this handler runs: delivered with the default
		 * action when it returns (a fault also comes back at once). */
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

void cli_crash_remove(const char *dir)
{
	if (!dir || strlen(dir) >= sizeof(crash_dir)) {
		crash_dir[0] = '\0';
		return;
	}
	crash_msg_len = (size_t)snprintf(crash_msg, sizeof(crash_msg),
					 "hindsight: crashed; its temporary recording %s is removed\n",
					 dir);
	if (crash_msg_len >= sizeof(crash_msg))
		crash_msg_len = sizeof(crash_msg) - 1;
	memcpy(crash_dir, dir, strlen(dir) + 1);
	if (crash_installed)
		return;
	for (size_t i = 0; i < CRASH_NSIGS; i++) {
		struct sigaction sa = { .sa_sigaction = crash_handler, .sa_flags = SA_SIGINFO };

		sigemptyset(&sa.sa_mask);
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
	}
	crash_installed = true;
}
