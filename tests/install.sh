#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# install.sh - make install/uninstall into a DESTDIR land exactly the documented files, with
# the documented modes, paths substituted into the systemd unit, and nothing left after
# uninstall; the unit passes systemd-analyze verify. Needs no root. Run from the project root.
set -u
cd "$(dirname "$0")/.." || exit 1
# run from make check: none of the caller's make state or install paths may leak in
unset MAKEFLAGS MFLAGS MAKELEVEL MEMTRACE_TEP_SAID PREFIX BINDIR MANDIR LOGDIR DRACUTMODDIR \
	SYSTEMDUNITDIR INITRAMFS_TOOLS_DIR DESTDIR LIBEXECDIR STATIC_CC
PASS=0 FAIL=0 SKIP=0
ok() { echo "ok - $*"; PASS=$((PASS + 1)); }
bad() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }
skip() { echo "SKIP: $*"; SKIP=$((SKIP + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
W=$(mktemp -d /tmp/memtrace-install.XXXXXX)
trap 'rm -rf "$W"' EXIT

# listing: mode and path of every file and symlink under $1, relative
listing() { (cd "$1" && find . \( -type f -o -type l \) -printf '%m %p\n' | sed 's|^\(...\) \./|\1 /|' | sort); }

# 1. defaults (PREFIX=/usr/local), dracut and systemd dirs pinned so the test does not
#    depend on what pkg-config says on this machine
D=$W/default
make -s install DESTDIR="$D" DRACUTMODDIR=/usr/lib/dracut/modules.d \
	SYSTEMDUNITDIR=/usr/local/lib/systemd/system > "$W/out" 2>&1
check "make install DESTDIR=... exits 0" test $? = 0
cat > "$W/want" <<'EOF'
644 /usr/lib/dracut/modules.d/99memtrace/memtrace.service
644 /usr/local/lib/systemd/system/memtrace.service
644 /usr/local/share/man/man8/memtrace.8
755 /usr/lib/dracut/modules.d/99memtrace/memtrace-dracut.sh
755 /usr/lib/dracut/modules.d/99memtrace/memtrace-report.sh
755 /usr/lib/dracut/modules.d/99memtrace/memtrace-start.sh
755 /usr/lib/dracut/modules.d/99memtrace/module-setup.sh
755 /usr/local/bin/memtrace
755 /usr/local/libexec/memtrace/memtrace-boot
755 /usr/share/initramfs-tools/hooks/memtrace
755 /usr/share/initramfs-tools/scripts/init-bottom/memtrace
755 /usr/share/initramfs-tools/scripts/init-top/memtrace
755 /usr/share/initramfs-tools/scripts/memtrace-initrd
EOF
listing "$D" | sort > "$W/got"
sort -o "$W/want" "$W/want"
check "installed files and modes are exactly the documented ones" diff "$W/want" "$W/got"
diff "$W/want" "$W/got" | sed 's/^/    /'
check "installed binary is this build" cmp -s memtrace "$D/usr/local/bin/memtrace"
check "installed boot binary is this build's memtrace-boot, where the images look (libexec/memtrace)" \
	cmp -s memtrace-boot "$D/usr/local/libexec/memtrace/memtrace-boot"
check "installed man page is memtrace.8" cmp -s memtrace.8 "$D/usr/local/share/man/man8/memtrace.8"
check "initramfs-tools' start/stop helper is the dracut module's" \
	cmp -s dracut/99memtrace/memtrace-dracut.sh "$D/usr/share/initramfs-tools/scripts/memtrace-initrd"
# (tests/initramfs-tools.sh runs the helper: its exact start line, the JSON file kept)
check "dracut module: the start line keeps a JSON report beside the log (--json /run/initramfs/mem_debug_log.json)" \
	eval 'grep -qx "MEMTRACE_LOG=/run/initramfs/mem_debug_log" "$D/usr/lib/dracut/modules.d/99memtrace/memtrace-dracut.sh" &&
		grep -q -- "-o \"\$MEMTRACE_LOG\" --json \"\$MEMTRACE_LOG.json\"" "$D/usr/lib/dracut/modules.d/99memtrace/memtrace-dracut.sh"'
U=$D/usr/local/lib/systemd/system/memtrace.service
check "unit: ExecStart runs BINDIR's memtrace" grep -q '^ExecStart=/usr/local/bin/memtrace --daemon' "$U"
check "unit: the log goes to LOGDIR" grep -q -- '-o /var/log/memtrace/memtrace.log' "$U"
check "unit: no @PLACEHOLDER@ left" bash -c "! grep -q '@[A-Z]*@' '$U'"
check "unit: its logs directory is the default LOGDIR" grep -qx 'LogsDirectory=memtrace' "$U"
check "unit: its directives match the man page's SYSTEMD section (instance, log)" \
	bash -c "sed 's/\\\\-/-/g' memtrace.8 > '$W/man.txt' && grep -q 'memtrace-service' '$W/man.txt' &&
		grep -q '/var/log/memtrace/memtrace.log' '$W/man.txt' && grep -q 'instance memtrace-service' '$U'"
if command -v systemd-analyze > /dev/null; then
	# verify resolves ExecStart: point a copy at this build
	mkdir -p "$W/verify"
	sed "s|/usr/local/bin/memtrace|$PWD/memtrace|" "$U" > "$W/verify/memtrace.service"
	systemd-analyze verify --man=no "$W/verify/memtrace.service" > "$W/verify.out" 2>&1
	check "unit: systemd-analyze verify is clean" \
		bash -c "[ ! -s '$W/verify.out' ] || { sed 's/^/    /' '$W/verify.out'; false; }"
	e=$(systemd-analyze security --offline=yes "$W/verify/memtrace.service" 2>/dev/null |
		sed -n 's/.*exposure level for memtrace.service: \([0-9.]*\).*/\1/p')
	check "unit: systemd-analyze security exposure $e is below 4 (OK)" \
		awk -v e="${e:-99}" 'BEGIN { exit !(e < 4) }'
else
	skip "systemd-analyze not installed (package systemd): unit not verified"
fi
make -s uninstall DESTDIR="$D" DRACUTMODDIR=/usr/lib/dracut/modules.d \
	SYSTEMDUNITDIR=/usr/local/lib/systemd/system > "$W/out" 2>&1
check "make uninstall exits 0" test $? = 0
check "uninstall leaves no file behind" test -z "$(listing "$D")"

# 2. a packager's call: PREFIX=/usr, BINDIR/MANDIR/LOGDIR overridden
D=$W/pkg
make -s install DESTDIR="$D" PREFIX=/usr BINDIR=/usr/sbin MANDIR=/usr/share/man \
	LOGDIR=/var/log/mt DRACUTMODDIR=/usr/lib/dracut/modules.d \
	SYSTEMDUNITDIR=/usr/lib/systemd/system > "$W/out" 2>&1
check "PREFIX=/usr BINDIR=/usr/sbin install exits 0" test $? = 0
check "binary in /usr/sbin" test -x "$D/usr/sbin/memtrace"
check "boot binary in /usr/libexec/memtrace (PREFIX/libexec)" test -x "$D/usr/libexec/memtrace/memtrace-boot"
check "man page in /usr/share/man/man8" test -f "$D/usr/share/man/man8/memtrace.8"
check "unit in /usr/lib/systemd/system runs /usr/sbin/memtrace, logs to /var/log/mt" \
	eval 'grep -q "^ExecStart=/usr/sbin/memtrace " "$D/usr/lib/systemd/system/memtrace.service" &&
		grep -q -- "-o /var/log/mt/memtrace.log" "$D/usr/lib/systemd/system/memtrace.service" &&
		grep -qx "LogsDirectory=mt" "$D/usr/lib/systemd/system/memtrace.service"'
make -s install-systemd DESTDIR="$W/bad" LOGDIR=/srv/memtrace > "$W/out" 2>&1
rc=$?
check "LOGDIR outside /var/log is refused (systemd creates only LogsDirectory=)" \
	eval '[ $rc != 0 ] && grep -q "LOGDIR must be under /var/log" "$W/out" && [ ! -e "$W/bad" ]'
make -s install DESTDIR="$W/sp ace" > "$W/out" 2>&1
check "a DESTDIR with a space works" test -x "$W/sp ace/usr/local/bin/memtrace"
make -s uninstall DESTDIR="$W/sp ace" > /dev/null 2>&1
make -s uninstall DESTDIR="$W/sp ace" > "$W/out" 2>&1
rc=$?
check "uninstall twice: exit 0, nothing left" eval '[ $rc = 0 ] && [ -z "$(listing "$W/sp ace")" ]'
check "nothing under /usr/local" test ! -e "$D/usr/local"
make -s install-initramfs-tools DESTDIR="$W/it" INITRAMFS_TOOLS_DIR=/etc/initramfs-tools \
	> "$W/out" 2>&1
check "INITRAMFS_TOOLS_DIR=/etc/initramfs-tools: the four files there, nothing else" \
	eval '[ "$(listing "$W/it" | tr "\n" " ")" = "755 /etc/initramfs-tools/hooks/memtrace 755 /etc/initramfs-tools/scripts/init-bottom/memtrace 755 /etc/initramfs-tools/scripts/init-top/memtrace 755 /etc/initramfs-tools/scripts/memtrace-initrd " ]'
make -s uninstall DESTDIR="$W/it" INITRAMFS_TOOLS_DIR=/etc/initramfs-tools > "$W/out" 2>&1
check "make uninstall INITRAMFS_TOOLS_DIR=...: none left" test -z "$(listing "$W/it")"

# without musl-gcc: make install says it leaves the boot binary out, and installs the rest
make -s install DESTDIR="$W/nomusl" STATIC_CC=/nonexistent/musl-gcc > "$W/out" 2>&1
rc=$?
check "no musl-gcc: make install exits 0, says the boot binary is left out, installs no libexec" \
	eval '[ $rc = 0 ] && grep -q "^memtrace: no /nonexistent/musl-gcc (Debian: musl-tools): memtrace-boot is not built nor installed; the initramfs images take memtrace$" "$W/out" &&
		[ -x "$W/nomusl/usr/local/bin/memtrace" ] && [ ! -e "$W/nomusl/usr/local/libexec" ]'
make -s uninstall DESTDIR="$W/nomusl" STATIC_CC=/nonexistent/musl-gcc > "$W/out" 2>&1
rc=$?
check "no musl-gcc: make uninstall exits 0, nothing left" eval '[ $rc = 0 ] && [ -z "$(listing "$W/nomusl")" ]'

# 3. the Makefile's packager conventions
check "CC ?= cc, PREFIX ?= /usr/local, DESTDIR used" \
	bash -c "grep -q '^CC ?= cc' Makefile && grep -q '^PREFIX ?= /usr/local' Makefile && grep -q 'DESTDIR' Makefile"
# V=1: a real build of one object in a copy of the sources
mkdir -p "$W/src" && cp -r ./*.c ./*.h Makefile lib kernel model input diff core output ui stream run \
	modes "$W/src/"
check "CFLAGS from the command line are appended (they reach the compiler last)" \
	bash -c "make -C '$W/src' -B V=1 build/lib/util.o CFLAGS=-DMEMTRACE_PROBE_FLAG | grep -q -- '-O2 .*-DMEMTRACE_PROBE_FLAG'"
make -C "$W/src" -B build/lib/util.o > "$W/quiet.out" 2>&1
make -C "$W/src" -B V=1 build/lib/util.o > "$W/v1.out" 2>&1
make -s -C "$W/src" -B build/lib/util.o build/lib/out.o > "$W/silent.out" 2>&1
make -s -j2 --warn-undefined-variables -C "$W/src" -B build/lib/util.o > "$W/silent2.out" 2>&1
check "V=1 prints full command lines, the default a short one" \
	eval 'grep -q -- "-c -o build/lib/util.o lib/util.c" "$W/v1.out" && ! grep -q -- "-c -o build/lib/util.o" "$W/quiet.out" &&
		grep -q "CC      build/lib/util.o" "$W/quiet.out"'
# issue 40, 6: make -s is silent, whatever other flags come with it
check "make -s prints no CC lines ($(grep -c 'CC ' "$W/silent.out" "$W/silent2.out" | tr '\n' ' '))" \
	eval '! grep -q "CC  \| -c -o " "$W/silent.out" "$W/silent2.out" && [ -s "$W/src/build/lib/out.o" ]'
check "one line says whether libtraceevent/libtracefs are used" \
	bash -c "make -n memtrace 2>&1 | grep -q '^memtrace: .*libtrace'"
check "NO_LIBTRACEFS=1 says libc only" \
	bash -c "make -n memtrace NO_LIBTRACEFS=1 2>&1 | grep -q '^memtrace: NO_LIBTRACEFS=1: libc only'"

# 4. make static: a static musl binary (for small initramfs images) that reports exactly
#    what the normal build reports on a real recording
if command -v musl-gcc > /dev/null; then
	make -s static > "$W/out" 2>&1
	check "make static builds memtrace-static" test $? = 0 -a -x memtrace-static
	check "memtrace-static is statically linked (no program interpreter)" \
		bash -c "! readelf -l memtrace-static | grep -q INTERP"
	check "memtrace-static --version matches" test "$(./memtrace-static --version)" = "$(./memtrace --version)"
	F=tests/fixtures/debian-6.1-boot
	./memtrace --replay "$F" -f json -n 0 2> /dev/null | sed 's/"self":{[^}]*},//' > "$W/dyn.json"
	./memtrace-static --replay "$F" -f json -n 0 2> /dev/null | sed 's/"self":{[^}]*},//' > "$W/st.json"
	check "memtrace-static replays the 6.1 boot recording to the same JSON report" \
		eval '[ -s "$W/dyn.json" ] && cmp -s "$W/dyn.json" "$W/st.json"'
	echo "    memtrace-static: $(stat -c %s memtrace-static) bytes"
else
	skip "make static: musl-gcc not installed (Debian package musl-tools)"
fi

echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
