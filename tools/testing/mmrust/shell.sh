#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make shell": the test kernel booted with a root shell on this terminal
# (the samples and test programs on PATH, debugfs mounted).  'exit' or
# 'poweroff' ends it; so does Ctrl-A x (QEMU).  Commands can also come on
# standard input, which is how make test checks it.
. "$(dirname "$0")/lib.sh"

[ ! -t 0 ] || say "booting the test kernel; a root shell follows ('exit' powers off, Ctrl-A x kills QEMU)"
exec "$TOP/tools/testing/mmrust/boot.sh" shell - kunit.enable=0 loglevel=4 "$@"
