#!/bin/sh
# tests/fuzz/run.sh SECONDS TARGET...: build and run libFuzzer targets.
#
# Each TARGET is the basename of tests/fuzz/TARGET.c. It is built with clang's
# libFuzzer, ASan and UBSan (UB aborts, so it counts as a crash) into
# build-fuzz/TARGET, its corpus build-fuzz/corpus-TARGET/ is seeded from
# tests/fuzz/seeds/TARGET/, and it runs for SECONDS. Crash inputs land in
# build-fuzz/artifacts-TARGET/, the log in build-fuzz/TARGET.log; reproduce
# one with `build-fuzz/TARGET build-fuzz/artifacts-TARGET/crash-...`.
# What a target is built with comes from its `fuzz-build:` comment line:
# module folders or source globs it needs, then libraries (`-l...`), e.g.
#   * fuzz-build: dwarf -ldwarf -lelf -lz -lstdc++
#   * fuzz-build: replay/model/perf_*.c replay/model/bundle*.c -lipt -ljansson
# Exit status: 0 if no target found a crash, leak or timeout, 1 otherwise,
# 2 on a usage or build error.
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS TARGET..." >&2
	exit 2
fi
seconds=$1
shift
case $seconds in
'' | *[!0-9]*) echo "$0: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/../.." || exit 2
CLANG=${CLANG:-clang}
OUT=build-fuzz
mkdir -p "$OUT"

status=0
for target in "$@"; do
	src=tests/fuzz/$target.c
	bin=$OUT/$target
	corpus=$OUT/corpus-$target
	artifacts=$OUT/artifacts-$target
	log=$OUT/$target.log

	if [ ! -f "$src" ]; then
		echo "fuzz: $target: no $src" >&2
		exit 2
	fi
	build=$(sed -n 's/^.*fuzz-build: *//p' "$src" | head -n 1)
	if [ -z "$build" ]; then
		echo "fuzz: $target: no 'fuzz-build:' line in $src" >&2
		exit 2
	fi
	srcs= libs=
	for word in $build; do
		case $word in
		-*) libs="$libs $word" ;;
		*.c) srcs="$srcs $(ls $word)" ;;
		*) srcs="$srcs $(find "$word" -name "*.c" | sort)" ;;   # a folder, sub-folders too
		esac
	done
	echo "fuzz: $target: building"
	# shellcheck disable=SC2086 # word lists on purpose
	if ! $CLANG -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-g -O1 -std=c11 -D_GNU_SOURCE -I. "$src" $srcs -o "$bin" $libs; then
		echo "fuzz: $target: build failed" >&2
		exit 2
	fi

	mkdir -p "$corpus" "$artifacts"
	if [ -d "tests/fuzz/seeds/$target" ]; then
		cp tests/fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null
	fi

	echo "fuzz: $target: running ${seconds}s (log: $log)"
	# A hostile input may make a library ask for an absurd allocation; as
	# in a normal run, the allocator then returns NULL (and the code must
	# cope) rather than the sanitizer stopping.
	if ASAN_OPTIONS=allocator_may_return_null=1 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $target: ok, ${runs:-?} runs, corpus $(ls "$corpus" | wc -l) inputs"
	else
		echo "fuzz: $target: FAILED; the report:" >&2
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" >&2
		status=1
	fi
done
exit $status
