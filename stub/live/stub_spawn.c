/*
 * stub/live/stub_spawn.c: fork + PTRACE_TRACEME + execve, errors through a pipe.
 */
#include "stub/live/stub_spawn.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STUB_SPAWN_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static bool stub_spawn_is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Tries dir/file; 0 if it is an executable file, else -ENOENT / -EACCES. */
static int stub_spawn_try(const char *dir, size_t dlen, const char *file,
			  char *out, size_t size)
{
	int n;

	if (dlen == 0)
		n = snprintf(out, size, "%s", file);
	else
		n = snprintf(out, size, "%.*s/%s", (int)dlen, dir, file);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (!stub_spawn_is_file(out))
		return -ENOENT;
	return access(out, X_OK) == 0 ? 0 : -EACCES;
}

int stub_spawn_resolve(const char *file, const char *path, char *out, size_t size)
{
	int err = -ENOENT;

	if (!file || !*file)
		return -ENOENT;
	if (strchr(file, '/')) {
		if (strlen(file) >= size)
			return -ENAMETOOLONG;
		strcpy(out, file);
		return 0;
	}
	if (!path)
		path = STUB_SPAWN_DEFAULT_PATH;
	for (const char *p = path;; ) {
		const char *end = strchrnul(p, ':');
		int r = stub_spawn_try(p, (size_t)(end - p), file, out, size);

		if (r == 0)
			return 0;
		if (r == -EACCES)
			err = r;
		if (!*end)
			break;
		p = end + 1;
	}
	return err;
}

/* In the child: never returns. */
static void stub_spawn_child(int fd, const char *path, char *const argv[])
{
	sigset_t none;
	int err;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		err = errno;
	} else {
		execve(path, argv, environ);
		err = errno;
	}
	if (write(fd, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(127);
}

/* The errno the child wrote, 0 if the pipe closed at exec. */
static int stub_spawn_read_err(int fd)
{
	int err = 0;
	ssize_t r;

	do
		r = read(fd, &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof(err) ? err : 0;
}

static int stub_spawn_waitpid(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, __WALL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

/* Waits for the exec stop of @pid, or reaps it if exec failed (@err). */
static int stub_spawn_parent(pid_t pid, int err)
{
	int status, r = stub_spawn_waitpid(pid, &status);

	if (err) {
		if (r == 0 && WIFSTOPPED(status)) {
			kill(pid, SIGKILL);
			stub_spawn_waitpid(pid, &status);
		}
		return -err;
	}
	if (r < 0)
		return r;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		if (WIFSTOPPED(status)) {
			kill(pid, SIGKILL);
			stub_spawn_waitpid(pid, &status);
		}
		return -ECHILD;
	}
	return 0;
}

int stub_spawn_start(char *const argv[], pid_t *pid)
{
	char path[4096];
	int fds[2], err;
	pid_t child;

	if (!argv || !argv[0])
		return -EINVAL;
	err = stub_spawn_resolve(argv[0], getenv("PATH"), path, sizeof(path));
	if (err < 0)
		return err;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (child == 0)
		stub_spawn_child(fds[1], path, argv);
	close(fds[1]);
	err = stub_spawn_read_err(fds[0]);
	close(fds[0]);
	err = stub_spawn_parent(child, err);
	if (err == 0)
		*pid = child;
	return err;
}
