# SPDX-License-Identifier: GPL-2.0
#
# pktdedup: top-level build. Everything lands in $(B) (git-ignored).
#
#   make demo       boot Debian's kernel in QEMU, load the module, show it
#                   counting and then dropping duplicates
#   make check      every test; the last line is "N passed, N failed"
#   make            the simulator, dedupctl, the benchmark, the native tests
#   make module     pktdedup.ko against Debian's headers (KDIR= overrides)
#   make dkms-check DKMS builds it from its source tree (dkms.conf) for the
#                   installed headers, in a tree under build/dkms
#   make deb        the Debian packages pktdedup-dkms and dedupctl, built by
#                   dpkg-buildpackage in a copy of the tree: build/deb/*.deb
#   make deb-check  builds them again into build/deb-check and checks them
#                   (lintian, contents, versions, the unit, the DKMS scripts)
#   make kunit      KUnit suites in a UML kernel with KASAN
#   make e2e        end-to-end scenarios in a QEMU guest
#   make e2e-debug  the same scenarios on a debug kernel (KASAN, UBSAN,
#                   lockdep, kmemleak) built from linux-source-6.1 and cached
#   make e2e-debug-selftest  that kernel reports faults made on purpose
#   make bench      SBF step cost (ns/element) against the textbook baseline;
#                   the layouts (flat, blocked) on the module's whole path;
#                   every filter family against the SBF; the worst packet
#                   the step's bound allows against the defaults; the window
#                   families on a 1 Mpps stream against the SBF; tunnelled packets
#                   keyed (decap) against the bare one; the scopes by threads
#                   (per CPU, shared in shards, behind one lock, atomics) and
#                   what atomics and a cache line's move cost; the shared
#                   scope by the CPUs' placement against steering, and a
#                   model for 16 and 64 cores; cache lines
#                   touched; the layouts' FP/FN on the simulator's streams.
#                   Writes build/bench.json
#   make bench-kernel  the module's whole packet path in a UML kernel (built
#                   from linux-source-6.1 and cached): pktgen over veth, ns
#                   per packet against no hook, nft sets and xt_recent;
#                   pktdedup.ko's own CPU time per packet under perf
#   make bench-xdp  the XDP placements in Debian's kernel under QEMU TCG:
#                   BPF_PROG_TEST_RUN per frame (pass, drop, pktdedup's
#                   program), the time and CPU per frame through veth and
#                   virtio-net at every placement, as ratios to no hook in
#                   the same boot (about 6 min)
#   make paper      the papers' comparisons on scaled-down streams (not in
#                   make check: a few minutes)
#   make editcap-compare  the sliding window against Wireshark's editcap -w
#                   on one capture (not in make check; needs editcap, from
#                   Debian's wireshark-common)
#   make compare    dedup-sim --write against editcap -D and -w on generated
#                   captures (exact copies, copies a hop on, retransmissions,
#                   IPv4 and IPv6; pcap and pcapng; copies mirrored through
#                   tunnels, --decap all): copies removed, false removals,
#                   frames/s, peak RSS; build/compare.txt (not in make
#                   check: about 4 minutes)
#   make fuzz       each libFuzzer target (tests/fuzz) for FUZZ_SECONDS
#                   (600), then the guest's netlink and packet fuzzers and
#                   lifecycle stress FUZZ_SCALE (20) times longer than in
#                   make check; make check runs them all briefly

B ?= build
CC ?= gcc
# Debian's python3, with python3-yaml (scripts/install-deps.sh)
PYTHON ?= /usr/bin/python3
SPEC := Documentation/netlink/specs/pktdedup.yaml
CORE_SRC := $(wildcard module/core/*.c)
CORE_HDR := $(wildcard module/core/*.h) userspace/common/port_user.h
KUNIT_TESTS := $(wildcard tests/kunit/*_test.c)
NATIVE_TESTS := $(wildcard tests/native/*_test.c)

WARN := -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes \
	-Wold-style-definition -Wshadow -Wundef -Wvla -Wno-unused-parameter
CFLAGS_COMMON := -std=gnu11 -g $(WARN) -Iuserspace/common
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

SIM_SRC := $(wildcard userspace/sim/*.c) $(wildcard userspace/common/*.c)
# Wireshark's libwiretap (libwiretap-dev; no pkg-config file of its own):
# the simulator's capture reader and writer, userspace/sim/capture.h
# (evaluated where used: make deb builds only dedupctl, without it)
WIRETAP_CFLAGS = $(shell pkg-config --cflags glib-2.0) -I/usr/include/wireshark
WIRETAP_LIBS = -lwiretap -lwsutil $(shell pkg-config --libs glib-2.0)
SIM_HDR := $(wildcard userspace/sim/*.h) $(wildcard userspace/common/*.h)

KVER ?= $(shell scripts/kernel-tools.sh kver 2>/dev/null)
KDIR ?= /usr/src/linux-headers-$(KVER)
KMOD := $(B)/kmod
MODULE_SRC := Kbuild $(shell find module -name '*.[ch]')

.PHONY: all check bench bench-kernel bench-xdp deb deb-check dkms-check demo clean deps module module-check e2e \
	e2e-debug e2e-debug-selftest e2e-one vm kunit paper editcap-compare compare fuzz \
	fuzz-build
all: $(B)/dedup-sim $(B)/core-tests $(B)/tsan-tests $(B)/bench $(B)/dedupctl \
	$(B)/dedupctl-fake

deps:
	scripts/install-deps.sh

# dedupctl's pure parts: the Prometheus text, the rates of stats -w, the
# digest of a BTF base, the tunnel settings' words
CTL_PURE := userspace/dedupctl/prom.c userspace/dedupctl/watch.c \
	userspace/dedupctl/btfbase.c userspace/dedupctl/encap.c

# The core tests, natively, through the userspace KUnit stand-in, with ASan
# and UBSan; the simulator's own tests (ground truth, streams) and
# dedupctl's pure parts join them.
$(B)/core-tests: $(CORE_SRC) $(CORE_HDR) $(KUNIT_TESTS) $(NATIVE_TESTS) \
		userspace/kunit/kunit.c userspace/kunit/kunit/test.h \
		$(filter-out userspace/sim/main.c,$(SIM_SRC)) $(SIM_HDR) \
		$(CTL_PURE) $(CTL_PURE:.c=.h) | $(B)
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -Iuserspace/kunit \
		-o $@ userspace/kunit/kunit.c $(KUNIT_TESTS) $(NATIVE_TESTS) \
		$(CORE_SRC) $(filter-out userspace/sim/main.c,$(SIM_SRC)) \
		$(CTL_PURE) $(WIRETAP_CFLAGS) -lpcap $(WIRETAP_LIBS) -lm

# The shared scope's tests under ThreadSanitizer: threads stepping one
# sharded filter of the core, natively on every core (the kernel's data
# race detector, KCSAN, needs a kernel without KASAN, and the guests'
# vCPUs take turns on one host thread under TCG)
SHARD_TESTS := tests/kunit/shard_test.c tests/native/shard_mt_test.c
$(B)/tsan-tests: $(CORE_SRC) $(CORE_HDR) $(SHARD_TESTS) \
		userspace/kunit/kunit.c userspace/kunit/kunit/test.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O1 -fsanitize=thread -Iuserspace/kunit \
		-o $@ userspace/kunit/kunit.c $(SHARD_TESTS) $(CORE_SRC) -lm

$(B)/dedup-sim: $(CORE_SRC) $(CORE_HDR) $(SIM_SRC) $(SIM_HDR) | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 -Iuserspace/sim $(WIRETAP_CFLAGS) -o $@ \
		$(SIM_SRC) $(CORE_SRC) $(WIRETAP_LIBS) -lm

# The same with ASan, UBSan and LeakSanitizer: the capture suite runs its
# field captures through it (a leak or an overflow fails the test)
$(B)/san/dedup-sim: $(CORE_SRC) $(CORE_HDR) $(SIM_SRC) $(SIM_HDR)
	mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -Iuserspace/sim $(WIRETAP_CFLAGS) \
		-o $@ $(SIM_SRC) $(CORE_SRC) $(WIRETAP_LIBS) -lm

CTL_SRC := $(wildcard userspace/dedupctl/*.c) userspace/common/args.c \
	userspace/common/nl_spec.c userspace/common/units.c \
	userspace/common/protos.c userspace/common/akeyfile.c \
	userspace/common/sketchrow.c
# the module's XDP program, built into dedupctl (xdp_obj.S); -g: its BTF,
# which libbpf needs to find the module's kfunc; the multiarch include
# directory holds asm/types.h, which -target bpf does not look in
XDP_OBJ := $(B)/xdp/pktdedup.bpf.o
$(XDP_OBJ): userspace/xdp/pktdedup.bpf.c
	mkdir -p $(@D)
	clang -O2 -g -Wall -Werror -target bpf \
		-I/usr/include/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH) \
		-c -o $@ $<
$(B)/dedupctl: $(CORE_SRC) $(CORE_HDR) $(CTL_SRC) $(wildcard userspace/dedupctl/*.h) \
		userspace/dedupctl/xdp_obj.S $(XDP_OBJ) \
		module/uapi/pktdedup.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		-DPD_XDP_OBJ='"$(XDP_OBJ)"' userspace/dedupctl/xdp_obj.S \
		$(CTL_SRC) $(CORE_SRC) -lmnl -lbpf

# dedupctl over a stand-in for the module (tests/cli/fake_nl.c in place of
# nl.c): tests/cli/test_fake.py
$(B)/dedupctl-fake: tests/cli/fake_nl.c $(CORE_SRC) $(CORE_HDR) $(CTL_SRC) \
		$(wildcard userspace/dedupctl/*.h) userspace/dedupctl/xdp_obj.S \
		$(XDP_OBJ) module/uapi/pktdedup.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -o $@ \
		-DPD_XDP_OBJ='"$(XDP_OBJ)"' userspace/dedupctl/xdp_obj.S \
		$(filter-out userspace/dedupctl/nl.c,$(CTL_SRC)) $< \
		$(CORE_SRC) -lmnl -lbpf

BENCH_SRC := $(wildcard userspace/bench/*.c)
$(B)/bench: $(CORE_SRC) $(CORE_HDR) $(BENCH_SRC) userspace/bench/bench.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 -pthread -o $@ $(BENCH_SRC) $(CORE_SRC) -lm

$(B):
	mkdir -p $@

# libFuzzer targets (tests/fuzz), with ASan and UBSan, built by clang
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := fuzz_key fuzz_args fuzz_dedupctl fuzz_nh
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) -Iuserspace/common \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_BIN := $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
CTL_LIB_SRC := $(filter-out userspace/dedupctl/main.c userspace/dedupctl/nl.c,\
	$(CTL_SRC))

$(B)/fuzz:
	mkdir -p $@

$(B)/fuzz/fuzz_key $(B)/fuzz/fuzz_args: $(B)/fuzz/%: tests/fuzz/%.c \
		$(CORE_SRC) $(CORE_HDR) userspace/common/args.c \
		userspace/common/units.c $(wildcard userspace/common/*.h) \
		userspace/sim/linktype.c userspace/sim/linktype.h \
		userspace/sim/frametruth.c userspace/sim/frametruth.h \
		userspace/sim/blake2b.c userspace/sim/blake2b.h | $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRC) userspace/common/args.c \
		userspace/common/units.c userspace/sim/linktype.c \
		userspace/sim/frametruth.c userspace/sim/blake2b.c

# the tail digest, and a second copy of it with the portable NH
$(B)/fuzz/fuzz_nh: tests/fuzz/fuzz_nh.c tests/fuzz/nh_portable.c \
		$(CORE_SRC) $(CORE_HDR) | $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< tests/fuzz/nh_portable.c $(CORE_SRC)

# dedupctl's commands without main.c and nl.c (the target stands in for both)
$(B)/fuzz/fuzz_dedupctl: tests/fuzz/fuzz_dedupctl.c $(CTL_SRC) $(CORE_SRC) \
		$(CORE_HDR) $(wildcard userspace/dedupctl/*.h) $(XDP_OBJ) | $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CTL_LIB_SRC) $(CORE_SRC) \
		-DPD_XDP_OBJ='"$(XDP_OBJ)"' userspace/dedupctl/xdp_obj.S \
		-lmnl -lbpf

fuzz-build: $(FUZZ_BIN)

# the guest's fuzzing and stress scenarios (tests/e2e/scen-*.sh)
FUZZ_SCALE ?= 20
FUZZ_GUEST := t_nl_fuzz,t_pkt_fuzz,t_lifecycle

fuzz: fuzz-build vm
	tests/fuzz/run.sh long $(B) $(FUZZ_SECONDS)
	VM_APPEND="pd.only=$(FUZZ_GUEST) pd.scale=$(FUZZ_SCALE)" \
		tests/vm/vm.sh boot $(B) e2e $$((600 + 400 * $(FUZZ_SCALE)))

# Kbuild writes objects beside the sources, so the module builds from a
# mirror of them in $(KMOD).
$(KMOD)/.stamp: $(MODULE_SRC) | $(B)
	rm -rf $(KMOD)/module
	mkdir -p $(KMOD)
	cp --parents $(MODULE_SRC) $(KMOD)/
	touch $@

# The project's resolve_btfids (make module, DKMS: scripts/module-btf.sh)
$(B)/btfids/btfids: scripts/btfids/btfids.c
	mkdir -p $(@D)
	$(CC) -std=gnu11 -g -O2 $(WARN) -o $@ $< -lbpf -lelf

# Its own BTF (scripts/module-btf.sh) against the BTF of the kernel its
# headers are for, Debian's, whose image the guests boot; BTF_BASE=FILE
# for another base, BTF_BASE= for none. The base's digest is compiled in
# first (PD_BTF_BASE, the parameter btf_base; scripts/btf-base.sh digest).
module: $(KMOD)/.stamp $(B)/btfids/btfids
	base=$${BTF_BASE-$$(scripts/kernel-tools.sh btf-base)/vmlinux.btf}; \
	digest=none; \
	[ -z "$$base" ] || digest=$$(scripts/btf-base.sh digest "$$base"); \
	$(MAKE) -C $(KDIR) M=$(abspath $(KMOD)) CONFIG_PKTDEDUP=m W=1 \
		PD_BTF_BASE=$$digest modules && \
	{ [ -z "$$base" ] || BTFIDS=$(abspath $(B)/btfids/btfids) \
		scripts/module-btf.sh $(KMOD)/pktdedup.ko "$$base" $(KDIR); }

# sparse and W=1 over every file of the module (rebuilds all of them)
module-check: $(KMOD)/.stamp
	$(MAKE) -C $(KDIR) M=$(abspath $(KMOD)) clean >/dev/null
	$(MAKE) -C $(KDIR) M=$(abspath $(KMOD)) CONFIG_PKTDEDUP=m W=1 C=1 \
		modules 2>&1 | tee $(KMOD)/check.log
	! grep -E 'warning:|error:' $(KMOD)/check.log

check: deps
	$(MAKE) all $(B)/san/dedup-sim fuzz-build vm
	tests/check.sh $(B)

kunit:
	tests/kunit/run.sh $(B)

# the analytics' and the tunnelled keys' lines per packet first: bench puts
# them in bench.json; layout-table.sh runs the simulator
bench: $(B)/bench $(B)/dedup-sim
	LINES_PARTS="sources decap" eval/bench/lines-touched.sh $(B)
	@echo
	$(B)/bench --json $(B)/bench.json --lines $(B)/lines-sources.txt \
		--lines $(B)/lines-decap.txt
	@echo
	LINES_PARTS=filters eval/bench/lines-touched.sh $(B)
	@echo
	eval/bench/layout-table.sh $(B)

# pktgen in a UML kernel; the table and $(B)/bench-kernel.json, then
# pktdedup.ko's CPU time per packet by part under perf
# ($(B)/bench-kernel-profile.json). eval/bench-kernel/run.sh BUILD short is
# the quick check make check runs; BUILD targets the rows the packet path's
# cost targets are judged on, with more pairs; BUILD sizes the packet key by
# packet size (every byte against payload 64), with more pairs.
bench-kernel: $(B)/dedupctl
	eval/bench-kernel/run.sh $(B) full
	eval/bench-kernel/run.sh $(B) profile

# The XDP placements in Debian's kernel under QEMU TCG, in one boot of the
# e2e guest's image with eval/bench-xdp's job added (vm.sh initramfs
# BUILD bench): BPF_PROG_TEST_RUN per frame, and frames through a veth
# pair and two virtio-net NICs, as ratios to no hook
# (eval/bench-xdp/run.sh; about 6 min)
BXDP := $(B)/bench-xdp
$(BXDP)/pdxb: eval/bench-xdp/pdxb.c | $(B)
	mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -O2 -static -o $@ $< -lbpf -lelf -lz
$(BXDP)/%.bpf.o: eval/bench-xdp/%.bpf.c
	mkdir -p $(@D)
	clang -O2 -g -Wall -Werror -target bpf \
		-I/usr/include/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH) \
		-c -o $@ $<

bench-xdp: vm $(BXDP)/pdxb $(BXDP)/xdp-pass.bpf.o $(BXDP)/xdp-drop.bpf.o
	tests/vm/vm.sh initramfs $(B) bench
	eval/bench-xdp/run.sh $(B)

# DKMS builds pktdedup.ko for the installed headers in a tree of its own
# under $(B)/dkms (never installed or loaded)
dkms-check:
	tests/packaging/dkms-check.sh $(B)

# The Debian packages (scripts/deb.sh), rebuilt when a file git knows of,
# or would add, changes; the guests install dedupctl from its package.
# README.md and Documentation/ (but its netlink spec, which the code is
# generated from) are in no package: editing them rebuilds nothing.
TREE_FILES := $(shell git ls-files -co --exclude-standard 2>/dev/null)
DOC_FILES := README.md \
	$(filter-out Documentation/netlink/%,$(filter Documentation/%,$(TREE_FILES)))
DEB_INPUTS := $(wildcard $(filter-out $(DOC_FILES),$(TREE_FILES)))
$(B)/deb/.stamp: $(DEB_INPUTS)
	scripts/deb.sh $(B)/deb
	touch $@

deb: $(B)/deb/.stamp

deb-check:
	tests/packaging/deb-check.sh $(B)

# PAPER_SEEDS=1 takes about a third of the time
PAPER_SEEDS ?= 3
paper: $(B)/dedup-sim
	eval/paper/paper-tables.sh $(B) $(PAPER_SEEDS)

editcap-compare: $(B)/dedup-sim
	eval/compare/editcap-compare.sh $(B)

compare: $(B)/dedup-sim
	eval/compare/compare.sh $(B)

# the guest's traffic tool; its fuzzer predicts with the core's parser
PDNET_SRC := tests/e2e/pdnet.c tests/e2e/pdnet_fuzz.c tests/e2e/pdnet_pcap.c \
	tests/e2e/pdnet_taps.c tests/e2e/pdnet_nonip.c \
	module/core/key.c module/core/decap.c module/core/hash.c module/core/nh.c
$(B)/pdnet: $(PDNET_SRC) tests/e2e/pdnet.h $(CORE_HDR) module/uapi/pktdedup.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 -static -o $@ $(PDNET_SRC)

# the e2e suite's raw netlink client, and the policy dump the spec promises
PDNL_SRC := tests/e2e/pdnl.c tests/e2e/pdnl_fuzz.c tests/e2e/pdnl_race.c
$(B)/pdnl: $(PDNL_SRC) tests/e2e/pdnl.h userspace/common/nl_spec.c \
		userspace/common/nl_spec.h module/uapi/pktdedup.h | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 -pthread -o $@ $(PDNL_SRC) \
		userspace/common/nl_spec.c -lmnl

# the guest's XDP tool (libbpf, static) and the programs that are not the
# module's own it loads (tests/e2e/scen-xdpdev.sh)
$(B)/pdxdp: tests/e2e/pdxdp.c | $(B)
	$(CC) $(CFLAGS_COMMON) -O2 -static -o $@ $< -lbpf -lelf -lz
$(B)/e2e/xdp-foreign.bpf.o: tests/e2e/xdp-foreign.bpf.c
	mkdir -p $(@D)
	clang -O2 -g -Wall -Werror -target bpf \
		-I/usr/include/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH) \
		-c -o $@ $<

$(B)/policy.expected: $(SPEC) scripts/nlspec.py | $(B)
	$(PYTHON) scripts/nlspec.py policy-dump > $@

# t_replay's capture (text2pcap) and dedup-sim --write's verdict on it,
# made on the host before the guest boots
$(B)/replay/settings.sh: tests/vm/replay-capture.py $(B)/dedup-sim
	$(PYTHON) tests/vm/replay-capture.py $(B)

# t_keyall_evasion's capture: pairs a partial packet key takes for copies
$(B)/keyall/evasion.sh: tests/vm/evasion_capture.py scripts/lib/packets.py
	$(PYTHON) tests/vm/evasion_capture.py $(B)/keyall

# The guest image: module, tools, scenarios (see tests/vm/vm.sh).
E2E_TOOLS := $(B)/pdnet $(B)/pdnl $(B)/pdxdp $(B)/e2e/xdp-foreign.bpf.o
vm: module $(B)/deb/.stamp $(B)/dedupctl $(E2E_TOOLS) $(B)/policy.expected \
		$(B)/replay/settings.sh $(B)/keyall/evasion.sh
	tests/vm/vm.sh initramfs $(B)

# The guest's time limit, a hang detector: the scenarios take about 8 min
# under TCG on a quiet 2-core machine, and up to twice that when the
# machine is busy (make check runs e2e-debug beside them)
E2E_TIMEOUT ?= 1200
e2e: vm
	tests/vm/vm.sh boot $(B) e2e $(E2E_TIMEOUT)

# Some scenarios (after the setup): make e2e-one T=t_drop,t_mark
e2e-one: vm
	VM_APPEND="pd.only=$(T)" tests/vm/vm.sh boot $(B) e2e $(E2E_TIMEOUT)

# The debug kernel, pktdedup.ko against it and its guest: tests/vm/e2e-debug.sh
e2e-debug: $(B)/deb/.stamp $(B)/dedupctl $(E2E_TOOLS) $(B)/policy.expected \
		$(B)/replay/settings.sh $(B)/keyall/evasion.sh
	tests/vm/e2e-debug.sh $(B)

e2e-debug-selftest: $(B)/deb/.stamp $(B)/dedupctl $(E2E_TOOLS) $(B)/policy.expected
	tests/vm/e2e-debug.sh $(B) selftest

demo: deps
	$(MAKE) vm
	tests/vm/vm.sh boot $(B) demo 300

clean:
	rm -rf $(B)
