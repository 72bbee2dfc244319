#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ci.sh - .ci/run as a fresh machine meets it, without one: its apt-get update tolerates a
# failed index of every foreign architecture dpkg has (not only its own four), and nothing
# else; it installs for make check exactly the packages of the README's test command, and
# the README's two commands are each one whole line (issue 40, 6 and 9). apt-get and dpkg
# are stubs on PATH: nothing is installed or fetched. Needs no root.
set -u
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/memtrace-ci.XXXXXX)
. "$PWD/tests/lib.sh"
trap 'rm -rf "$T"' EXIT

# stub apt-get: its update prints $T/apt.out and exits $T/apt.rc; stub dpkg: the foreign
# architectures in $T/foreign
mkdir "$T/bin"
cat > "$T/bin/apt-get" <<'EOF'
#!/bin/sh
cat "$STUB/apt.out"
exit "$(cat "$STUB/apt.rc")"
EOF
cat > "$T/bin/dpkg" <<'EOF'
#!/bin/sh
[ "$1" = --print-foreign-architectures ] && cat "$STUB/foreign"
EOF
# and whatever else .ci/run would do, should it not stop where told to (an old .ci/run, a
# broken guard): id says not root (no apt-get), make, setsid, systemctl and mount fail
printf '#!/bin/sh\necho 1000\n' > "$T/bin/id"
for c in make setsid systemctl mount nice; do printf '#!/bin/sh\nexit 1\n' > "$T/bin/$c"; done
chmod +x "$T/bin/"*

# ci_source CMD: CMD after .ci/run's functions and lists (sourced, CI_FUNCTIONS_ONLY=1), the stubs
# first on PATH
# (never CI's own step files: make check under .ci/run exports them, and a fake step written
# there shows in CI's list of steps)
ci_source() {
	( unset CI_TIMES CI_PHASE_DIR CI_FAILED CI_CHECK_LOG
	  export STUB=$T PATH="$T/bin:$PATH" CI_FUNCTIONS_ONLY=1
	  . ./.ci/run && eval "$1" )
}
if ! grep -q '^if \[ -n "${CI_FUNCTIONS_ONLY:-}" \]; then return 0; fi$' .ci/run; then
	bad ".ci/run stops after its functions when sourced with CI_FUNCTIONS_ONLY=1 (nothing else checked)"
	summary
	exit 1
fi

# fetch_err ARCH: apt-get update's line for a failed index of ARCH
fetch_err() {
	echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-$1/Packages.xz  File has unexpected size (1234 != 5678)."
}

# update_with FOREIGN RC LINES...: .ci/run's apt_update, apt-get update exiting RC with LINES;
# its status in URC, what it said in $T/update.out
update_with() {
	local foreign=$1 rc=$2
	shift 2
	tr ' ' '\n' <<< "$foreign" > "$T/foreign"
	printf '%s\n' "$@" > "$T/apt.out"
	echo "$rc" > "$T/apt.rc"
	ci_source apt_update > "$T/update.out" 2>&1
	URC=$?
}

SOME="E: Some index files failed to download. They have been ignored, or old ones used instead."
update_with "s390x arm64 armhf i386 ppc64el" 100 "$(fetch_err ppc64el)" "$(fetch_err armhf)" "$SOME"
check "apt-get update: failed indexes of ppc64el (a foreign architecture the machine had) and armhf tolerated ($URC: $(grep -m1 'ci: apt-get update' "$T/update.out"))" \
	eval '[ "$URC" = 0 ] && grep -q "foreign indexes failed, tolerated" "$T/update.out"'
update_with "s390x arm64 armhf i386 ppc64el" 100 "$(fetch_err amd64)" "$(fetch_err armhf)" "$SOME"
check "apt-get update: a failed native (amd64) index is not tolerated ($URC)" \
	eval '[ "$URC" = 1 ] && grep -q "not only for foreign indexes" "$T/update.out"'
update_with "s390x" 100 "$(fetch_err armhf)" "$SOME"
check "apt-get update: an index of an architecture dpkg does not have is not taken for foreign ($URC)" \
	test "$URC" = 1
update_with "s390x arm64" 100 "E: Could not get lock /var/lib/apt/lists/lock"
check "apt-get update: any other failure (the lock) fails ($URC)" \
	eval '[ "$URC" = 1 ] && grep -q "lists/lock" "$T/update.out"'
update_with "s390x" 0 ""
check "apt-get update: its success is one ($URC)" test "$URC" = 0

# the README's two commands, each whole: the main job, and the tests with what they use
readme_cmd() {	# readme_cmd TARGET: the README's line "apt-get install -y ... && make TARGET"
	grep -E "^apt-get install -y [a-z0-9. +-]+ && make $1( |\$)" README.md | sed 's/ *#.*//'
}
check "README: the main job is one line, apt-get install -y gcc make libc6-dev && make demo ($(readme_cmd demo))" \
	test "$(readme_cmd demo)" = "apt-get install -y gcc make libc6-dev && make demo"
readme=$(readme_cmd check | sed 's/^apt-get install -y //; s/ && make check$//' | tr ' ' '\n' | sort)
ci=$(ci_source 'echo $CHECK_PACKAGES' | tr -s ' \t\n' '\n' | sort)
check "README: the tests are one line, apt-get install -y ... && make check ($(readme_cmd check | cut -c1-60)...)" \
	test -n "$readme"
check ".ci/run installs for make check exactly the README's test packages ($(diff <(echo "$readme") <(echo "$ci") | grep '^[<>]' | tr '\n' ' '))" \
	test -n "$ci" -a "$readme" = "$ci"
check "README: the optional packages of the test command are named as such" \
	grep -q "^Optional" README.md

# a failed step's own lines are kept and repeated at the end: phase keeps each step's output,
# lists a failed one in CI_FAILED, and failed_lines picks out the failed checks of every
# suite's format (make e2e's FAIL: too, which stop 43's CI log never showed)
mkdir "$T/phases"
: > "$T/outer-times"
export CI_TIMES=$T/outer-times	# as .ci/run exports it to make check
ci_source 'CI_PHASE_DIR=$T/phases CI_FAILED=$T/phases/failed
	phase "fake e2e" sh -c "echo PASS: a; echo FAIL: kdump-r bound; echo 1 passed, 1 failed; exit 2" || echo "rc=$?"
	phase "fake ok" sh -c "echo ok - fine"
	while IFS="	" read -r log name; do echo "failed step: $name"; failed_lines "$log"; done < "$CI_FAILED"' \
	> "$T/phase.out" 2>&1
check "phase: a failed step keeps its exit status (rc=2) and says FAILED" \
	eval 'grep -q "^rc=2$" "$T/phase.out" && grep -q "fake e2e: [0-9]* s, FAILED (exit 2)" "$T/phase.out"'
check "phase: only the failed step is listed for the end ($(grep -c '^failed step' "$T/phase.out"))" \
	eval 'grep -q "^failed step: fake e2e$" "$T/phase.out" && ! grep -q "^failed step: fake ok" "$T/phase.out"'
check "failed_lines: repeats make e2e's FAIL: line" \
	grep -q "^ci:     FAIL: kdump-r bound$" "$T/phase.out"
check "the fake steps are not written into the CI_TIMES of a CI running this test ($(wc -l < "$T/outer-times") lines)" \
	test ! -s "$T/outer-times"
unset CI_TIMES

summary
[ "$fail" = 0 ]
