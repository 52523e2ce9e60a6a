#!/bin/sh
# scripts/check-rooms.sh: the rooms of the code and which may include which
# (docs/ARCHITECTURE.md, "Rooms"), checked on every build: an #include that
# goes the wrong way, or a source file in no room, is an error with its
# file and line. Run from the top of the tree; `make` runs it.
#
# A room is a set of files named by their path without the extension (a
# trailing * matches any rest). Each room lists the rooms it may include
# besides itself. Dependencies only go down this list.
set -u
cd "$(dirname "$0")/.." || exit 2

ROOMS='
protocol  protocol/*
dwarf     dwarf/*
vgproto   vgtool/hsrec_proto
model     replay/auxv replay/bundle* replay/elf_load replay/image* replay/percpu replay/perf_* replay/rodata replay/state*
decode    replay/block_cache replay/calls replay/cursor replay/decode replay/index replay/insn replay/timeline replay/unwind replay/symbols replay/dwarf_symbols replay/source replay/provenance replay/explain replay/history_format replay/spans replay/session
target    replay/replay_* replay/svr4
frontend  replay/frontend* replay/cexpr*
live      stub/stub_break stub/stub_dreg stub/stub_hw stub/stub_info stub/stub_maps stub/stub_mem stub/stub_probe stub/stub_proc stub/stub_procfs stub/stub_regs stub/stub_resume stub/stub_spawn stub/stub_svr4 stub/stub_target stub/stub_thread stub/stub_trap stub/stub_vfile stub/stub_wait
rectarget stub/stub_rec_target
recorders stub/stub_rec* stub/stub_hwpt* stub/stub_vgrec stub/stub_swpt stub/stub_recorder
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

files=$(ls protocol/*.[ch] dwarf/*.[ch] replay/*.[ch] stub/*.[ch] cli/*.[ch] 2>/dev/null)
# shellcheck disable=SC2086
grep -n '^#include "[a-z]*/[A-Za-z0-9_]*\.h"' $files /dev/null |
awk -v rooms="$ROOMS" -v may="$MAY" -v all="$files" '
function room(path,    base, i, n, pats, j, p) {
	base = path
	sub(/\.[ch]$/, "", base)
	for (i = 1; i <= nroom; i++) {
		n = split(pat[i], pats, " ")
		for (j = 1; j <= n; j++) {
			p = pats[j]
			if (p == base)
				return name[i]
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
	if (!((from, to) in allowed)) {
		printf "%s:%s: includes %s: room %s may not include room %s\n", f[1], f[2], inc,
		       from, to
		bad = 1
	}
}
END { exit bad }
'
