#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dracut-module.sh - which binary the dracut module puts into an image (module-setup.sh,
# run with dracut's functions as stubs that record what they are asked, over a fake
# sysroot; no dracut, no image, no root): the boot binary memtrace-boot where make install
# and the packages put it (/usr/libexec/memtrace, /usr/local/libexec/memtrace, or
# PREFIX/libexec/memtrace beside PREFIX/bin/memtrace), silently; else the full memtrace,
# said; MEMTRACE_BIN over both; neither: check() says so and fails. make e2e builds real
# images with it.
set -u
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/memtrace-dracutmod.XXXXXX)
INST=memtrace-dracutmod-unused
# shellcheck source=tests/lib.sh
. tests/lib.sh
trap 'rm -rf "$T"' EXIT
MOD=$PWD/dracut/99memtrace/module-setup.sh

# run_module FUNC [VAR=VALUE...]: module-setup.sh's FUNC (check or install) in a fresh bash
# over the sysroot $T/root (PATH: its /usr/sbin and /usr/bin, as find_binary looks); what
# the stubs were asked in $T/calls, dinfo's lines in $T/info; RC its status
run_module() {
	local fn=$1
	shift
	: > "$T/calls"
	: > "$T/info"
	env -i "$@" bash -c '
		dracutsysrootdir=$1 out=$2 moddir=/mod initdir=/init systemdsystemunitdir=/sd
		SYSTEMCTL=:
		find_binary() {
			local d
			for d in /usr/sbin /usr/bin /sbin /bin; do
				[ -x "$dracutsysrootdir$d/$1" ] && { echo "$d/$1"; return 0; }
			done
			return 1
		}
		dinfo() { echo "$*" >> "$out/info"; }
		inst_binary() { echo "inst_binary $*" >> "$out/calls"; }
		inst_script() { echo "inst_script $*" >> "$out/calls"; }
		inst_multiple() { :; }
		inst_simple() { :; }
		inst_hook() { :; }
		dracut_module_included() { return 1; }
		. "$3"
		"$4"
	' bash "$T/root" "$T" "$MOD" "$fn"
	RC=$?
}
exe() { mkdir -p "$T/root${1%/*}" && printf '#!/bin/sh\n' > "$T/root$1" && chmod 755 "$T/root$1"; }
installed() { sed -n 's/^inst_binary //p' "$T/calls"; }

rm -rf "$T/root"
exe /usr/bin/memtrace
run_module install
check "no boot binary: the full memtrace (/usr/bin/memtrace) taken as /usr/sbin/memtrace" \
	test "$(installed)" = "/usr/bin/memtrace /usr/sbin/memtrace"
check "no boot binary: said when the image is built" \
	grep -qx "memtrace: no boot binary (memtrace-boot in /usr/libexec/memtrace, built with musl-tools); the image takes the full /usr/bin/memtrace" "$T/info"

exe /usr/libexec/memtrace/memtrace-boot
run_module install
check "the boot binary in /usr/libexec/memtrace: taken as /usr/sbin/memtrace, nothing said" \
	eval '[ "$(installed)" = "/usr/libexec/memtrace/memtrace-boot /usr/sbin/memtrace" ] && [ ! -s "$T/info" ]'
run_module check
check "the boot binary: check() leaves the module to be asked for (255)" test "$RC" = 255

# (a path as dracut is given it: the builder's, not the sysroot's)
exe /opt/mine
run_module install MEMTRACE_BIN="$T/root/opt/mine"
check "MEMTRACE_BIN wins over the boot binary, nothing said" \
	eval '[ "$(installed)" = "$T/root/opt/mine /usr/sbin/memtrace" ] && [ ! -s "$T/info" ]'

rm -rf "$T/root"
exe /usr/local/bin/memtrace
exe /usr/local/libexec/memtrace/memtrace-boot
run_module install
check "make install's default PREFIX: /usr/local/libexec/memtrace/memtrace-boot taken" \
	test "$(installed)" = "/usr/local/libexec/memtrace/memtrace-boot /usr/sbin/memtrace"

rm -rf "$T/root"
exe /usr/sbin/memtrace
exe /usr/libexec/memtrace/memtrace-boot
chmod 644 "$T/root/usr/libexec/memtrace/memtrace-boot"
run_module install
check "a boot binary that is not executable: passed over for the full one, said" \
	eval '[ "$(installed)" = "/usr/sbin/memtrace /usr/sbin/memtrace" ] && grep -q "no boot binary" "$T/info"'

rm -rf "$T/root"
exe /usr/libexec/memtrace/memtrace-boot
run_module install
check "the boot binary alone (no full memtrace): taken" \
	test "$(installed)" = "/usr/libexec/memtrace/memtrace-boot /usr/sbin/memtrace"

rm -rf "$T/root"
mkdir -p "$T/root"
run_module check
check "no binary at all: check() fails (1) and says what it looked for" \
	eval '[ "$RC" = 1 ] && grep -q "no executable memtrace (MEMTRACE_BIN, memtrace-boot, PATH or /usr/local)" "$T/info"'

summary
[ "$fail" = 0 ]
