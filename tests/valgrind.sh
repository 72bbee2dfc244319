#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# valgrind.sh - the unit tests under valgrind (make check-valgrind): a valgrind per suite
# (CK_RUN_SUITE), as many at once as there are CPUs (VALGRIND_JOBS), since one valgrind
# runs on one CPU. Each suite's summary line is printed; the checks of all suites must add
# up to those of one plain run of build/tests/unit, so that no suite is left out. Exits 1 on any
# error, leak or failed check. Prints "N passed, N failed" (suites).
set -u
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/memtrace-valgrind.XXXXXX)
trap 'rm -rf "$T"' EXIT
mapfile -t suites < <(grep -ho 'suite_create("[a-z_0-9]*")' tests/test_*.c |
	sed -E 's/suite_create\("(.*)"\)/\1/' | sort)
. tests/lib.sh		# on_cpus, and the pass/fail counters

# --vex-iropt-register-updates=allregs-at-mem-access: a fault's handler may return and the
# access go on (test_reader's files cut while mapped: reader_map_fault() maps zeros over what
# was cut); by default valgrind keeps only the registers an unwinder needs up to date at a
# memory access, and the access resumed with the others stale (a walk whose cursor is kept in
# registers read through a null pointer under valgrind alone)
one() {	# one SUITE: its valgrind's log, status and seconds in $T
	local t0=$SECONDS
	CK_RUN_SUITE=$1 CK_FORK=no CK_DEFAULT_TIMEOUT=600 valgrind --error-exitcode=99 \
		--vex-iropt-register-updates=allregs-at-mem-access \
		--leak-check=full --errors-for-leak-kinds=definite ./build/tests/unit > "$T/$1.log" 2>&1
	echo $? > "$T/$1.rc"
	echo $((SECONDS - t0)) > "$T/$1.s"
}

on_cpus "${VALGRIND_JOBS:-$(nproc)}" one "${suites[@]}"

total=0
for s in "${suites[@]}"; do
	rc=$(cat "$T/$s.rc" 2> /dev/null)
	line=$(grep -E '^[0-9]+%: Checks: ' "$T/$s.log" | tail -1)
	n=$(sed -nE 's/.*Checks: ([0-9]+),.*/\1/p' <<< "$line")
	total=$((total + ${n:-0}))
	if [ "$rc" = 0 ] && [ -n "$line" ]; then
		pass=$((pass + 1))
		echo "ok   - valgrind $s ($(cat "$T/$s.s") s): $line"
	else
		fail=$((fail + 1))
		echo "FAIL - valgrind $s (exit ${rc:-none}): ${line:-no summary}"
		grep -E '^==[0-9]+== (Invalid|Conditional|.*definitely lost|.*uninitialised)|^[^=].*:[FE]:' \
			"$T/$s.log" | head -10 | sed 's/^/       /'
	fi
done
# every suite ran: the same number of checks as one plain run
all=$(CK_DEFAULT_TIMEOUT=60 ./build/tests/unit 2>&1 | sed -nE 's/^[0-9]+%: Checks: ([0-9]+),.*/\1/p')
if [ -n "$all" ] && [ "$total" = "$all" ]; then
	pass=$((pass + 1))
	echo "ok   - valgrind: the suites' checks add up to a plain run's ($total)"
else
	fail=$((fail + 1))
	echo "FAIL - valgrind: the suites ran $total checks, a plain run ${all:-none}"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
