#!/bin/sh
# scripts/check-rooms.sh: the rooms of the code and which may include which
# (docs/ARCHITECTURE.md, "Rooms"), checked on every build: an #include that
# goes the wrong way, or a source file in no room, is an error with its
# file and line. Run from the top of the tree; `make` runs it.
#
# A room is a set of files named by their path without the extension (a
# trailing * matches any rest; a file named exactly belongs to that room
# before any pattern). Each room lists the rooms it may include besides
# itself, all of them above it in this list: dependencies only go up.
#
# With `--make FILE`, a passing check also writes FILE, a makefile
# fragment: each room's sources (ROOM_SRCS_<room>) and ROOM_LIBS, the rooms
# with sources but cli in link order (users first). Each room is a static
# library linked in that order.
#
# With `--links BUILD`, the rooms' libraries in BUILD/librooms are checked
# instead: every symbol a room's objects use that another room defines must
# be defined in a room it may include (link order alone would miss a call
# into a member already linked for someone else).
set -u
cd "$(dirname "$0")/.." || exit 2
make_out=
links=
case "${1-}" in
--make) make_out=${2:?--make needs a file} ;;
--links) links=${2:?--links needs the build directory} ;;
esac

ROOMS='
protocol  protocol/*
dwarf     dwarf/*
vgproto   vgtool/hsrec_proto
model     replay/model/*
decode    replay/decode/*
target    replay/target/*
frontend  replay/frontend/*
live      stub/live/*
recorders stub/recorders/*
rectarget stub/rectarget/*
cli       cli/*
'
# room: the rooms it may include besides itself
MAY='
protocol:
dwarf:
vgproto:
model: dwarf protocol
decode: model dwarf protocol
target: decode model dwarf protocol
frontend: decode model dwarf protocol
live: model dwarf protocol
recorders: live model decode dwarf protocol vgproto
rectarget: recorders live target decode model dwarf protocol
cli: rectarget recorders live frontend target decode model dwarf protocol vgproto
'

# awk: allowed[room, other] for every room MAY lets include other (and itself).
READ_MAY='
function read_may(may,    n, lines, i, r, rest, m, ok, j) {
	n = split(may, lines, "\n")
	for (i = 1; i <= n; i++) {
		if (lines[i] !~ /:/)
			continue
		r = lines[i]
		sub(/:.*/, "", r)
		rest = lines[i]
		sub(/^[a-z]+: */, "", rest)
		m = split(rest, ok, " ")
		allowed[r, r] = 1
		for (j = 1; j <= m; j++)
			allowed[r, ok[j]] = 1
	}
}
'

# The links between the rooms' libraries: "room U|D symbol" lines from nm.
if [ -n "$links" ]; then
	for lib in "$links"/librooms/*.a; do
		r=$(basename "$lib" .a)
		nm -g --defined-only "$lib" 2>/dev/null | awk -v r="$r" 'NF == 3 { print r, "D", $3 }'
		nm -g --undefined-only "$lib" 2>/dev/null | awk -v r="$r" 'NF == 2 { print r, "U", $2 }'
	done | awk -v may="$MAY" "$READ_MAY"'
	BEGIN { read_may(may) }
	$2 == "D" { def[$3] = $1; next }
	{ use[++nuse] = $1 " " $3 }
	END {
		for (i = 1; i <= nuse; i++) {
			split(use[i], u, " ")
			if ((u[2] in def) && !((u[1], def[u[2]]) in allowed)) {
				printf "room %s uses %s of room %s, which it may not\n", u[1], u[2],
				       def[u[2]]
				bad = 1
			}
		}
		exit bad
	}'
	exit
fi

# cli/ reaches replay/ through these headers only (its front doors): the
# session of hindsight replay (frontend.h) and its parts, each included by
# the files that use it; the other commands' work; what a recording holds;
# serve --replay. The rest of replay/ (decode, the rooms' internal headers)
# stays behind them.
CLI_REPLAY='replay/frontend/frontend replay/frontend/frontend_break replay/frontend/frontend_frame replay/frontend/frontend_history replay/frontend/frontend_insn replay/frontend/frontend_last replay/frontend/frontend_line replay/frontend/frontend_origin replay/frontend/frontend_solib replay/frontend/frontend_vars replay/frontend/cexpr replay/frontend/frontend_report replay/frontend/frontend_import replay/model/bundle replay/target/replay_target replay/target/replay_monitor'

files=$(ls protocol/*.[ch] dwarf/*.[ch] replay/*/*.[ch] stub/*/*.[ch] cli/*.[ch] 2>/dev/null)
# shellcheck disable=SC2086
grep -n '^#include "[a-z/]*/[A-Za-z0-9_]*\.h"' $files /dev/null |
awk -v rooms="$ROOMS" -v may="$MAY" -v all="$files" -v out="$make_out" -v clidoors="$CLI_REPLAY" "$READ_MAY"'
function room(path,    base, i, n, pats, j, p) {
	base = path
	sub(/\.[ch]$/, "", base)
	for (i = 1; i <= nroom; i++) {
		n = split(pat[i], pats, " ")
		for (j = 1; j <= n; j++)
			if (pats[j] == base)
				return name[i]
	}
	for (i = 1; i <= nroom; i++) {
		n = split(pat[i], pats, " ")
		for (j = 1; j <= n; j++) {
			p = pats[j]
			if (substr(p, length(p)) == "*" &&
			    substr(base, 1, length(p) - 1) == substr(p, 1, length(p) - 1))
				return name[i]
		}
	}
	return ""
}
BEGIN {
	n = split(rooms, lines, "\n")
	for (i = 1; i <= n; i++) {
		if (lines[i] !~ /[a-z]/)
			continue
		nroom++
		name[nroom] = lines[i]
		sub(/ .*/, "", name[nroom])
		pat[nroom] = lines[i]
		sub(/^[a-z]+ +/, "", pat[nroom])
	}
	read_may(may)
	n = split(all, fl, "\n")
	for (i = 1; i <= n; i++)
		if (fl[i] != "" && room(fl[i]) == "") {
			printf "%s: in no room (scripts/check-rooms.sh: give it one)\n", fl[i]
			bad = 1
		}
}
{
	split($0, f, ":")
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	from = room(f[1])
	to = room(inc)
	if (from == "" || to == "")
		next
	door = " " substr(inc, 1, length(inc) - 2) " "
	if (from == "cli" && inc ~ /^replay\// && index(" " clidoors " ", door) == 0) {
		printf "%s:%s: includes %s: cli/ reaches replay/ only through %s\n", f[1], f[2],
		       inc, clidoors
		bad = 1
	}
	if (!((from, to) in allowed)) {
		printf "%s:%s: includes %s: room %s may not include room %s\n", f[1], f[2], inc,
		       from, to
		bad = 1
	}
}
END {
	if (bad || out == "")
		exit bad
	n = split(all, fl, "\n")
	for (i = 1; i <= n; i++)
		if (fl[i] ~ /\.c$/)
			srcs[room(fl[i])] = srcs[room(fl[i])] " " fl[i]
	libs = ""
	for (i = 1; i <= nroom; i++) {
		printf "ROOM_SRCS_%s :=%s\n", name[i], srcs[name[i]] > out
		if (name[i] != "cli" && srcs[name[i]] != "")
			libs = name[i] " " libs
	}
	printf "ROOM_LIBS := %s\n", libs > out
	exit bad
}
'
