# SPDX-License-Identifier: GPL-2.0
# The mm selftests of the kselftest mode (testing.rst, "The mm selftests"),
# their TAP to the KTAP console.  On arm64 the 64 KiB mTHP size is "always",
# so that the THP, cow and mkdirty cases fault and fork contpte mappings.

# kselftest_guest_setup: zram swap (cow's and khugepaged's swap-out cases),
# "pgrep -f" and "killall --wait" (testing.rst, "The mm selftests").
kselftest_guest_setup() {
	local z=/sys/block/zram0
	if [ -e $z/disksize ] && echo 1G > $z/disksize && mkswap /dev/zram0 > /dev/null &&
		swapon /dev/zram0; then
		echo "mmrust: swap: $(awk 'NR > 1 {print $1, $3 " KiB"}' /proc/swaps)"
	else
		echo "mmrust: no swap: no zram device (CONFIG_ZRAM) or mkswap/swapon failed"
	fi
	command -v pgrep > /dev/null || cat > /bin/pgrep <<'EOF'
#!/bin/sh
# pgrep -f <program>, as charge_reserved_hugetlb.sh runs it.
[ "$1" != -f ] || shift
exec pidof "${1##*/}"
EOF
	rm -f /bin/killall
	cat > /bin/killall <<'EOF'
#!/bin/sh
# busybox killall, and --wait: until none of that name is left.
w='' args=''
for a; do [ "$a" = --wait ] && w=1 || args="$args $a"; done
# shellcheck disable=SC2086 # the signal and the names, as given
busybox killall $args || exit
while [ -n "$w" ] && pidof "${args##* }" > /dev/null; do sleep 0.1; done
EOF
	chmod +x /bin/pgrep /bin/killall
}

run_kselftests() {
	local cats mthp=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled
	cats=$(cmdline_param mmrust.vmtests "" | tr , ' ')
	if [ -z "$cats" ]; then
		ktap "KTAP version 1" "1..0 # SKIP no mmrust.vmtests= categories"
		return
	fi
	[ ! -w "$mthp" ] || echo always > "$mthp"
	kselftest_guest_setup
	# Free huge pages of every size but 1 GiB for cow's hugetlb cases (two
	# each; arm64 has 64 KiB, 2 MiB and 32 MiB): run_vmtests.sh puts the
	# default pool back as it found it after its hugetlb category.
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
