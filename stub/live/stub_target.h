/*
 * stub/live/stub_target.h: the live-process target (struct rsp_target).
 *
 * Spawns or attaches to a process under ptrace and serves the operations of
 * protocol/target.h for it, all-stop, like gdbserver without fork events
 * (forked children are let go). The library never prints or exits; every
 * failure is a negative errno. One live target per stub process at a time
 * (it reaps with waitpid(-1)); it blocks SIGCHLD while it exists and
 * restores the signal mask when freed.
 */
#ifndef HINDSIGHT_STUB_STUB_TARGET_H
#define HINDSIGHT_STUB_STUB_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "protocol/target.h"
#include "stub/live/stub_proc.h"

struct stub_target;

extern const struct rsp_target_ops stub_target_ops;

/* Starts @argv[0] (searched in PATH when it has no slash) stopped at its
 * first instruction, before ld.so runs, inheriting stdin / stdout / stderr
 * and the environment. 0, or a negative errno: that of execve when the
 * program could not be executed (-ENOENT, -EACCES, -ENOEXEC, ...), -ENOMEM,
 * or the error of fork / ptrace. */
int stub_target_spawn(char *const argv[], struct stub_target **out);
/* Attaches to every thread of @pid, all stopped. 0, -ESRCH (no such
 * process), -EPERM (not allowed), -ENOMEM. */
int stub_target_attach(pid_t pid, struct stub_target **out);
pid_t stub_target_pid(const struct stub_target *t);
/* False once the process exited, was killed or was detached. */
bool stub_target_has_process(const struct stub_target *t);
/* Hands the process to another tracer in this thread (stub_proc_hand_over):
 * every thread stopped and traced, nothing of ours in it; @t has no
 * process after. *@attached: it was attached to, not started. The number
 * of breakpoint hits forgotten (stub_proc_hand_over), -EBUSY
 * (a thread has an event not yet reported other than a breakpoint hit,
 * which is forgotten), -ESRCH. */
int stub_target_hand_over(struct stub_target *t, bool *attached);
/* A target over process @pid's threads @v, handed over by another tracer
 * in this thread, stopped (stub_proc_adopt). */
int stub_target_adopt(pid_t pid, const struct stub_proc_adoptee *v, size_t n, bool spawned,
		      struct stub_target **out);
/* { &stub_target_ops, t }. */
struct rsp_target stub_target_rsp(struct stub_target *t);
/* Kills a spawned process that is still there, detaches from an attached
 * one, and frees @t. NULL is fine. */
void stub_target_free(struct stub_target *t);

#endif
