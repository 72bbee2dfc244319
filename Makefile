# SPDX-License-Identifier: GPL-2.0-only
# memtrace - per-task and per-module peak page usage from tracefs

VERSION := 0.1.0
SHELL := /bin/bash

# Packagers: CC is yours; CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS are appended to ours (yours
# come last and win); install paths below; DESTDIR is prepended to all of them. V=1 shows
# full command lines.
CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# the boot binary, memtrace-boot (not a command of its own: the initramfs images take it,
# where the dracut module and the initramfs-tools hook look: LIBEXECDIR/memtrace)
LIBEXECDIR ?= $(PREFIX)/libexec
# the systemd unit's log directory: systemd creates it (LogsDirectory=), so under /var/log
LOGDIR ?= /var/log/memtrace
# dracut reads modules from its own directory only, whatever PREFIX is
ifeq ($(origin DRACUTMODDIR),undefined)
DRACUTMODDIR := $(or $(shell $(PKG_CONFIG) --variable=dracutmodulesdir dracut 2>/dev/null),\
	/usr/lib/dracut/modules.d)
endif
# systemd's own unit directory for PREFIX=/usr; else PREFIX/lib/systemd/system (systemd
# also reads /usr/local/lib/systemd/system)
ifeq ($(origin SYSTEMDUNITDIR),undefined)
ifeq ($(PREFIX),/usr)
SYSTEMDUNITDIR := $(or $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd \
	2>/dev/null),/usr/lib/systemd/system)
else
SYSTEMDUNITDIR := $(PREFIX)/lib/systemd/system
endif
endif
# initramfs-tools (Debian, Ubuntu; kdump-tools' capture initrd) reads hooks and scripts from
# here (and from /etc/initramfs-tools), whatever PREFIX is
INITRAMFS_TOOLS_DIR ?= /usr/share/initramfs-tools
ITOOLS_FILES := hooks/memtrace scripts/init-top/memtrace scripts/init-bottom/memtrace \
	scripts/memtrace-initrd
DRACUT_FILES := module-setup.sh memtrace-dracut.sh memtrace-start.sh memtrace-report.sh

WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wcast-align -Wwrite-strings -Wundef -Wvla -Wconversion \
	-Wno-sign-conversion
ifeq ($(WERROR),1)
WARN += -Werror
endif
OPT ?= -O2 -g
override CFLAGS := -std=gnu11 $(OPT) $(WARN) $(CFLAGS)
# 64-bit file offsets, inode numbers and time on 32-bit builds too (i386, armhf): without
# them readdir() fails with EOVERFLOW under a 64-bit kernel with 64-bit directory offsets
# (XFS, btrfs, NFS, qemu-user on ext4). No-ops on 64-bit and musl; glibc >= 2.34 for time.
LFS_FLAGS := -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
override CPPFLAGS := -I. -D_GNU_SOURCE $(LFS_FLAGS) -DMEMTRACE_VERSION='"$(VERSION)"' $(CPPFLAGS)
# each object's dependencies, as the compiler saw them (its .d beside it): touching a
# header rebuilds only the objects that include it
DEPFLAGS = -MMD -MP

# Optional libtraceevent + libtracefs (as trace-cmd finds them: pkg-config). memtrace
# itself stays libc only; with them, build/tests/crosscheck decodes the same recorded
# sub-buffers with libtraceevent and ours and requires identical events.
# NO_LIBTRACEFS=1 opts out.
ifneq ($(NO_LIBTRACEFS),1)
TEP_VERSIONS := $(shell $(PKG_CONFIG) --modversion libtraceevent libtracefs 2>/dev/null)
endif
ifeq ($(words $(TEP_VERSIONS)),2)
HAVE_TEP := 1
TEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags libtraceevent libtracefs)
TEP_LIBS := $(shell $(PKG_CONFIG) --libs libtraceevent libtracefs)
TEP_MSG := libtraceevent $(word 1,$(TEP_VERSIONS)) and libtracefs $(word 2,$(TEP_VERSIONS)) \
	found: the decoder cross-check is built (NO_LIBTRACEFS=1 to opt out)
else ifeq ($(NO_LIBTRACEFS),1)
TEP_MSG := NO_LIBTRACEFS=1: libc only, the decoder cross-check is skipped
else
TEP_MSG := libtraceevent/libtracefs not found by $(PKG_CONFIG) (Debian: libtraceevent-dev \
	libtracefs-dev): libc only, the decoder cross-check is skipped
endif
# once per make run (sub-makes of ours inherit the marker), and not for clean
ifndef MEMTRACE_TEP_SAID
ifeq ($(filter clean uninstall,$(MAKECMDGOALS)),)
$(info memtrace: $(TEP_MSG))
endif
export MEMTRACE_TEP_SAID := 1
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif
# the short "  CC      file" lines: not with V=1 (the full ones show), nor with make -s
# (silent: its single-letter flags are MAKEFLAGS' first word, if any; "-" before it for
# make 3.x's, which has no dash; a long option there is none of them)
SAY := $(Q)
ifneq ($(findstring s,$(filter-out --%,$(firstword -$(MAKEFLAGS)))),)
SAY :=
endif

# The sources (docs/architecture.md, "The folders"): the design card's files at the root,
# every other one in a folder by concern, each .c of a folder part of the program; a new
# file is found by the wildcard. Everything but main(), shared by the daemon and the tests:
SRC_DIRS := lib kernel model input diff core output ui stream run modes
ROOT_SRCS := tracefs.c stats.c module.c signals.c
LIB_SRCS := $(ROOT_SRCS) $(foreach d,$(SRC_DIRS),$(sort $(wildcard $(d)/*.c)))
HDRS := $(wildcard *.h) $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h))
# Everything built goes under build/ (B), by the source's path: build/util.o,
# build/tests/unit, build/bench/churn, build/hooks/, build/static/, build/fuzz/,
# build/cross/ARCH/; only the programs a user runs stay at the top, ./memtrace (and
# ./memtrace-static), where README's commands and the tests find them.
B := build
LIB_OBJS := $(addprefix $(B)/,$(LIB_SRCS:.c=.o))
OBJS := $(B)/memtrace.o $(LIB_OBJS)

TEST_SRCS := tests/unit_main.c $(wildcard tests/test_*.c)
TEST_OBJS := $(addprefix $(B)/,$(TEST_SRCS:.c=.o))
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

all: memtrace

memtrace: $(OBJS)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(B)/tests/unit: $(TEST_OBJS) $(LIB_OBJS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LIB_OBJS) $(CHECK_LIBS) $(LDLIBS)

# the test build: the fault hooks (MEMTRACE_TEST_*, core/testhook.h) compiled in; never installed
HOOK_OBJS := $(patsubst $(B)/%,$(B)/hooks/%,$(OBJS))

$(B)/hooks/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CC      $@ (test hooks)")
	$(Q)$(CC) $(CPPFLAGS) $(DEPFLAGS) -DMEMTRACE_TEST_HOOKS $(CFLAGS) -c -o $@ $<

$(B)/tests/memtrace-hooks: $(HOOK_OBJS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(HOOK_OBJS) $(LDLIBS)

# the test helpers: one program of one source file each
$(B)/tests/workload $(B)/tests/remap $(B)/tests/thpmove $(B)/tests/forker: $(B)/%: %.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

$(B)/tests/threads: tests/threads.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -pthread -o $@ $< -pthread

# rewrites a recording in the other byte order (tests/byteorder.sh)
$(B)/tests/swaporder: tests/swaporder.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -I. $(CFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

$(B)/bench/churn $(B)/bench/rusage $(B)/bench/turns: $(B)/%: %.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# the CPU of one frame of --top with a full task table (no tracing)
$(B)/bench/topframe: bench/topframe.c bench/benchutil.h $(LIB_OBJS) $(HDRS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -I. $(CFLAGS) -o $@ bench/topframe.c $(LIB_OBJS) $(LDLIBS)

# the CPU of one --svg sample with a full task table (no tracing)
$(B)/bench/series: bench/series.c bench/benchutil.h $(LIB_OBJS) $(HDRS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -I. $(CFLAGS) -o $@ bench/series.c $(LIB_OBJS) $(LDLIBS)

# the reader's live merge over a recording (bench/scale.sh); seeding a fake /proc, and many
# sleeping tasks (bench/tasks.sh)
$(B)/bench/mergelive $(B)/bench/seedbench: $(B)/%: %.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -I. $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB_OBJS) $(LDLIBS)

$(B)/bench/sleepers: bench/sleepers.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -pthread -o $@ $< -pthread

# the decoder against libtraceevent on real recordings (only with the libraries)
ifeq ($(HAVE_TEP),1)
CROSSCHECK_BIN := $(B)/tests/crosscheck
CROSSCHECK_RUN := ./tests/crosscheck.sh
$(B)/tests/crosscheck: tests/crosscheck.c $(LIB_OBJS) $(HDRS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(CC) $(CPPFLAGS) -I. $(TEP_CFLAGS) $(CFLAGS) -o $@ tests/crosscheck.c $(LIB_OBJS) \
		$(TEP_LIBS) $(LDLIBS)
else
CROSSCHECK_BIN :=
CROSSCHECK_RUN := CROSSCHECK_SKIP="$(TEP_MSG)" ./tests/crosscheck.sh
endif

# unit tests, the shape of the tree (sizes, no cycles), no test hooks in the release
# binary, the documentation against the program, install into a DESTDIR, then the
# tests on the real tracefs (daemon, recordings, signal and task storms, big machines, the
# decoder against libtraceevent, command mode, accuracy and data safety, the live view under
# tmux, the Prometheus file through promtool and node_exporter, JSON lines, --stream); each
# prints its summary line ("N passed, N failed, N skipped"), and tests/check.sh, which runs
# them all, a line per suite and the total over all of them last
TEST_BINS := $(addprefix $(B)/tests/,memtrace-hooks unit workload threads forker remap thpmove \
	swaporder)
# the programs make check runs, built (make -j test-programs, then make check: CI)
test-programs: $(TEST_BINS) $(CROSSCHECK_BIN)

check: memtrace $(TEST_BINS) $(CROSSCHECK_BIN)
	$(Q)./tests/check.sh \
		'CK_DEFAULT_TIMEOUT=60 $(B)/tests/unit' \
		./tests/layers.py \
		./tests/nohooks.sh \
		./tests/docs.sh \
		./tests/ci.sh \
		./tests/install.sh \
		./tests/bootbin.sh \
		./tests/initramfs-tools.sh \
		./tests/dracut-module.sh \
		./tests/integration.sh \
		./tests/accuracy.sh \
		./tests/stacks.sh \
		./tests/byteorder.sh \
		./tests/robust.sh \
		./tests/faults.sh \
		./tests/hostile.sh \
		./tests/stress.sh \
		./tests/scale.sh \
		'$(CROSSCHECK_RUN)' \
		./tests/command.sh \
		./tests/top.sh \
		./tests/metrics.sh \
		./tests/stream.sh \
		./tests/diff.sh \
		./tests/svg.sh

# memtrace's main job: trace a 64 MiB workload and print the report (root). The final
# report goes to DEMO_LOG (default: a new file, named at the end), the tracing to the
# tracefs instance DEMO_INSTANCE (default: memtrace-demo-PID, nobody else's).
DEMO_LOG ?=
DEMO_INSTANCE ?=
# the docs' pictures, from recordings in the repository: docs/boot-memory.svg is memtrace
# --svg of a real traced boot (tests/fixtures/debian-6.1-boot, replayed; svg.sh checks the
# committed picture is this output)
docs-pictures: memtrace
	./memtrace --replay tests/fixtures/debian-6.1-boot --by process --svg docs/boot-memory.svg \
		> /dev/null

demo: memtrace $(B)/tests/workload
	$(Q)DEMO_LOG='$(DEMO_LOG)' DEMO_INSTANCE='$(DEMO_INSTANCE)' ./tests/demo.sh

check-unit: $(B)/tests/unit
	$(Q)CK_DEFAULT_TIMEOUT=60 $(B)/tests/unit

check-valgrind: $(B)/tests/unit
	$(Q)./tests/valgrind.sh

# make sanitize: the unit tests, then memtrace itself (robust.sh's replays, root) under
# ASan and UBSan. Its halves apart: sanitize-unit builds in build/asan and leaves the
# normal build as it is (CI runs it beside make check: no tracefs); sanitize-live
# rebuilds the tree's memtrace with them (make clean first). -Wno-nonnull there only: GCC
# 12's nonnull-attribute check adds a branch where the pointer is NULL, and -Wnonnull
# then warns of the memrchr() call on that branch (stream/outq.c); the normal builds keep it.
SAN_MAKE = $(MAKE) OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-nonnull" \
	LDFLAGS="-fsanitize=address,undefined"
sanitize:
	$(MAKE) sanitize-unit
	$(MAKE) sanitize-live

sanitize-unit:
	+$(SAN_MAKE) B=$(B)/asan $(B)/asan/tests/unit
	CK_DEFAULT_TIMEOUT=60 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(B)/asan/tests/unit

sanitize-live:
	$(MAKE) clean
	+$(SAN_MAKE) memtrace
	$(MAKE) $(B)/tests/workload $(B)/tests/memtrace-hooks
	MEMTRACE_ASAN=$(CURDIR)/memtrace ./tests/robust.sh

# libFuzzer targets (clang, ASan, UBSan) over the parsers and the decoder; each runs
# FUZZ_SECONDS (default 60), seeded with the real fixtures; see tests/fuzz/run.sh
COMMA := ,
FUZZ_TARGETS := ringbuf format proc replay cond runtime diff
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SRCS := $(filter-out tracefs.c kernel/reader.c,$(LIB_SRCS)) kernel/reader.c tracefs.c
# the library compiled once for all targets (instrumented, libFuzzer's main not linked:
# fuzzer-no-link), each target its own file and the link: one compile of each source
# instead of one per target (six of them took 4 minutes of CI)
FUZZ_OBJS := $(addprefix $(B)/fuzzobj/,$(FUZZ_SRCS:.c=.o))

$(B)/fuzzobj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  FUZZCC  $@")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(subst fuzzer$(COMMA),fuzzer-no-link$(COMMA),$(FUZZ_FLAGS)) \
		-c -o $@ $<

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/common.h $(FUZZ_OBJS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -I. $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJS)

fuzz: memtrace $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
	$(Q)./tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# the long campaign (not in make check nor CI: an hour or more): each target until
# FUZZ_RUNS executions (at most FUZZ_LONG_MAX_S seconds), at nice 19, one per CPU; what it
# found is merged into the corpus kept in tests/fuzz/corpus/ (at most FUZZ_KEEP_KB KiB a
# target, tests/fuzz/keep.py; commit it), which make fuzz starts from; figures in
# docs/testing.md
FUZZ_RUNS ?= 10000000
fuzz-long: memtrace $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
	$(Q)./tests/fuzz/run.sh --long $(FUZZ_RUNS) $(FUZZ_TARGETS)

# a static binary for small initramfs images: musl, libc only, size-optimized, stripped;
# not position-independent (a static binary is loaded where it was linked: PIE code
# would only cost bytes)
STATIC_CC ?= musl-gcc
STATIC_FLAGS := -std=gnu11 -Os -fno-pie -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables $(WARN)
# Its segments are not page-aligned in the file (-z noseparate-code: 8 KiB less; the
# read-only data shares the code's segment, as before binutils 2.31), and its data follows
# its code in the file without padding (-z norelro, -z common-page-size=64: the data's start
# was placed for a RELRO page that musl's static start never protects, which put up to 4 KiB
# of zeros before it as the code grew; the file now grows with the code, byte for byte; the
# pages are mapped as before). Both static binaries.
STATIC_LDFLAGS := -static -no-pie -Wl,--gc-sections -s -Wl,-z,noseparate-code -Wl,-z,norelro \
	-Wl,-z,common-page-size=64
STATIC_OBJS := $(patsubst $(B)/%,$(B)/static/%,$(OBJS))

$(B)/static/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CC      $@ (static)")
	$(Q)$(STATIC_CC) $(CPPFLAGS) $(DEPFLAGS) $(STATIC_FLAGS) -c -o $@ $<

memtrace-static: $(STATIC_OBJS)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(STATIC_CC) $(STATIC_LDFLAGS) -o $@ $(STATIC_OBJS)

static: memtrace-static

# The boot binary, what the dracut and initramfs-tools images take (core/build.h): static
# and stripped as memtrace-static, with -DMEMTRACE_BOOT and without the files of what no
# image runs: --top (ui/), --stream (stream/, its conditions), --diff (diff/), --exits,
# --svg's picture, --prometheus' file. A file that is needed but left out is an undefined
# symbol at the link. Linked as memtrace-static (STATIC_LDFLAGS).
BOOT_LEFT_OUT := $(wildcard ui/*.c stream/*.c diff/*.c) core/cond.c output/svg.c output/prom.c \
	modes/top.c modes/stream.c modes/diff.c modes/exits.c
BOOT_OBJS := $(addprefix $(B)/boot/,$(patsubst %.c,%.o,memtrace.c $(filter-out \
	$(BOOT_LEFT_OUT),$(LIB_SRCS))))

$(B)/boot/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CC      $@ (boot)")
	$(Q)$(STATIC_CC) $(CPPFLAGS) -DMEMTRACE_BOOT $(DEPFLAGS) $(STATIC_FLAGS) -c -o $@ $<

memtrace-boot: $(BOOT_OBJS)
	@$(if $(SAY),echo "  LD      $@")
	$(Q)$(STATIC_CC) $(STATIC_LDFLAGS) -o $@ $(BOOT_OBJS)

# Other architectures (Debian's names): static glibc binaries from Debian's cross compilers
# (gcc-TRIPLET, libc6-dev-ARCH-cross), for make check-cross and make e2e-arch:
# build/cross/ARCH/memtrace, build/cross/ARCH/workload. One compiler call each, no objects kept.
CROSS_ARCHS := s390x arm64 armhf i386
cross_triplet = $(or $(if $(filter s390x,$1),s390x-linux-gnu),$(if $(filter arm64,$1),\
	aarch64-linux-gnu),$(if $(filter armhf,$1),arm-linux-gnueabihf),$(if $(filter i386,$1),\
	i686-linux-gnu),$(error unknown cross architecture '$1' (one of: $(CROSS_ARCHS))))

$(B)/cross/%/memtrace: memtrace.c $(LIB_SRCS) $(HDRS)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CROSS   $@")
	$(Q)$(call cross_triplet,$*)-gcc $(CPPFLAGS) $(CFLAGS) -static -o $@ memtrace.c $(LIB_SRCS)

$(B)/cross/%/workload: tests/workload.c
	@mkdir -p $(@D)
	$(Q)$(call cross_triplet,$*)-gcc $(CPPFLAGS) $(CFLAGS) -static -o $@ $<

# The unit tests for other architectures under qemu-user (make check-cross, tests/cross.sh):
# s390x is big-endian and 64-bit, i386 and armhf are 32-bit. Linked statically against the
# multiarch Check (check:ARCH, in /usr/lib/TRIPLET); one compiler call each, no objects kept
# (the library's missing-prototype warnings are build/cross/ARCH/memtrace's to give).
CROSS_TEST_ARCHS := s390x i386 armhf
cross_libdir = /usr/lib/$(if $(filter i386,$1),i386-linux-gnu,$(call cross_triplet,$1))
$(B)/cross/%/unit: $(TEST_SRCS) $(LIB_SRCS) $(HDRS) $(wildcard tests/*.h)
	@mkdir -p $(@D)
	@$(if $(SAY),echo "  CROSS   $@")
	$(Q)$(call cross_triplet,$*)-gcc $(CPPFLAGS) -I. $(CFLAGS) -Wno-missing-prototypes -pthread \
		-static -o $@ $(TEST_SRCS) $(LIB_SRCS) -L$(call cross_libdir,$*) \
		-lcheck -lsubunit -lm -lrt -lpthread

# each architecture's Check summary, and the recordings under tests/fixtures replayed there
# to this machine's report; then "N passed, N failed" over the architectures; SKIP with the
# reason where a compiler, Check or qemu-user is not installed
check-cross: memtrace
	$(Q)MAKE="$(MAKE)" ./tests/cross.sh $(CROSS_TEST_ARCHS)

# make install [DESTDIR=...] [PREFIX=...]: the binary, the boot binary, the man page, the
# systemd unit (not enabled), the dracut module (opt-in: dracut --add memtrace) and the
# initramfs-tools scripts (in every image; they start memtrace only with memtrace=N on the
# command line)
install: install-bin install-boot install-man install-systemd install-dracut \
	install-initramfs-tools

install-bin: memtrace
	install -d "$(DESTDIR)$(BINDIR)"
	install -m 0755 memtrace "$(DESTDIR)$(BINDIR)/memtrace"

# the boot binary, which the images take (without it they take memtrace, and say so); it
# needs musl-gcc (STATIC_CC): without one, make install says it leaves it out
HAVE_STATIC_CC := $(shell command -v $(STATIC_CC) 2> /dev/null)
ifneq ($(HAVE_STATIC_CC),)
install-boot: memtrace-boot
	install -d "$(DESTDIR)$(LIBEXECDIR)/memtrace"
	install -m 0755 memtrace-boot "$(DESTDIR)$(LIBEXECDIR)/memtrace/memtrace-boot"
else
install-boot:
	@echo "memtrace: no $(STATIC_CC) (Debian: musl-tools): memtrace-boot is not built nor" \
		"installed; the initramfs images take memtrace"
endif

install-man:
	install -d "$(DESTDIR)$(MANDIR)/man8"
	install -m 0644 memtrace.8 "$(DESTDIR)$(MANDIR)/man8/memtrace.8"

# the unit runs $(BINDIR)/memtrace and writes $(LOGDIR)/memtrace.log
LOGS_DIRECTORY = $(patsubst /var/log/%,%,$(LOGDIR))
install-systemd:
	@case "$(LOGDIR)" in /var/log/?*) ;; *) echo "LOGDIR must be under /var/log" \
		"(the unit's LogsDirectory=), not $(LOGDIR)" >&2; exit 2 ;; esac
	install -d "$(DESTDIR)$(SYSTEMDUNITDIR)"
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LOGDIR@|$(LOGDIR)|g' \
		-e 's|@LOGS_DIRECTORY@|$(LOGS_DIRECTORY)|g' systemd/memtrace.service.in \
		> "$(DESTDIR)$(SYSTEMDUNITDIR)/memtrace.service.tmp"
	chmod 0644 "$(DESTDIR)$(SYSTEMDUNITDIR)/memtrace.service.tmp"
	mv -f "$(DESTDIR)$(SYSTEMDUNITDIR)/memtrace.service.tmp" \
		"$(DESTDIR)$(SYSTEMDUNITDIR)/memtrace.service"

# the dracut module finds memtrace in PATH, /usr/local/sbin or /usr/local/bin at image
# build time (or MEMTRACE_BIN)
install-dracut:
	install -d "$(DESTDIR)$(DRACUTMODDIR)/99memtrace"
	for f in $(DRACUT_FILES); do \
		install -m 0755 "dracut/99memtrace/$$f" "$(DESTDIR)$(DRACUTMODDIR)/99memtrace/" || exit; \
	done
	install -m 0644 dracut/99memtrace/memtrace.service "$(DESTDIR)$(DRACUTMODDIR)/99memtrace/"

# the hook copies memtrace (MEMTRACE_BIN, PATH, /usr/sbin or /usr/local) into the image;
# mkinitramfs copies scripts/ itself: the start/stop helper is the dracut module's
install-initramfs-tools:
	install -d "$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/hooks" \
		"$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/scripts/init-top" \
		"$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/scripts/init-bottom"
	for f in hooks/memtrace scripts/init-top/memtrace scripts/init-bottom/memtrace; do \
		install -m 0755 "initramfs-tools/$$f" "$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/$$f" || exit; \
	done
	install -m 0755 dracut/99memtrace/memtrace-dracut.sh \
		"$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/scripts/memtrace-initrd"

# (an enabled unit: systemctl disable --now memtrace first; the initramfs-tools scripts stay
# in the images built until update-initramfs -u)
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/memtrace" "$(DESTDIR)$(MANDIR)/man8/memtrace.8" \
		"$(DESTDIR)$(SYSTEMDUNITDIR)/memtrace.service" \
		"$(DESTDIR)$(LIBEXECDIR)/memtrace/memtrace-boot"
	if [ -d "$(DESTDIR)$(LIBEXECDIR)/memtrace" ]; then \
		rmdir "$(DESTDIR)$(LIBEXECDIR)/memtrace"; fi
	for f in $(DRACUT_FILES) memtrace.service; do \
		rm -f "$(DESTDIR)$(DRACUTMODDIR)/99memtrace/$$f"; \
	done
	if [ -d "$(DESTDIR)$(DRACUTMODDIR)/99memtrace" ]; then \
		rmdir "$(DESTDIR)$(DRACUTMODDIR)/99memtrace"; fi
	for f in $(ITOOLS_FILES); do rm -f "$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/$$f"; done

# benchmarks (root): replay throughput, the live storm against trace-cmd record, footprint;
# figures in bench/results.md (see README)
bench: memtrace $(addprefix $(B)/bench/,churn rusage topframe) $(B)/tests/workload \
		$(B)/tests/forker
	$(Q)./bench/run.sh

# static analysis: cppcheck and clang-tidy over the daemon's sources; fails on any finding.
# Left out of clang-tidy: the analyzer's null model of `v ? &a[v - 1] : NULL` (stats.c
# lookups) and va_list in printf wrappers (false positives in clang 14), strcpy (each is
# after a length check), branch clones (separate reasons, same action), and the noisy
# style checks on swappable parameters and narrowing (-Wconversion covers those).
CPPCHECK ?= cppcheck
CLANG_TIDY ?= clang-tidy
TIDY_CHECKS := -*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters,\
-bugprone-narrowing-conversions,-bugprone-implicit-widening-of-multiplication-result,\
-bugprone-suspicious-string-compare,-bugprone-branch-clone,\
-clang-analyzer-core.NullDereference,-clang-analyzer-core.NonNullParamChecker,\
-clang-analyzer-valist.Uninitialized,-clang-analyzer-security.insecureAPI.strcpy,\
-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling
# both over LINT_JOBS processes (default: one per CPU; clang-tidy one file at a time was
# four minutes of CI): cppcheck -j, and clang-tidy a file per job of a sub-make
LINT_JOBS ?= $(shell nproc 2> /dev/null || echo 1)
TIDY_FILES := $(addprefix tidy/,$(LIB_SRCS) memtrace.c)
.PHONY: lint $(TIDY_FILES)
lint:
	$(CPPCHECK) --quiet -j $(LINT_JOBS) --enable=warning,portability,performance --std=c11 --inline-suppr \
		--error-exitcode=1 -I. -D_GNU_SOURCE $(LFS_FLAGS) -DMEMTRACE_VERSION='"$(VERSION)"' $(LIB_SRCS) memtrace.c
	$(Q)$(MAKE) --no-print-directory -j $(LINT_JOBS) $(TIDY_FILES)
	@echo "lint: cppcheck and clang-tidy found nothing"
$(TIDY_FILES): tidy/%:
	$(Q){ $(CLANG_TIDY) --quiet --warnings-as-errors='*' -checks='$(TIDY_CHECKS)' \
		$* -- -std=gnu11 -I. -D_GNU_SOURCE $(LFS_FLAGS) -DMEMTRACE_VERSION='"$(VERSION)"' \
		2>&1 1>&3 | grep -v 'warnings generated' >&2; exit $${PIPESTATUS[0]}; } 3>&1

# early boot under QEMU (TCG): dracut images of Debian's kernel, both flavours, with the boot
# binary (root)
e2e: memtrace memtrace-boot
	$(Q)./tests/e2e.sh

# Debian's 6.1 kernels for s390x, arm64, armhf and i386 under QEMU (TCG), busybox-static
# initramfs with build/cross/ARCH/memtrace (built by the script); the guests' recordings replayed
# by the host's memtrace (root; the .debs cached in tests/e2e-arch/cache)
e2e-arch: memtrace
	$(Q)./tests/e2e-arch.sh

# Release and packages (issue 26). The version is VERSION above, and only there: make dist
# refuses a tarball while NEWS, debian/changelog, memtrace.spec or memtrace.8 name another.
# build/memtrace-VERSION.tar.gz holds the tracked files (git ls-files) as they are in the
# work tree (commit first: it warns where they differ from HEAD), with the last commit's
# time (or SOURCE_DATE_EPOCH), owner 0, sorted names and normalized modes, gzip -n: two
# runs give the same bytes; its sha256 beside it. make check-package (root, CI): the
# tarball twice, the .deb and the RPM built from it, lintian, rpmlint, the three file
# lists, and the .deb installed, run and purged (tests/package.sh).
DIST := memtrace-$(VERSION)
dist:
	$(Q)git rev-parse --git-dir > /dev/null 2>&1 || { echo "make dist: needs the git tree" >&2; exit 2; }
	$(Q)bad=; \
	head -5 NEWS | grep -qx 'memtrace $(VERSION)' || bad="$$bad NEWS"; \
	head -1 debian/changelog | grep -q '^memtrace ($(VERSION)-[0-9]' || bad="$$bad debian/changelog"; \
	grep -qE '^Version:[[:space:]]+$(VERSION)$$' memtrace.spec || bad="$$bad memtrace.spec"; \
	grep -m1 '^\.TH' memtrace.8 | grep -qF '"memtrace $(VERSION)"' || bad="$$bad memtrace.8"; \
	[ -z "$$bad" ] || { echo "make dist: VERSION is $(VERSION), but not in:$$bad" >&2; exit 2; }
	$(Q)git diff --quiet HEAD -- 2>/dev/null || echo "make dist: warning: tracked files differ" \
		"from HEAD; the tarball holds the work tree's" >&2
	$(Q)rm -rf $(B)/dist && mkdir -p $(B)/dist/$(DIST)
	$(Q)git ls-files -z | xargs -0 cp --parents -P -t $(B)/dist/$(DIST)
	$(Q)set -o pipefail; epoch=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct)}; \
	LC_ALL=C tar --format=gnu --sort=name --mtime=@$$epoch --owner=0 --group=0 \
		--numeric-owner --mode='u+rw,go=rX,a-st' -C $(B)/dist -cf - $(DIST) | \
		gzip -9n > $(B)/$(DIST).tar.gz.tmp
	$(Q)mv -f $(B)/$(DIST).tar.gz.tmp $(B)/$(DIST).tar.gz && rm -rf $(B)/dist
	$(Q)cd $(B) && sha256sum $(DIST).tar.gz > $(DIST).tar.gz.sha256
	@echo "$(B)/$(DIST).tar.gz"; cat $(B)/$(DIST).tar.gz.sha256

check-package:
	$(Q)./tests/check.sh ./tests/package.sh

clean:
	rm -rf $(B) memtrace memtrace-static memtrace-boot

# the compiler's record of what each object includes (DEPFLAGS); files only: make dist's
# tree under build/dist holds the directory tests/hostile.d while it is made, and a make
# run beside it (make check-package next to .ci/run --side) stopped on it
-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)

PHONY_EXTRA := test-programs demo e2e e2e-arch fuzz fuzz-long static bench lint install-bin install-boot install-man install-systemd \
	install-dracut install-initramfs-tools uninstall check-cross dist check-package
.PHONY: all check check-unit $(PHONY_EXTRA) check-valgrind sanitize sanitize-unit sanitize-live install clean docs-pictures

# issue 38 (root, not in make check): the smallest healthy crashkernel= of make e2e's kdumps,
# bisected (30-90 min), and Debian's own kdump-tools with this tree's .deb (debootstrap, cached)
kdump-bisect: memtrace
	$(Q)./tests/kdump-bisect.sh
e2e-kdump-tools:
	$(Q)./tests/e2e-kdump-tools.sh
.PHONY: kdump-bisect e2e-kdump-tools
