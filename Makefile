# SPDX-License-Identifier: GPL-2.0
#
# mmrust: memory-management logic in Rust inside Linux 6.12, called from C.
# This Makefile drives everything; the kernel's own Makefile is only called
# on the prepared tree under $(MMRUST_CACHE).  See README.md.

export MMRUST_CACHE ?= $(HOME)/.cache/mmrust
T := tools/testing/mmrust
CACHE := $(MMRUST_CACHE)

.PHONY: all help setup prepare build test kunit boot run bench check clean distclean

all: help

help:
	@echo "make test     install what is needed, build, run every test (KUnit + boot tests)"
	@echo "make run      build the test kernel and boot it, showing the components at work"
	@echo "make kunit    KUnit suites only (x86_64 QEMU)"
	@echo "make boot     boot tests only"
	@echo "make bench    benchmarks (Rust vs C in one image), 'bench: <name> = <value>' lines"
	@echo "make check    checkpatch, rustfmt and clippy on our code"
	@echo "make clean    remove the build outputs (keeps the unpacked base and ccache)"
	@echo "cache: $(CACHE)"

setup:
	@echo "==> setup: Debian packages and bindgen-cli"
	@bash $(T)/setup.sh

prepare: setup
	@echo "==> prepare: base + overlay + patches in $(CACHE)/src"
	@bash $(T)/prepare.sh

build: prepare
	@echo "==> build: x86_64 test kernel"
	@bash $(T)/build.sh

test: build
	@echo "==> test: KUnit and boot tests"
	@bash $(T)/test.sh all

kunit: build
	@echo "==> kunit: KUnit suites in the x86_64 test kernel"
	@bash $(T)/test.sh kunit

boot: build
	@echo "==> boot: boot tests"
	@bash $(T)/test.sh boot

run: build
	@echo "==> run: booting the test kernel (QEMU TCG, 2 vCPUs)"
	@bash $(T)/run.sh

bench: build
	@echo "==> bench: benchmarks"
	@bash $(T)/bench.sh

check: prepare
	@echo "==> check: checkpatch, rustfmt, clippy"
	@bash $(T)/check.sh

clean:
	@echo "==> clean: removing $(CACHE)/build, logs and the prepared tree"
	rm -rf $(CACHE)/build $(CACHE)/logs $(CACHE)/stage $(CACHE)/initramfs* $(CACHE)/src $(CACHE)/manifest

distclean: clean
	@echo "==> distclean: also the unpacked base, ccache and bindgen"
	rm -rf $(CACHE)
