# hindsight: build, test, install.
#
#   make                 build build/hindsight (warnings are errors)
#   make check           unit + end-to-end tests, then the same under ASan + UBSan
#   make check-fast      unit + end-to-end tests of the normal build only
#   make fuzz            libFuzzer targets, FUZZ_SECONDS each (default 60)
#   make demo            the bundled example: a scripted GDB session
#   make bench           measurements against peers (GDB record full, libipt)
#   make install         PREFIX=/usr/local DESTDIR=
#   make deps            install what a fresh Debian 12 machine lacks
#
# SANITIZE=1 builds into build-asan/ with AddressSanitizer and UBSan.
# Inside the folders, files belong to rooms (docs/ARCHITECTURE.md); which
# room may include which is checked on every build (scripts/check-rooms.sh),
# and each room is a static library linked in dependency order, so a wrong
# dependency is a build error either way.

ifeq ($(origin CC),default)
CC := gcc
endif
PREFIX ?= /usr/local
DESTDIR ?=

ifeq ($(SANITIZE),1)
BUILD ?= build-asan
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1
else
BUILD ?= build
SAN_FLAGS :=
OPT := -O2
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wvla -Wpointer-arith -Wundef
CFLAGS ?= $(OPT) -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -I. $(WARN) $(CFLAGS) $(SAN_FLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SAN_FLAGS)
# libipt (PT encode / decode), Zydis (x86 decoding), jansson (trace.json),
# libdwarf + libelf (symbols and lines). docs/DEPENDENCIES.md says why.
# -lstdc++: __cxa_demangle for C++ names (dwarf/). -lreadline: the
# interactive `hindsight replay`.
LDLIBS := -lipt -lZydis -ljansson -ldwarf -lelf -lz -lstdc++ -lreadline

# Each room (docs/ARCHITECTURE.md, "Rooms") is a static library,
# $(BUILD)/librooms/ROOM.a. scripts/check-rooms.sh checks the includes
# between rooms and writes $(BUILD)/rooms.mk: each room's sources
# (ROOM_SRCS_room) and ROOM_LIBS, the rooms in link order (users before
# what they use); before the link, `--links` checks that no room's objects
# use a symbol of a room it may not include.
.DEFAULT_GOAL := all
ROOM_FILES := $(wildcard protocol/*.[ch] dwarf/*.[ch] replay/*/*.[ch] stub/*/*.[ch] cli/*.[ch])
$(BUILD)/rooms.mk: scripts/check-rooms.sh $(ROOM_FILES)
	@mkdir -p $(@D)
	@scripts/check-rooms.sh --make $@.tmp && mv $@.tmp $@
-include $(BUILD)/rooms.mk
MODULE_LIBS := $(foreach r,$(ROOM_LIBS),$(BUILD)/librooms/$(r).a)

CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/cli/cli_timeline_assets.o
# The timeline page's parts, built into the binary: web/ and d3 from npm.
D3_JS := web/node_modules/d3/dist/d3.min.js
WEB_ASSETS := web/timeline.html web/timeline.css web/timeline.js $(D3_JS)
BIN := $(BUILD)/hindsight

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_PROGS_SRCS := $(wildcard tests/programs/*.c)

# Keep intermediate objects (test objects are built through a chain).
.SECONDARY:

.PHONY: all check check-fast check-asan unit e2e fuzz demo install deps clean bench vgtool
all: $(BIN) vgtool

# The Valgrind tool of the fast recorder (vgtool/, GPL-2.0-or-later): a
# separate static program linked with Valgrind's libraries from Debian's
# valgrind package, never with hindsight's. $(BUILD)/vgtool is the
# VALGRIND_LIB it runs from: the tool beside links to Valgrind's own files.
# Flags as Valgrind's Makefile.all.am / Makefile.tool.am for amd64-linux.
VG_INC := /usr/include/valgrind
VG_LIBDIR := /usr/lib/x86_64-linux-gnu/valgrind
VG_LIBEXEC := /usr/libexec/valgrind
VGTOOL := $(BUILD)/vgtool/hsrec-amd64-linux
VG_CFLAGS := -m64 -O2 -g -std=gnu99 -Wall -Wno-unused-parameter -fno-stack-protector \
	-fno-strict-aliasing -fno-builtin -fomit-frame-pointer -fno-pie -I$(VG_INC) \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1
VG_LDFLAGS := -m64 -static -nodefaultlibs -nostartfiles -u _start \
	-Wl,-Ttext-segment=$(or $(shell pkg-config --variable=valt_load_address valgrind 2>/dev/null),0x58000000)
ifneq ($(wildcard $(VG_INC)/pub_tool_basics.h),)
vgtool: $(VGTOOL)
else
vgtool:
	@echo "vgtool: valgrind is not installed (make deps): the fast recorder is not built"
endif

VGTOOL_OBJS := $(BUILD)/vgtool/hsrec_main.o $(BUILD)/vgtool/hsrec_instr.o $(BUILD)/vgtool/hsrec_stream.o \
	       $(BUILD)/vgtool/hsrec_inputs.o $(BUILD)/vgtool/hsrec_rebuild.o $(BUILD)/vgtool/hsrec_log.o \
	       $(BUILD)/vgtool/hsrec_sys.o $(BUILD)/vgtool/hsrec_watch.o \
	       $(BUILD)/vgtool/hsrec_shared.o
$(BUILD)/vgtool/%.o: vgtool/%.c vgtool/hsrec_proto.h vgtool/hsrec_inputs.h vgtool/hsrec_inputs_int.h vgtool/hsrec_sys.h \
		     vgtool/hsrec_main_int.h vgtool/hsrec_watch.h
	@mkdir -p $(@D)
	gcc $(VG_CFLAGS) -c $< -o $@

$(VGTOOL): $(VGTOOL_OBJS)
	gcc $(VG_LDFLAGS) -o $@ $(VGTOOL_OBJS) $(VG_LIBDIR)/libcoregrind-amd64-linux.a \
		$(VG_LIBDIR)/libvex-amd64-linux.a -lgcc $(VG_LIBDIR)/libgcc-sup-amd64-linux.a
	@for f in $(VG_LIBEXEC)/*; do ln -sfn $$f $(@D)/; done

define room_rules
$(BUILD)/librooms/$(1).a: $$(patsubst %.c,$(BUILD)/%.o,$$(ROOM_SRCS_$(1))) $(BUILD)/rooms.mk
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$(filter %.o,$$^)
endef
$(foreach r,$(ROOM_LIBS),$(eval $(call room_rules,$(r))))

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/cli/cli_timeline_assets.o: cli/cli_timeline_assets.S $(WEB_ASSETS)
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

# d3 as web/package-lock.json pins it, from the npm registry (make deps
# installs node and npm).
$(D3_JS): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(BIN): $(CLI_OBJS) $(MODULE_LIBS)
	@scripts/check-rooms.sh --links $(BUILD)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(MODULE_LIBS) $(LDLIBS)

# Tests read the real recordings in ../shared/ptdata (never copied in).
$(BUILD)/tests/unit/%.o: ALL_CFLAGS += -DHINDSIGHT_SHARED='"$(abspath ../shared)"'

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(MODULE_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(MODULE_LIBS) $(LDLIBS) -lcmocka

# tests/programs/cvars.c at -O0, -O2 and -O2 in DWARF 4, for test_dw_vars and
# test_dw_vars_names (and e2e tests of C expressions): compiled from inside
# tests/programs, as lib.sh's compile_cached does, so debuggers say "cvars.c:LINE".
CVARS := $(BUILD)/tests/programs/cvars $(BUILD)/tests/programs/cvars_O2 \
	$(BUILD)/tests/programs/cvars_O2_dwarf4
$(BUILD)/tests/programs/cvars: tests/programs/cvars.c
	@mkdir -p $(@D)
	cd tests/programs && gcc -g -O0 cvars.c -o $(abspath $@)
$(BUILD)/tests/programs/cvars_O2: tests/programs/cvars.c
	@mkdir -p $(@D)
	cd tests/programs && gcc -g -O2 cvars.c -o $(abspath $@)
$(BUILD)/tests/programs/cvars_O2_dwarf4: tests/programs/cvars.c
	@mkdir -p $(@D)
	cd tests/programs && gcc -gdwarf-4 -O2 cvars.c -o $(abspath $@)
$(BUILD)/tests/test_dw_vars $(BUILD)/tests/test_dw_vars_names: $(CVARS)

unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

e2e: $(BIN)
	@HINDSIGHT=$(abspath $(BIN)) tests/e2e/run.sh

# Every test of one build: unit tests then end-to-end, one summary line.
check-fast: $(BIN) vgtool $(UNIT_BINS)
	@HINDSIGHT=$(abspath $(BIN)) BUILD=$(BUILD) tests/run.sh $(UNIT_BINS)

check-asan:
	@$(MAKE) --no-print-directory SANITIZE=1 check-fast

check: deps
	@$(MAKE) --no-print-directory check-fast
	@$(MAKE) --no-print-directory check-asan

FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SRCS := $(wildcard protocol/*.c)
fuzz:
	@tests/fuzz/run.sh "$(FUZZ_SECONDS)" $(FUZZ_TARGETS)

demo: deps $(BIN) vgtool
	@examples/demo.sh $(abspath $(BIN))

# Side-by-side measurements against peers (GDB record full, plain libipt).
$(BUILD)/bench/%: bench/%.c $(MODULE_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(MODULE_LIBS) $(LDLIBS)

bench: deps $(BIN) vgtool $(BUILD)/bench/bench_decode $(BUILD)/bench/dw_bench $(BUILD)/bench/bench_replay
	@bench/run.sh $(abspath $(BIN)) $(abspath $(BUILD)/bench/bench_decode)
	@echo
	@echo "dwarf/ on libc with libc6-dbg:"
	@$(BUILD)/bench/dw_bench

deps:
	@scripts/install-deps.sh

install: $(BIN) vgtool
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/hindsight
	if [ -f $(VGTOOL) ]; then install -d $(DESTDIR)$(PREFIX)/lib/hindsight/vgtool && \
		install -m 755 $(VGTOOL) $(DESTDIR)$(PREFIX)/lib/hindsight/vgtool/ && \
		for f in $(VG_LIBEXEC)/*; do ln -sfn $$f $(DESTDIR)$(PREFIX)/lib/hindsight/vgtool/; done; fi
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
