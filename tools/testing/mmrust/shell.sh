#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make shell": the test kernel with a root shell on this terminal, or
# commands on standard input (using.rst, "Running the kernel").
. "$(dirname "$0")/lib.sh"

[ ! -t 0 ] || say "booting the test kernel; a root shell follows ('exit' powers off, Ctrl-A x kills QEMU)"
exec "$TOP/tools/testing/mmrust/boot.sh" shell - kunit.enable=0 loglevel=4 "$@"
