#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make run": boot the test kernel and show the components at work.
. "$(dirname "$0")/lib.sh"

mkdir -p "$LOGS"
log=$LOGS/run.log
say "booting; the guest's console follows (full log: $log)"
"$TOP/tools/testing/mmrust/boot.sh" run "$log" kunit.enable=0 loglevel=4 &
pid=$!
tail -n +1 -F "$log" 2>/dev/null & tailpid=$!
rc=0; wait $pid || rc=$?
sleep 1; kill $tailpid 2>/dev/null || true
grep -q '^mmrust: done' "$log" || die "the guest did not finish (QEMU exit $rc)"
say "guest powered off cleanly"
