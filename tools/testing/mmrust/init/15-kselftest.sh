# SPDX-License-Identifier: GPL-2.0
# The base's mm selftests (tools/testing/selftests/mm) on this kernel, in
# the kselftest mode (mmrust.mode=kselftest): the base's runner,
# run_vmtests.sh, with bash, in /selftests, for the categories named by
# mmrust.vmtests= (comma-separated; guest.sh puts their programs there).
# Its TAP (each program's own KTAP nested under "# ") goes to the KTAP
# console as it comes, and a copy, prefixed "mmrust: ", to the main
# console; the host counts every program and every case of it
# (kselftest_results in test.sh).  The components are what the kernel
# parameters select; on arm64 the 64 KiB mTHP size is set to "always", so
# that the THP, cow and mkdirty cases fault and fork contpte mappings.
run_kselftests() {
	local cats mthp=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled
	cats=$(cmdline_param mmrust.vmtests "" | tr , ' ')
	if [ -z "$cats" ]; then
		ktap "KTAP version 1" "1..0 # SKIP no mmrust.vmtests= categories"
		return
	fi
	[ ! -w "$mthp" ] || echo always > "$mthp"
	# Free huge pages of every size but 1 GiB for cow's hugetlb cases (two
	# each: arm64 has 64 KiB, 2 MiB and 32 MiB): run_vmtests.sh grows the
	# default pool for its hugetlb category, then sets it back to what it
	# found, before cow runs.
	for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
		[ "$d" != /sys/kernel/mm/hugepages/hugepages-1048576kB ] || continue
		[ "$(cat "$d/nr_hugepages")" -ge 4 ] || echo 4 > "$d/nr_hugepages"
	done
	echo "mmrust: run_vmtests.sh -t \"$cats\"$([ -w "$mthp" ] && echo ", 64 KiB mTHP: $(cat "$mthp")")"
	# run_vmtests.sh's own cleanup runs in /tmp and /mnt.
	mkdir -p /mnt
	# Nothing but the tests runs here: thp_huge_zero_page may take a huge
	# zero page that drop_caches does not free for a failure, and
	# contpte_mthp's events must be exact.
	(cd /selftests && THP_ZERO_PAGE_NO_OTHER_USERS=1 CONTPTE_NO_OTHER_USERS=1 \
		bash ./run_vmtests.sh -t "$cats" 2>&1
		echo "# run_vmtests.sh: exit status $?"
		# What a failed THP allocation leaves behind, for a failure.
		echo "# vmstat:" $(grep -E '^(thp_fault_|compact_(stall|fail|success))' /proc/vmstat)
		echo "# buddyinfo:" $(grep Normal /proc/buddyinfo)) |
		if [ -n "$KTAP_DEV" ]; then tee -a "$KTAP_DEV"; else cat; fi | sed 's/^/mmrust: /'
}
