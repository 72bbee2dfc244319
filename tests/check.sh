#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# check.sh - make check's suites one after another, and their grand total
#
#   tests/check.sh 'CK_DEFAULT_TIMEOUT=60 build/tests/unit' ./tests/layers.py ./tests/docs.sh ...
#
# Each argument is one suite's command line (run by bash -c, from the project root). Its
# output passes through as it is; its last summary line is taken: "N passed, N failed,
# N skipped" (", N skipped" may be missing: 0) or Check's "P%: Checks: N, Failures: F,
# Errors: E" (N-F-E passed, F+E failed). Every suite runs, whatever the one before did.
# At the end a line per suite (with the seconds it took), then the total over all of them, last:
#
#   total over N suites:
#   N passed, N failed, N skipped
#
# so that checks skipped anywhere (no root, no tracefs, a tool missing) show in the
# grand total instead of passing unseen. Exits 1 if a check failed, or a suite exited
# non-zero or printed no summary line (counted as one failure), or made or changed the
# default log file /tmp/mem_debug_log or its LOG.oom.N (a run without -o: the user's files;
# one failure, naming the suite).
set -u
cd "$(dirname "$0")/.." || exit 1

out=$(mktemp /tmp/memtrace-check.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
P=0 F=0 S=0 bad_suites=0
lines=() failed=()
# the default log and its OOM snapshots: each one's name, inode, size and time
default_logs() { stat -c '%n %i %s %Y.%y' /tmp/mem_debug_log /tmp/mem_debug_log.* 2> /dev/null; }

for cmd in "$@"; do
	t=$SECONDS
	logs=$(default_logs)
	bash -c "$cmd" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	t=$((SECONDS - t))
	touched=$(diff <(echo "$logs") <(default_logs) | sed -n 's/^> \([^ ]*\) .*/\1/p' | tr '\n' ' ')
	name=${cmd##* }
	name=${name##*/}
	p='' f='' s=0
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$|^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+$' "$out" | tail -n 1)
	if [[ $sum =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	elif [[ $sum =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+)$ ]]; then
		f=$((BASH_REMATCH[2] + BASH_REMATCH[3]))
		p=$((BASH_REMATCH[1] - f))
	fi
	if [ -z "$p" ]; then
		lines+=("$(printf '%-16s exit %d, no summary line: counted as 1 failed; %d s' "$name" "$rc" "$t")")
		p=0 f=1
		bad_suites=$((bad_suites + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		lines+=("$(printf '%-16s %s passed, %s failed, %s skipped; exit %d: counted as 1 failed; %d s' \
			"$name" "$p" "$f" "$s" "$rc" "$t")")
		f=1
		bad_suites=$((bad_suites + 1))
	else
		lines+=("$(printf '%-16s %s passed, %s failed, %s skipped; %d s%s' "$name" "$p" "$f" "$s" \
			"$t" "$([ "$f" = 0 ] || echo "  <- FAILED")")")
		[ "$f" = 0 ] || bad_suites=$((bad_suites + 1))
	fi
	if [ -n "$touched" ]; then
		lines+=("$(printf '%-16s made or changed %s(a run without -o): counted as 1 failed' \
			"$name" "$touched")")
		F=$((F + 1))
		bad_suites=$((bad_suites + 1))
	fi
	P=$((P + p)) F=$((F + f)) S=$((S + s))
	# the failed checks' own lines (FAIL - / not ok - of the scripts, Check's :F: and
	# :E:), repeated at the end where a log cut to its tail still shows them
	while IFS= read -r l; do
		failed+=("$name: $l")
	done < <(grep -E '^(FAIL - |not ok - )|:[FE]:' "$out" | head -n 20)
done

echo
echo "== make check: $# suites${MEMTRACE_NO_SKIP:+ (MEMTRACE_NO_SKIP=$MEMTRACE_NO_SKIP: a live part skipped is a failure)}"
printf '   %s\n' "${lines[@]}"
if [ "${#failed[@]}" != 0 ]; then
	echo "the failed checks (at most 20 lines per suite):"
	printf '   %s\n' "${failed[@]}"
fi
[ "$bad_suites" = 0 ] && of='' || of=", $bad_suites of them failed"
echo "total over $# suites$of, $SECONDS s:"
echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
