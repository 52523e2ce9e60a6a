#!/usr/bin/env bash
# t_record_cwd: a recorded program behaves as it does natively, wherever it
# changes directory to and whatever it runs.
#   - `record -o REL` (a relative bundle path) of a shell that changes
#     directory and then execs echo: "hi" is printed and the exit status is
#     0, as natively, with both recorders; the bundle holds the exec'd
#     image (the recorded process's own exec is followed). Valgrind opened
#     its log file again after the exec, relative to the new directory: the
#     program died with "Cannot create log file" and printed nothing.
#   - The same with HINDSIGHT_VGTOOL_DIR relative (Valgrind reads it again
#     at the exec).
#   - Children the recorded program starts (system, posix_spawn, fork and
#     exec) run natively, not under Valgrind unrecorded: each reports how
#     many Valgrind mappings its /proc/self/maps has, and prints what it
#     prints natively (0); under `valgrind --trace-children=yes` the same
#     program's children print more, which shows the count can tell.
. "$(dirname "$0")/lib.sh"
hindsight_only "records programs"
cd "$T_DIR" || finish
mkdir -p elsewhere

for how in valgrind sw; do
    if [ "$how" = valgrind ] && ! command -v valgrind >/dev/null; then
        continue
    fi
    timeout 120 "$HINDSIGHT" record --record=$how -o "rec_$how" -- \
        /bin/sh -c "cd $T_DIR/elsewhere && exec /bin/echo hi" >"$how.out" 2>"$how.err"
    expect_eq "$how: exit status with a relative -o" "$?" 0
    show "$how.err"
    expect_eq "$how: what the program printed" "$(cat "$how.out")" hi
    expect_not "$how.err" "stopped early"
    [ -e "elsewhere/rec_$how" ] && fail "$how: something was written in the program's directory"
    expect "rec_$how/trace.json" '"file": "/usr/bin/echo"'
    "$HINDSIGHT" history "rec_$how" >"$how.hist" 2>&1
    expect_re "$how.hist" '<(__GI__exit|_exit)\+[0-9]+>:'
done

command -v valgrind >/dev/null || finish

# HINDSIGHT_VGTOOL_DIR as a relative path.
ln -sfn "$(dirname "$HINDSIGHT")/vgtool" tooldir
HINDSIGHT_VGTOOL_DIR=tooldir timeout 120 "$HINDSIGHT" record -o rec_env -- \
    /bin/sh -c "cd $T_DIR/elsewhere && exec /bin/echo hi" >env.out 2>env.err
expect_eq "relative HINDSIGHT_VGTOOL_DIR: exit status" "$?" 0
expect_eq "relative HINDSIGHT_VGTOOL_DIR: what the program printed" "$(cat env.out)" hi

# Children: natively, under Valgrind following children, and recorded.
cat >kids.c <<'EOF'
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
#define COUNT "grep -c -e vgpreload -e hsrec /proc/self/maps; true"
int main(void)
{
	char *argv[] = { "sh", "-c", COUNT, NULL };
	pid_t p;

	fflush(stdout);
	if (system(COUNT) != 0)
		return 1;
	if (posix_spawn(&p, "/bin/sh", NULL, NULL, argv, environ) || waitpid(p, NULL, 0) != p)
		return 2;
	if ((p = fork()) == 0) {
		execv("/bin/sh", argv);
		_exit(127);
	}
	if (waitpid(p, NULL, 0) != p)
		return 3;
	printf("parent done\n");
	return 0;
}
EOF
cc -O1 -o kids kids.c || { fail "cannot compile kids.c"; finish; }
./kids >native.out 2>&1
expect_eq "natively" "$(tr '\n' ' ' <native.out)" "0 0 0 parent done "
valgrind -q --tool=none --trace-children=yes ./kids >vgkids.out 2>&1
expect_re vgkids.out '^[1-9][0-9]*$'
timeout 120 "$HINDSIGHT" record -o rec_kids -- ./kids >kids.out 2>kids.err
expect_eq "recorded: exit status" "$?" 0
show kids.err
expect_eq "recorded: what the program and its children printed" "$(cat kids.out)" "$(cat native.out)"
finish
