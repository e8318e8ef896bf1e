# SPDX-License-Identifier: GPL-2.0
# Bad input, table-driven (testing.rst, "Bad input").  One entry per knob:
# <test name> <file> <bad value>:<errno>..., the values on the same line
# or on lines after it (see bad_value, refuses and DEBUGFS_BAD in lib.sh).
BAD_INPUT_TABLE="
clear_pages_unit_pages /sys/kernel/debug/clear_pages/unit_pages $DEBUGFS_BAD 2^32:EINVAL
hugetlb_fail_first /sys/kernel/debug/hugetlb_bulk_free/fail_first $DEBUGFS_BAD 2^32:EINVAL
hugetlb_fail_count /sys/kernel/debug/hugetlb_bulk_free/fail_count $DEBUGFS_BAD 2^32:EINVAL
hugetlb_breakdown /sys/kernel/debug/hugetlb_bulk_free/breakdown $DEBUGFS_BAD 2:EINVAL 2^32:EINVAL
slub_churn_run /sys/kernel/debug/slub_partial_churn/run $DEBUGFS_BAD zero:EINVAL 2^32:EINVAL
slub_churn_remote /sys/kernel/debug/slub_partial_churn/remote $DEBUGFS_BAD zero:EINVAL 2^32:EINVAL"

# bad_input <file> <spec>...: skipped where the knob does not exist.
bad_input() {
	local f=$1
	shift
	[ -e "$f" ] || { skip "no $f in this kernel"; return; }
	refuses "$f" "$@"
}

# One test per entry of the table: test_bad_input_<name>.
eval "$(echo "$BAD_INPUT_TABLE" | awk 'NF && $1 !~ /:/ {if (l) print l; l = $0; next}
	NF {for (i = 1; i <= NF; i++) l = l " " $i} END {if (l) print l}' |
while read -r name file specs; do
	echo "test_bad_input_$name() { bad_input $file $specs; }"
	echo "register bad_input_$name $file"
done)"
