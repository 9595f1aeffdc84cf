# SPDX-License-Identifier: GPL-2.0
#
# ftagent: one Makefile for the module (through the kernel's kbuild, see
# Kbuild), the userspace programs, the tests and the packaging.
#
#   make            module + ftctl + tests            make check   everything, in a guest
#   make deps       install Debian packages            make demo    module + workload in a guest
#   make lint       checkpatch, sparse, clang-format   make clean
#   make dkms-install / dkms-remove                    (for a real server)
#   make deb        the Debian packages ftagent-dkms and ftagent, in build/deb
#   make fuzz       each libFuzzer target for FUZZ_SECONDS (60), tests/fuzz
#   make check-debug the tests on a KASAN/lockdep/kmemleak kernel (built once, cached)

# The kernels the tests boot: the newest installed of each Debian 12
# series, 6.1 then 6.12 (tools/test-kernels; named by series, so extra
# headers never change what is tested).
TEST_KVERS := $(shell tools/test-kernels --boot 2>/dev/null)
# Build-only: those and their -rt and -cloud flavours.
BUILD_KVERS := $(shell tools/test-kernels --flavours 2>/dev/null)

# The kernel `make module`, demo and bench build for: KDIR if given (its
# release is read from the headers: Debian's kernel.release holds the
# upstream version), else KVER, else the running kernel when its headers
# are installed, else the first test kernel (6.1).
ifneq ($(origin KDIR),undefined)
KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
else
KVER ?= $(or $(if $(wildcard /lib/modules/$(shell uname -r)/build),$(shell uname -r)),$(firstword $(TEST_KVERS)))
KDIR := /lib/modules/$(KVER)/build
endif

BUILD := build
KSRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
VERSION := $(shell sed -n 's/^\#define FTAGENT_MODULE_VERSION\t*"\(.*\)"/\1/p' kmod/ftagent.h)

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	  -Wmissing-prototypes -D_GNU_SOURCE -isystem uapi \
	  -DFTAGENTD_VERSION='"$(VERSION)"' $(EXTRA_CFLAGS)
LDLIBS_NL := -lmnl
LDLIBS_JSON := -ljson-c
# SHA-256 for the audit trail's hash chain (tools/lib/audit_chain.c).
LDLIBS_CRYPTO := -lnettle

# Debian packages the project needs, for `make deps` (the last line builds
# the debug kernel of `make check-debug`: tools/debug-kernel/build).
DEB_PACKAGES := build-essential pkg-config kmod cpio xz-utils \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	linux-image-6.12-amd64 linux-headers-6.12-amd64 \
	linux-image-rt-amd64 linux-headers-rt-amd64 linux-headers-cloud-amd64 \
	linux-headers-6.12-rt-amd64 linux-headers-6.12-cloud-amd64 \
	qemu-system-x86 busybox-static iproute2 e2fsprogs python3 \
	libmnl-dev libnl-utils libjson-c-dev libcmocka-dev libxxhash-dev libinih-dev \
	libmicrohttpd-dev libsystemd-dev nettle-dev prometheus \
	dkms sparse clang-format shellcheck clang libclang-rt-14-dev \
	python3-yaml python3-jsonschema python3-pyroute2 python3-matplotlib \
	scdoc groff-base bash-completion \
	debhelper dh-dkms lintian openssl rsyslog systemd \
	flex bison bc libelf-dev libssl-dev

LIB_SRCS := $(wildcard tools/lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libftagent.a
# The daemon's parts, linked into ftagentd and into their unit tests.
DAEMON_LIB_SRCS := $(filter-out daemon/main.c,$(wildcard daemon/*.c))
DAEMON_LIB := $(BUILD)/libftagentd.a
LDLIBS_INI := -linih
# What ftagentd links beyond libmnl and json-c. Not libmicrohttpd nor
# libsystemd: the metrics page and the journal output dlopen() them when
# configured (their -dev packages stay for the headers). --as-needed drops
# a library nothing calls, so none is mapped for nothing.
LDFLAGS_DAEMON := -Wl,--as-needed
LDLIBS_DAEMON := -linih -lxxhash -lpthread
FTAGENTD := $(BUILD)/ftagentd
FTCTL_SRCS := $(wildcard tools/ftctl/*.c)
FTCTL := $(BUILD)/ftctl
UNIT_SRCS := $(wildcard tests/unit/*_test.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
SELFTEST_SRCS := $(wildcard tests/selftests/*.c)
SELFTEST_BINS := $(SELFTEST_SRCS:tests/selftests/%.c=$(BUILD)/tests/selftests/%)
KSELFTEST_DIR := $(BUILD)/kselftest
# A real ia32 program the selftests drive (evasion_ia32): static, no C
# library, so no 32-bit packages; beside the selftests, not among them
# (guest-run runs every program in that directory).
IA32_EXEC := $(BUILD)/tests/helpers/ia32_exec
FAIL_NTH := $(BUILD)/tests/faults/fail_nth
FAIL_NTH_SRCS := $(wildcard tests/faults/fail_nth*.c)
KSELFTEST_HDRS := $(KSELFTEST_DIR)/kselftest_harness.h $(KSELFTEST_DIR)/kselftest.h
# Each kernel's module is built in a copy of the sources of its own
# (build/kmod/KVER), as DKMS does: kbuild puts objects beside the sources,
# and 6.1 has no separate output directory for external modules.
moddir = $(BUILD)/kmod/$(1)
module_of = $(call moddir,$(1))/kmod/ftagent.ko
MODULE := $(call module_of,$(KVER))

.PHONY: all module modules-all userspace man tests unit-tests unit-asan \
	fuzz fuzz-build nl-fuzz nl-fuzz-debug deps check check-run check-long check-debug check-faults check-abi-compat check-packages check-rt demo demo-run lint bench bench-run \
	lint-checkpatch lint-sparse lint-format lint-shell clean \
	dkms-install dkms-remove install uninstall guest-shell deb

all: module userspace tests

# '+': tools/build-module runs kbuild's make, which must share our
# jobserver under `make -j` (else make warns, and any warning fails it).
module:
	@test -n "$(KVER)" -a -d "$(KDIR)" || { echo "no kernel headers: run 'make deps' or set KDIR" >&2; exit 1; }
	+@tools/build-module $(KDIR) $(call moddir,$(KVER))

# The module for every test kernel and flavour (`make check` builds these).
modules-all:
	@test -n "$(BUILD_KVERS)" || { echo "no kernel headers: run 'make deps'" >&2; exit 1; }
	+@for k in $(BUILD_KVERS); do \
		tools/build-module /lib/modules/$$k/build $(BUILD)/kmod/$$k || exit 1; \
	done

FTBENCH := $(BUILD)/ftbench
# The audit trail's cost per record, on the host (docs/overhead.md). The
# daemon's own code, so it lives with it: tools/ may not include daemon/.
AUDIT_BENCH := $(BUILD)/audit_bench

# Man pages: docs/man/NAME.SECTION.scd is the one source, rendered by
# scdoc into build/man/NAME.SECTION (tests/host/man_pages.sh renders
# them again and checks them against the code).
MAN_SRCS := $(wildcard docs/man/*.scd)
MAN_PAGES := $(MAN_SRCS:docs/man/%.scd=$(BUILD)/man/%)
COMPLETION := tools/ftctl/completion/ftctl.bash

userspace: $(FTCTL) $(FTAGENTD) $(FTBENCH) $(AUDIT_BENCH) man

man: $(MAN_PAGES)

$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	scdoc <$< >$@.tmp && mv $@.tmp $@

# Static, so the guest can run it from tmpfs with no 9p access.
$(FTBENCH): tools/bench/ftbench.c tools/lib/iouring_raw.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $<
$(AUDIT_BENCH): daemon/bench/audit_bench.c $(DAEMON_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_NL) $(LDLIBS_JSON) $(LDLIBS_DAEMON) \
		$(LDLIBS_CRYPTO)

# Events written by the daemon's own output code, for the shipper test.
SAMPLE_EVENTS := $(BUILD)/tests/host/sample_events
$(SAMPLE_EVENTS): tests/host/sample_events.c tests/unit/collector_build.h $(DAEMON_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS_NL) $(LDLIBS_JSON) \
		$(LDLIBS_DAEMON) $(LDLIBS_CRYPTO)

tests: $(UNIT_BINS) $(SELFTEST_BINS) $(IA32_EXEC) $(SAMPLE_EVENTS) $(FAIL_NTH)

$(BUILD)/%.o: %.c $(wildcard tools/lib/*.h tools/ftctl/*.h) uapi/linux/ftagent.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Made anew each time: a member whose source moved away must not linger.
$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/daemon/%.o: daemon/%.c $(wildcard daemon/*.h) $(wildcard tools/lib/*.h) uapi/linux/ftagent.h kmod/ftagent.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(DAEMON_LIB): $(DAEMON_LIB_SRCS:%.c=$(BUILD)/%.o)
	@rm -f $@
	$(AR) rcs $@ $^

# ftctl policy check/load read the config file as ftagentd does, with the
# parser both take from tools/lib (never from daemon/).
$(FTCTL): $(FTCTL_SRCS:%.c=$(BUILD)/%.o) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_NL) $(LDLIBS_JSON) $(LDLIBS_INI) \
		$(LDLIBS_CRYPTO)

$(FTAGENTD): $(BUILD)/daemon/main.o $(DAEMON_LIB) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS_DAEMON) -o $@ $^ $(LDLIBS_NL) $(LDLIBS_JSON) \
		$(LDLIBS_DAEMON) $(LDLIBS_CRYPTO)

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(DAEMON_LIB) $(LIB) kmod/ftagent.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) -lcmocka $(LDLIBS_NL) $(LDLIBS_JSON) $(LDLIBS_DAEMON) \
		$(LDLIBS_CRYPTO)

# ftnl's transport against a fake kernel: its requests go to the test.
$(BUILD)/tests/unit/ftnl_transact_test: tests/unit/ftnl_transact_test.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wl,--wrap=mnl_socket_sendto -o $@ $(filter %.c %.a,$^) \
		-lcmocka $(LDLIBS_NL)

# ftctl's text helpers, tested on their own.
$(BUILD)/tests/unit/printable_test: tests/unit/printable_test.c $(BUILD)/tools/ftctl/human.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.o %.a,$^) -lcmocka $(LDLIBS_NL) $(LDLIBS_JSON) \
		$(LDLIBS_CRYPTO)

# The module's copy walk (kmod/copy_walk.h), on text laid out by the test.
$(BUILD)/tests/unit/copy_walk_test: tests/unit/copy_walk_test.c kmod/copy_walk.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lcmocka

# The unit tests again, built with ASan and UBSan in build/asan (make
# unit-asan; tests/run-check runs both builds).
ASAN_CFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
unit-tests: $(UNIT_BINS)

unit-asan:
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan \
		EXTRA_CFLAGS='$(ASAN_CFLAGS)' unit-tests

# libFuzzer targets (tests/fuzz/NAME_fuzz.c), linked with the libraries
# built again by clang with the fuzzer's coverage and the sanitizers, all
# in build/fuzz. `make fuzz` runs each for FUZZ_SECONDS on a copy of its
# corpus (tests/fuzz/run-fuzz); tests/run-check replays the corpora.
FUZZ_CC := clang
FUZZ_SECONDS ?= 60
FUZZ_NAMES := $(patsubst tests/fuzz/%_fuzz.c,%,$(wildcard tests/fuzz/*_fuzz.c))
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/%_fuzz)
FUZZ_HDRS := $(wildcard daemon/*.h tools/lib/*.h tools/ftctl/*.h tests/unit/*.h)
FUZZ_LDLIBS := $(LDLIBS_NL) $(LDLIBS_JSON) $(LDLIBS_DAEMON) $(LDLIBS_CRYPTO)

fuzz-build:
	+@$(MAKE) --no-print-directory BUILD=$(BUILD)/fuzz CC=$(FUZZ_CC) \
		EXTRA_CFLAGS='-O1 $(ASAN_CFLAGS) -fsanitize=fuzzer-no-link' \
		$(FUZZ_BINS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-fuzz $(BUILD)/fuzz $(FUZZ_NAMES)

# (Made by the fuzz-build sub-make, where BUILD is build/fuzz.)
$(BUILD)/%_fuzz: tests/fuzz/%_fuzz.c $(FUZZ_HDRS) $(DAEMON_LIB) $(LIB)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) \
		$(FUZZ_LDLIBS)

# ftctl whole, its main() renamed, the calls that leave the process
# wrapped (tests/fuzz/ftctl_fuzz.c says how).
$(BUILD)/tools/ftctl/main_fuzz.o: tools/ftctl/main.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Dmain=ftctl_main -Wno-missing-prototypes -c -o $@ $<
FTCTL_FUZZ_OBJS := $(filter-out %/main.o,$(FTCTL_SRCS:%.c=$(BUILD)/%.o)) \
	$(BUILD)/tools/ftctl/main_fuzz.o
$(BUILD)/ftctl_fuzz: tests/fuzz/ftctl_fuzz.c $(FUZZ_HDRS) $(FTCTL_FUZZ_OBJS) $(LIB)
	$(CC) $(CFLAGS) -fsanitize=fuzzer \
		-Wl,--wrap=ftagent_api_call,--wrap=ftagent_query_status,--wrap=geteuid \
		-o $@ $(filter %.c %.o %.a,$^) $(FUZZ_LDLIBS)

# The kselftest harness comes from Debian's linux-source-6.1, not from git.
$(KSELFTEST_HDRS): $(KSRC_TARBALL)
	@mkdir -p $(KSELFTEST_DIR)
	tar -xJf $(KSRC_TARBALL) -C $(KSELFTEST_DIR) --strip-components=4 \
		linux-source-6.1/tools/testing/selftests/$(notdir $@)
	@touch $@

$(BUILD)/tests/selftests/%: tests/selftests/%.c $(wildcard tests/selftests/*.h) tests/helpers/ia32_exec.h $(KSELFTEST_HDRS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-parameter -Wno-missing-prototypes -isystem $(KSELFTEST_DIR) -o $@ \
		$(filter %.c %.a,$^) -lpthread $(LDLIBS_NL) -lxxhash

$(IA32_EXEC): tests/helpers/ia32_exec.c tests/helpers/ia32_exec.h
	@mkdir -p $(dir $@)
	$(CC) -m32 -ffreestanding -nostdlib -static -fno-pic -no-pie \
		-fno-stack-protector -fno-asynchronous-unwind-tables -O2 \
		-Wall -Wextra -Werror -o $@ $<

# The fault-injection sweeps (tests/faults, make check-faults): one
# program from tests/faults/fail_nth*.c; the daemon's own apply and drain
# code comes from libftagentd.a.
$(FAIL_NTH): $(FAIL_NTH_SRCS) tests/faults/fail_nth.h $(DAEMON_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS_NL) $(LDLIBS_JSON) \
		$(LDLIBS_DAEMON) $(LDLIBS_CRYPTO)

deps:
	@tools/install-deps $(DEB_PACKAGES)

# The README's test command: deps, build, unit tests, selftests in a guest.
# The builds check-run needs (the programs, the tests, the ASan and fuzz
# builds) on every CPU; tests/run-check schedules its own work.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$$(nproc) check-run

# Every test kernel and flavour, whatever KVER says (tests/run-check).
check-run: userspace tests unit-asan fuzz-build
	+@tests/run-check --build $(BUILD)

# The same with the long stress runs (100 hammered load/unload cycles with
# the kprobe set too).
check-long: userspace tests unit-asan fuzz-build
	+@tests/run-check --build $(BUILD) --long

# The debug-kernel tier: every selftest and the end-to-end programs on a
# kernel with KASAN, lockdep, kmemleak, UBSAN and debug objects
# (tools/debug-kernel, built once into a cache outside build/; the first
# build takes about an hour here). tests/run-check-debug.
check-debug: userspace tests
	+@tests/run-check-debug --build $(BUILD)

# Daemons and modules one ABI minor apart (tests/abi/minor-compat): the
# previous minor (0.3) is built from git history, at the last commit
# before the policy gate brought 0.4. `make check` runs it too.
check-abi-compat: all
	FTG_TCG_OPTS=thread=single tests/abi/run-compat $(BUILD) $(KVER)

# The selftests on the PREEMPT_RT kernel (6.1, linux-image-rt-amd64)
# with both hook sets and the lockdown phase, in two guests side by side;
# make check runs them there with the ftrace set only when
# FTAGENT_CHECK_RT=1 (tests/run-check says why). tests/run-check-rt.
check-rt: userspace tests
	+@tests/run-check-rt --build $(BUILD)

# The netlink fuzzer's long run (tests/e2e/nl_fuzz.py; make check runs
# it with 1,000 messages per command): 10,000 per command in one guest
# on KVER. NLFUZZ_SEED=S sends a run's messages again (the seed is the
# first line it prints); the results are in build/nl-fuzz.
NLFUZZ_PER_COMMAND ?= 10000
NLFUZZ_SEED ?=
NLFUZZ_PART ?= 1/1
NLFUZZ_TIMEOUT ?= 14400
nl-fuzz: module
	@rm -rf $(BUILD)/nl-fuzz && mkdir -p $(BUILD)/nl-fuzz $(BUILD)/tests/no-selftests
	tools/guest/run-guest --kver $(KVER) --timeout $(NLFUZZ_TIMEOUT) \
		--out $(BUILD)/nl-fuzz --log $(BUILD)/nl-fuzz/kernel.log --quiet -- \
		env NLFUZZ_PER_COMMAND=$(NLFUZZ_PER_COMMAND) NLFUZZ_SEED=$(NLFUZZ_SEED) NLFUZZ_PART=$(NLFUZZ_PART) \
		$(CURDIR)/tests/selftests/guest-run --no-lockdown --only nl_fuzz.py \
		--e2e $(CURDIR)/tests/e2e --build $(CURDIR)/$(BUILD) \
		$(CURDIR)/$(MODULE) $(CURDIR)/$(BUILD)/tests/no-selftests
	@awk '{ p += $$2; f += $$3; s += $$4 } END { \
		printf "nl-fuzz: %d passed, %d failed, %d skipped\n", p, f, s; \
		exit !(p > 0 && f == 0 && s == 0) }' $(BUILD)/nl-fuzz/tally

# The same long run on the debug kernel of make check-debug (KASAN,
# lockdep, kmemleak, UBSAN; tools/debug-kernel/build reuses the cached
# tree, or builds it), 4 vCPUs, panic_on_warn: results in
# build/nl-fuzz-debug. Any report in its kernel log fails it (run-guest
# exits 3).
nl-fuzz-debug: userspace tests
	@rm -rf $(BUILD)/nl-fuzz-debug && mkdir -p $(BUILD)/nl-fuzz-debug $(BUILD)/tests/no-selftests
	+@tree=$$(tools/debug-kernel/build) || exit 1; \
	k=$$(cat $$tree/include/config/kernel.release); \
	tools/build-module $$tree $(BUILD)/kmod/debug-$$k >/dev/null || \
		{ tail -n 30 $(BUILD)/kmod/debug-$$k/build.log; exit 1; }; \
	FTG_TCG_OPTS=thread=single tools/guest/run-guest --kernel-tree $$tree \
		--smp 4 --mem 4608 --append "panic_on_warn=1 no5lvl" \
		--timeout $(NLFUZZ_TIMEOUT) --out $(BUILD)/nl-fuzz-debug \
		--log $(BUILD)/nl-fuzz-debug/kernel.log --quiet -- \
		env NLFUZZ_PER_COMMAND=$(NLFUZZ_PER_COMMAND) NLFUZZ_SEED=$(NLFUZZ_SEED) NLFUZZ_PART=$(NLFUZZ_PART) \
		$(CURDIR)/tests/selftests/guest-run --no-lockdown --only nl_fuzz.py \
		--e2e $(CURDIR)/tests/e2e --build $(CURDIR)/$(BUILD) \
		$(CURDIR)/$(BUILD)/kmod/debug-$$k/kmod/ftagent.ko \
		$(CURDIR)/$(BUILD)/tests/no-selftests; \
	status=$$?; \
	awk '{ p += $$2; f += $$3; s += $$4 } END { \
		printf "nl-fuzz-debug: %d passed, %d failed, %d skipped\n", p, f, s; \
		exit !(p > 0 && f == 0 && s == 0) }' $(BUILD)/nl-fuzz-debug/tally && \
	test $$status -eq 0 || { echo "nl-fuzz-debug: guest status $$status"; exit 1; }

# The packages installed, upgraded and purged in a guest (tests/deb/
# guest-test; 20 to 40 minutes, outside make check).
check-packages: all
	FTG_TCG_OPTS=thread=single tests/deb/guest-test $(BUILD) $(KVER)

# Fault injection (tests/faults, docs/reliability.md): fail-nth sweeps of
# module init, of every state-changing command and of the daemon's
# requests, then random slab failures under traffic, on the debug kernel
# (tools/debug-kernel; `make check-debug` builds it). ARGS go to
# tests/faults/run-faults (e.g. --sets ftrace --only set); FAULTS_KVER=KVER boots
# that installed kernel instead, where every sweep must fail.
check-faults: userspace tests
	@tests/faults/check-faults --build $(BUILD) $(if $(FAULTS_KVER),--kver $(FAULTS_KVER)) -- $(ARGS)

# The README's main command: the module and a workload in a guest.
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	@tools/guest/run-guest --kver $(KVER) --quiet --timeout 300 -- \
		tools/demo/guest-demo $(CURDIR)/$(MODULE) $(CURDIR)/$(FTCTL) \
		$(CURDIR)/$(FTAGENTD)

# The overhead benchmark with the peers side by side (docs/overhead.md),
# on every test kernel (6.1 and 6.12), one guest per kernel and a column
# per kernel in the report: `make bench`, or `make bench ARGS=--quick`
# for a short run; ARGS takes any option of tools/bench/bench (--no-peers
# skips installing them; tools/bench/bench installs them per kernel).
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory bench-run

bench-run: userspace
	@test -n "$(TEST_KVERS)" || { echo "no kernel headers: run 'make deps'" >&2; exit 1; }
	+@for k in $(TEST_KVERS); do \
		tools/build-module /lib/modules/$$k/build $(call moddir,$$k) || exit 1; \
	done
	tools/bench/bench $(ARGS)

guest-shell: all
	tools/guest/run-guest --kver $(KVER) --shell

# Style gates: zero findings.
CHECKPATCH_DIR := $(BUILD)/checkpatch
CHECKPATCH := $(CHECKPATCH_DIR)/checkpatch.pl
KMOD_SRCS := $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h \
	kmod/compat/*.h kmod/compat/probes/*.c)) uapi/linux/ftagent.h
USER_SRCS := $(wildcard tools/lib/*.[ch] tools/ftctl/*.[ch] tests/unit/*.[ch] \
	tests/host/*.c tests/fuzz/*.c \
	tests/selftests/*.[ch] tests/helpers/*.[ch] tests/faults/*.[ch] tools/bench/*.c \
	daemon/*.[ch] daemon/bench/*.c)

$(CHECKPATCH): $(KSRC_TARBALL)
	@mkdir -p $(CHECKPATCH_DIR)
	tar -xJf $(KSRC_TARBALL) -C $(CHECKPATCH_DIR) --strip-components=2 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

lint: lint-checkpatch lint-sparse lint-format lint-shell

# kmod/hooks.h writes and compares pt_regs->ax with the -ENOSYS the
# syscall entry code stores until the call returns: the one use
# checkpatch's ENOSYS rule (meant for return values) gets wrong, so that
# file alone is checked without it.
lint-checkpatch: $(CHECKPATCH)
	perl $(CHECKPATCH) --strict --no-tree --quiet --show-types \
		-f $(filter-out kmod/hooks.h,$(KMOD_SRCS))
	perl $(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore ENOSYS -f kmod/hooks.h

lint-sparse:
	@mkdir -p $(BUILD)
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules >$(BUILD)/sparse.log 2>&1 || \
		{ cat $(BUILD)/sparse.log; exit 1; }
	@! grep -E "warning:|error:" $(BUILD)/sparse.log

lint-format:
	clang-format --dry-run --Werror $(USER_SRCS)

lint-shell:
	shellcheck -x tools/install-deps tools/guest/run-guest tools/guest/mkinitramfs \
		tools/guest/init tools/demo/guest-demo tests/run-check \
		tests/run-check-debug tests/run-check-rt tools/debug-kernel/build \
		tools/test-kernels tools/build-module tools/bench/load-cycles \
		tests/dkms/roundtrip \
		tests/compat/check-features tests/selftests/repeat-lockdown \
		tests/selftests/guest-run tools/check-abi tools/check-versions \
		tests/host/ftagentd_cli.sh tests/host/spec_check.sh \
		tests/host/man_pages.sh \
		tests/host/ftctl_cli.sh tests/host/ftctl_completion.sh \
		tools/dkms-install tools/deb/build \
		tests/deb/guest-install tests/deb/guest-test tests/deb/lintian \
		tests/dkms/install-twice tests/dkms/signing \
		$(COMPLETION) tools/bench/peers/install \
		tools/bench/peers/audit tools/bench/peers/bpftrace \
		tools/bench/peers/sysdig tests/abi/run-compat tests/abi/minor-compat \
		tests/host/layout.sh tests/host/bench_tools.sh \
		tests/host/shipping_rsyslog.sh \
		tests/host/metrics_alerts.sh tests/fuzz/run-fuzz tests/fuzz/replay \
		tests/faults/run-faults tests/faults/check-faults

# A real server: build and install through DKMS so kernel updates rebuild
# it. Run twice, the same result; older ftagent versions registered are
# removed (tools/dkms-install). DKMS_TREES (--dkmstree D --sourcetree S
# --installtree I) points DKMS elsewhere, for tests/dkms/install-twice.
DKMS_SRC := /usr/src/ftagent-$(VERSION)
DKMS_TREES ?=
dkms-install:
	tools/dkms-install $(VERSION) $(KVER) -- $(DKMS_TREES)

# The two Debian packages (tools/deb/build): ftagent-dkms and ftagent, in
# build/deb. VERSION=N.N.N builds them (and the module inside) as another
# version, for a test that upgrades.
deb:
	@tools/deb/build $(BUILD)/deb $(VERSION)

# ftagentd, ftctl, the unit, the example config, the man pages and
# ftctl's bash completion (packaging: DESTDIR and PREFIX).
PREFIX ?= /usr
install: userspace
	install -D -m 0755 $(FTAGENTD) $(DESTDIR)$(PREFIX)/sbin/ftagentd
	install -D -m 0755 $(FTCTL) $(DESTDIR)$(PREFIX)/bin/ftctl
	install -D -m 0644 daemon/systemd/ftagentd.service \
		$(DESTDIR)/lib/systemd/system/ftagentd.service
	install -D -m 0644 daemon/systemd/sys-fs-ftagent.mount \
		$(DESTDIR)/lib/systemd/system/sys-fs-ftagent.mount
	install -D -m 0644 daemon/systemd/ftagent-modules.conf \
		$(DESTDIR)/etc/modules-load.d/ftagent.conf
	test -e $(DESTDIR)/etc/ftagent/ftagent.conf || install -D -m 0644 \
		daemon/ftagent.conf.example $(DESTDIR)/etc/ftagent/ftagent.conf
	install -d $(DESTDIR)$(PREFIX)/share/doc/ftagent
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/ftagent/
	for page in $(MAN_PAGES); do \
		section=$${page##*.}; \
		install -D -m 0644 $$page \
			$(DESTDIR)$(PREFIX)/share/man/man$$section/$$(basename $$page) || exit 1; \
	done
	install -D -m 0644 $(COMPLETION) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ftctl
	@test -n "$(DESTDIR)" || getent group ftagent >/dev/null || \
		groupadd --system ftagent

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/ftagentd $(DESTDIR)$(PREFIX)/bin/ftctl \
		$(DESTDIR)/lib/systemd/system/ftagentd.service \
		$(DESTDIR)/lib/systemd/system/sys-fs-ftagent.mount \
		$(DESTDIR)/etc/modules-load.d/ftagent.conf
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/ftagent
	for page in $(MAN_PAGES); do \
		rm -f $(DESTDIR)$(PREFIX)/share/man/man$${page##*.}/$$(basename $$page); \
	done
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ftctl

dkms-remove:
	dkms remove -m ftagent -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
