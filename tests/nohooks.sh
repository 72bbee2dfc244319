#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# nohooks.sh - the release binary carries no test code: none of the fault hooks' strings
# (MEMTRACE_TEST_* and the hooks' messages) and none of their names (struct test_hooks,
# its fields, the hook functions; in the symbol table or the debug info), while the test
# build, build/tests/memtrace-hooks, has every one of them (so that the list below is right).
# The names are read from core/testhook.h and core/testhook.c: a new hook is checked without
# an edit here.
#
# Run from the project root, as any user, after make: ./tests/nohooks.sh
# Prints "ok - ..." or "not ok - ..." per check, then "N passed, N failed"; exits 1 if
# a check failed. MEMTRACE and HOOKS swap the binaries checked (to see it fail on one
# with a hook leaked in).
set -u
export LC_ALL=C

abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
for v in MEMTRACE HOOKS; do
	[ -n "${!v:-}" ] && printf -v "$v" '%s' "$(abs "${!v}")"
done
cd "$(dirname "$0")/.." || exit 1
MEMTRACE=${MEMTRACE:-./memtrace}
HOOKS=${HOOKS:-build/tests/memtrace-hooks}

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }

for b in "$MEMTRACE" "$HOOKS"; do
	[ -f "$b" ] || { notok "$b is built (make memtrace build/tests/memtrace-hooks)"; echo "$pass passed, $fail failed"; exit 1; }
done

# the hooks' strings: every string literal of core/testhook.c (the environment's names, the
# messages); their names: the struct's tag and fields and the functions of core/testhook.h
mapfile -t strs < <(grep -v '^#' core/testhook.c | grep -o '"[^"]*"' | sed 's/^"//; s/"$//; s/%[a-z]*$//' | sort -u)
mapfile -t names < <({
	echo test_hooks
	sed -n '/^struct test_hooks {/,/^};/p' core/testhook.h |
		sed -nE 's/^[[:space:]]+[a-z_ ]+[ *]([a-z_][a-z0-9_]*);.*/\1/p'
	sed -nE 's/^[a-z].*[ *](test_[a-z0-9_]+)\(.*/\1/p' core/testhook.h
} | sort -u)

if [ "${#strs[@]}" -lt 2 ] || [ "${#names[@]}" -lt 4 ]; then
	notok "the hooks read from core/testhook.h and core/testhook.c (${#strs[@]} strings, ${#names[@]} names)"
	echo "$pass passed, $fail failed"
	exit 1
fi

# has BINARY WORD: WORD anywhere in the file (strings, symbol table, debug info)
has() { grep -a -q -F -e "$2" "$1"; }

leaked= missing=
for w in "${strs[@]}" "${names[@]}"; do
	has "$MEMTRACE" "$w" && leaked="$leaked $w"
	has "$HOOKS" "$w" || missing="$missing $w"
done
if [ -z "$leaked" ]; then
	ok "$MEMTRACE has none of the hooks' ${#strs[@]} strings and ${#names[@]} names"
else
	notok "$MEMTRACE has test hooks in it:$leaked"
fi
if [ -z "$missing" ]; then
	ok "$HOOKS (the test build) has all of them"
else
	notok "$HOOKS lacks (the list is wrong, or the test build has no hooks):$missing"
fi
# and no symbol of a test function at all
syms=$(nm "$MEMTRACE" 2> /dev/null | awk '$3 ~ /^test_/ { print $3 }' | tr '\n' ' ')
if [ -z "$syms" ]; then
	ok "$MEMTRACE defines no test_* symbol"
else
	notok "$MEMTRACE defines test symbols: $syms"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
