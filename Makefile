# SPDX-License-Identifier: GPL-2.0
#
# mmrust: memory-management logic in Rust inside Linux 6.12, called from C.
# This Makefile drives everything; the kernel's own Makefile is only called
# on the prepared tree under $(MMRUST_CACHE).  See README.md.

export MMRUST_CACHE ?= $(HOME)/.cache/mmrust
T := tools/testing/mmrust
comma := ,
CACHE := $(MMRUST_CACHE)

# ARCH=x86_64 or ARCH=arm64 picks the test kernel's architecture; without
# it, 'make test' (and 'make build', 'make boot', 'make kunit') covers
# $(TEST_ARCHES) and the other targets use x86_64.
TEST_ARCHES := x86_64 arm64
override ARCHES := $(if $(ARCH),$(ARCH),$(TEST_ARCHES))
override ONE_ARCH := $(if $(ARCH),$(ARCH),x86_64)
# make test builds the first architecture's image here and the rest
# behind its boots (test.sh).
override BUILD_ARCHES := $(if $(filter run shell bench stress,$(MAKECMDGOALS)),$(ONE_ARCH),$(if $(filter test,$(MAKECMDGOALS)),$(firstword $(ARCHES)),$(ARCHES)))
export MMRUST_ARCHES := $(ARCHES)
export MMRUST_ARCH := $(ONE_ARCH)
unexport ARCH

# $(call step,<what it does>,<script and arguments>): one step, announced.
step = @echo "==> $@: $(1)" && bash $(T)/$(2)

.PHONY: all help setup prepare build build-debug build-lto build-gcc build-debian test test-debug test-lto test-gcc test-debian kunit boot run shell bench stress check series series-check matrix rusttest mutants kunit-tool clean distclean

all: help

help:
	@echo "make test     install what is needed, build, run every test (KUnit + boot tests)"
	@echo "make run      build the test kernel and boot it, showing the components at work"
	@echo "make shell    boot the test kernel with a root shell on this terminal"
	@echo "make test-debug  the x86_64 debug image (KASAN, lockdep, ...) alone; part of make test"
	@echo "make test-lto the x86_64 LTO image (Rust in Clang ThinLTO, the push inlined) alone;"
	@echo "              part of make test"
	@echo "make test-gcc the x86_64 test image built with GCC 12 (Rust off) alone; part of make test"
	@echo "make test-debian  Debian's own amd64 and arm64 configs with make mmrust.config and"
	@echo "              MODVERSIONS, linked; amd64's CRCs against the same config without Rust,"
	@echo "              booted, kselftests and boot tests"
	@echo "make kunit    KUnit suites only"
	@echo "make boot     boot tests only"
	@echo "make bench    benchmarks (Rust vs C in one image), 'bench: <name> = <value>' lines,"
	@echo "              and a report with plots (QUICK=1: every step, smallest sizes)"
	@echo "make stress   a concurrent stress of every component (DURATION=<minutes>, default 5;"
	@echo "              STRESS_SMP=\"2 4\" vCPU counts), on the x86_64 debug image"
	@echo "make check    checkpatch, rustfmt and clippy on our code"
	@echo "make series   the whole overlay as one git format-patch series against the plain base"
	@echo "make series-check  each patch of the series applied in turn, its objects compiled, checkpatch --strict"
	@echo "make matrix   the configuration matrix: every project option off in turn, RUST=n, ...;"
	@echo "              part of make test"
	@echo "make rusttest the host tests of the pure Rust (the SLUB decisions); part of make test"
	@echo "make mutants  apply each small bug of tools/testing/mmrust/mutants/, see it caught (ONLY=<name>)"
	@echo "make kunit-tool  the KUnit suites through the base's kunit.py and mm/.kunitconfig (second build)"
	@echo "make clean    remove the build outputs (keeps the unpacked base and ccache)"
	@echo "ARCH=x86_64 or ARCH=arm64: one architecture (default: test both, run x86_64)"
	@echo "cache: $(CACHE)"

setup:
	$(call step,Debian packages and bindgen-cli,setup.sh)

prepare: setup
	$(call step,base + overlay + patches in $(CACHE)/src,prepare.sh)

build: prepare
	@for a in $(BUILD_ARCHES); do \
		echo "==> $@: $$a test kernel" && MMRUST_ARCH=$$a bash $(T)/build.sh || exit 1; \
	done

# The x86_64 debug image (configs/debug.config): in 'make test' when it
# covers x86_64, unless MMRUST_DEBUG=0; alone in 'make test-debug'.
export MMRUST_DEBUG ?= 1
export MMRUST_MUTANTS_ONLY := $(ONLY)
DEBUG_IMAGE := $(if $(and $(filter x86_64,$(ARCHES)),$(filter 1,$(MMRUST_DEBUG))),1)
LTO_IMAGE = $(if $(and $(filter x86_64,$(ARCHES)),$(filter 1,$(MMRUST_LTO))),1)
GCC_IMAGE = $(if $(and $(filter x86_64,$(ARCHES)),$(filter 1,$(MMRUST_GCC))),1)
build-debug: prepare
	@echo "==> $@: x86_64 debug image" && MMRUST_ARCH=x86_64 MMRUST_FLAVOR=debug bash $(T)/build.sh

test: build
	$(call step,KUnit and boot tests ($(ARCHES)$(if $(DEBUG_IMAGE),$(comma) the x86_64 debug image)$(if $(LTO_IMAGE),$(comma) the x86_64 LTO image)$(if $(GCC_IMAGE),$(comma) the x86_64 GCC image)); the configuration matrix,test.sh all)

test-debug: build-debug
	$(call step,KUnit and boot tests under the kernel's checkers,test.sh debug)

# The x86_64 LTO image (configs/lto.config): in 'make test' when it covers
# x86_64, unless MMRUST_LTO=0; alone in 'make test-lto'.
export MMRUST_LTO ?= 1
build-lto: prepare
	@echo "==> $@: x86_64 LTO image" && MMRUST_ARCH=x86_64 MMRUST_FLAVOR=lto bash $(T)/build.sh

test-lto: build-lto
	$(call step,the Rust push inlined by ThinLTO; KUnit and boot tests on the LTO image,test.sh lto)

# The x86_64 GCC image (configs/gcc.config): in 'make test' when it covers
# x86_64, unless MMRUST_GCC=0; alone in 'make test-gcc'.
export MMRUST_GCC ?= 1
build-gcc: prepare
	@echo "==> $@: x86_64 GCC image" && MMRUST_ARCH=x86_64 MMRUST_FLAVOR=gcc bash $(T)/build.sh

test-gcc: build-gcc
	$(call step,KUnit and boot tests on the x86_64 image built with GCC 12,test.sh gcc)

# Debian's own configurations with "make mmrust.config", MODVERSIONS on
# (lib.sh: debian), linked: amd64's, and the same without Rust from nothing
# (the CRC check's other side), then arm64's (linked, not booted), for the
# architectures of ARCH.  Not in 'make test' (a cold build of each compiles
# Debian's whole built-in kernel); 'make test-debian'.
build-debian: prepare
	@set -e; for a in $(ARCHES); do \
		echo "==> $@: $$a, Debian's configuration with make mmrust.config"; \
		MMRUST_ARCH=$$a MMRUST_FLAVOR=debian bash $(T)/build.sh; \
		[ $$a = x86_64 ] || continue; \
		echo "==> $@: $$a, the same without Rust"; MMRUST_ARCH=$$a MMRUST_FLAVOR=debian-norust bash $(T)/build.sh; \
	done

test-debian: build-debian
	$(call step,Debian's configurations ($(ARCHES)): linked; amd64's CRCs with and without Rust$(comma) kselftests and boot tests,test.sh debian)

kunit: build
	$(call step,KUnit suites in the test kernels ($(ARCHES)),test.sh kunit)

boot: build
	$(call step,boot tests,test.sh boot)

run: build
	$(call step,booting the $(ONE_ARCH) test kernel (QEMU TCG with 2 vCPUs),run.sh)

shell: build
	$(call step,booting the test kernel with a root shell,shell.sh)

matrix: prepare
	$(call step,the configuration matrix ($(ARCHES)),matrix.sh)

series: prepare
	$(call step,the overlay as a patch series,series.sh)

# Not part of make test: every step of the series compiled on its own.
series-check: prepare
	$(call step,each patch of the series applied and compiled in turn,series-check.sh)

rusttest: setup
	$(call step,host tests of the pure Rust,rusttest.sh)

# ONLY=<name>[,<name>...]: some mutations of tools/testing/mmrust/mutants/.
mutants: prepare
	$(call step,the mutations of tools/testing/mmrust/mutants/ one at a time,mutants.sh)

kunit-tool: prepare
	$(call step,kunit.py run with mm/.kunitconfig,kunit_tool.sh)

# The benchmarks are a tool of their own (tools/testing/mmrust-bench/): they
# measure, they check nothing; they boot the harness's images.
bench: build
	@echo "==> $@: benchmarks" && bash tools/testing/mmrust-bench/bench.sh

# make stress DURATION=<minutes> STRESS_SMP="<vCPU counts>": on the
# x86_64 debug image (MMRUST_DEBUG=0 or ARCH=arm64: the test image).
STRESS_IMAGE := $(if $(and $(filter x86_64,$(ONE_ARCH)),$(filter 1,$(MMRUST_DEBUG))),build-debug,build)
stress: $(STRESS_IMAGE)
	$(call step,concurrent stress ($(or $(DURATION),5) min per boot; vCPUs: $(or $(STRESS_SMP),2 4)),test.sh stress)
stress: export MMRUST_STRESS_MINUTES = $(or $(DURATION),5)
stress: export MMRUST_STRESS_SMP = $(or $(STRESS_SMP),2 4)

check: prepare
	$(call step,checkpatch - rustfmt - clippy,check.sh)

clean:
	@echo "==> clean: removing $(CACHE)/build, logs and the prepared tree"
	rm -rf $(CACHE)/build $(CACHE)/logs $(CACHE)/stage $(CACHE)/initramfs* $(CACHE)/src $(CACHE)/src-base $(CACHE)/manifest $(CACHE)/series*

distclean: clean
	@echo "==> distclean: also the unpacked base, ccache and bindgen"
	rm -rf $(CACHE)
