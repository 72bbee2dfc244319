#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# hostile.sh - memtrace never touches what is not its own: other tools' tracefs
# instances (trace-cmd's among them), other users' files, paths that are FIFOs, devices
# or symlinks, and it goes through its teardown on every signal that would end it.
# Each part is a file in tests/hostile.d/, sourced in order; they share the counters of
# tests/lib.sh and print one summary line at the end.
#
#   tests/hostile.sh                      # all parts
#   tests/hostile.sh instances signals    # the parts whose file names contain a word
#   HOSTILE_MT=/tmp/old/memtrace tests/hostile.sh   # another build (the "before" column)
#
# Needs root and a tracefs for the live parts (SKIP: reason otherwise). Our instances
# are named memtrace-ho$$*; foreign ones (made to be left alone) hostile-$$*; all are
# removed at exit, and tracefs is checked to be as found.
set -u
cd "$(dirname "$0")/.." || exit 1
MT=${HOSTILE_MT:-$PWD/memtrace}
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-ho.XXXXXX)
chmod 755 "$T"
INST=memtrace-ho$$
FOREIGN=hostile-$$
. "$PWD/tests/lib.sh"
T0=$(date +%s%N)
CLEANUPS=()	# commands a part registers to run at exit (unmounts, users' files, ...)

cleanup() {
	local p c
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for c in "${CLEANUPS[@]}"; do eval "$c" 2>/dev/null; done
	undo_ours
	for d in "${TFS:-/nonexistent}"/instances/"$FOREIGN"*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/events/enable" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x "$MT" ] || { echo "build memtrace first (make memtrace build/tests/workload)"; exit 1; }
find_tracefs
top_before=$(INST=/nonexistent tfs_state)
for part in tests/hostile.d/*.sh; do
	if [ $# -gt 0 ]; then
		want=0
		for w in "$@"; do [[ "${part##*/}" == *"$w"* ]] && want=1; done
		[ "$want" = 1 ] || continue
	fi
	t=$(date +%s%N)
	echo "# ${part##*/}"
	# shellcheck disable=SC1090
	. "$part"
	echo "# ${part##*/}: $(( ($(date +%s%N) - t) / 1000000 )) ms"
done
if [ -n "${TFS:-}" ]; then
	check "tracefs top level as found after every part" test "$top_before" = "$(INST=/nonexistent tfs_state)"
fi
echo "# runtime $(( ($(date +%s%N) - T0) / 1000000 )) ms"
summary
[ "$fail" = 0 ]
