#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# package.sh - the release artefacts, built and proven (make check-package, issue 26):
#   1. make dist twice, the second time from a copy of the tracked files with other mtimes,
#      umask and no commit: byte-identical tarballs; exactly the tracked files; the sha256
#   2. the .deb: dpkg-buildpackage -us -uc -b in the tarball unpacked under a temporary
#      directory (nothing lands in the repository); lintian: no error or warning, and each
#      override preceded by the comment that justifies it
#   3. the RPM: rpmbuild -ba of the tarball's memtrace.spec on the tarball; rpmlint
#      (tests/package.rpmlintrc's filters, each justified there)
#   4. the file lists of rpm -qlp, dpkg -c and make install DESTDIR=... PREFIX=/usr agree
#      (paths and modes; /lib is /usr/lib on a merged /usr; the RPM has no initramfs-tools
#      parts: Fedora boots with dracut); both packages carry README.md, NEWS and docs/
#   5. as root: apt-get install ./memtrace_*.deb, memtrace --version, man -w memtrace,
#      memtrace -- true giving a report, the dracut module where
#      dracut looks (dracut --list-modules), the unit where systemd looks and not enabled, the
#      initramfs-tools hook; then apt-get purge -y memtrace: every file of dpkg -L gone, no
#      state left in /etc, /var/lib/systemd or /var/lib/dpkg/info, /boot's images untouched
#      (no update-initramfs trigger: debian/rules says why). The package is purged in
#      the EXIT trap whatever happens. Skipped (with the reason) where a memtrace package or
#      a make install is already on the machine: installing and purging the package would
#      overwrite, then delete, the files they share (dracut module, initramfs-tools scripts).
# The RPM builds in the background during 2 and 5 (checked after 5). Prints "N passed, N
# failed, N skipped" last, and the seconds taken. Needs git, dpkg-dev, debhelper, lintian, rpm;
# rpmlint where available (.ci/run installs them all). Run from anywhere, as root for 5.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
# run from make: none of the caller's make state or install paths may leak in
unset MAKEFLAGS MFLAGS MAKELEVEL MEMTRACE_TEP_SAID PREFIX BINDIR MANDIR LOGDIR DRACUTMODDIR \
	SYSTEMDUNITDIR INITRAMFS_TOOLS_DIR DESTDIR SOURCE_DATE_EPOCH
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
T=$(mktemp -d /tmp/memtrace-package.XXXXXX) || exit 1
INST=memtrace-pkgtest
# shellcheck source=tests/lib.sh
. tests/lib.sh
INSTALLED='' RPMBUILD=''
cleanup() {
	[ -z "$RPMBUILD" ] || { kill "$RPMBUILD" 2>/dev/null; wait "$RPMBUILD" 2>/dev/null; }
	if [ -n "$INSTALLED" ] && dpkg-query -W -f '${db:Status-Status}' memtrace 2>/dev/null |
		grep -qv '^not-installed$'; then
		echo "# purging memtrace (the test's install)"
		apt-get purge -y -qq memtrace > /dev/null 2>&1 || dpkg --purge memtrace > /dev/null 2>&1
	fi
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
indent() { sed 's/^/    /'; }
t0=$SECONDS
step() { echo "# $* ($((SECONDS - t0)) s)"; }

VERSION=$(sed -nE 's/^VERSION[[:space:]]*:=[[:space:]]*([^[:space:]]+).*$/\1/p' Makefile | head -1)
D=memtrace-$VERSION
repo_state() { git status --porcelain --ignored=no 2>/dev/null; }
repo_before=$(repo_state)

missing=
for tool in git tar gzip sha256sum dpkg-buildpackage dh lintian rpmbuild; do
	command -v "$tool" > /dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	skip_live "not installed:$missing (Debian: git dpkg-dev debhelper lintian rpm)"
	summary
	[ "$fail" = 0 ]
	exit
fi

# ---------------------------------------------------------------- 1. make dist --
step "make dist, twice"
make -s dist > "$T/dist1.out" 2>&1
check "make dist exits 0" test $? = 0
[ -s "build/$D.tar.gz" ] || { bad "make dist made no build/$D.tar.gz"; indent < "$T/dist1.out"; summary; exit 1; }
cp "build/$D.tar.gz" "build/$D.tar.gz.sha256" "$T/"
check "the sha256 file matches the tarball" bash -c "cd '$T' && sha256sum --quiet -c '$D.tar.gz.sha256'"
epoch=$(git log -1 --format=%ct)
# the second run: the tracked files copied with fresh mtimes under another umask, into a
# new repository with the files added (no commit), the same SOURCE_DATE_EPOCH as HEAD's
mkdir "$T/tree2"
(umask 077 && git ls-files -z | xargs -0 cp --parents -P -t "$T/tree2" &&
	cd "$T/tree2" && git init -q && git add -A) > "$T/tree2.out" 2>&1
(cd "$T/tree2" && SOURCE_DATE_EPOCH=$epoch make -s dist) > "$T/dist2.out" 2>&1
check "make dist in a copy (other mtimes, umask 077, uncommitted) exits 0" test $? = 0
make -s dist > "$T/dist3.out" 2>&1
check "two runs of make dist give byte-identical tarballs" cmp -s "$T/$D.tar.gz" "build/$D.tar.gz"
check "a copy of the tree with other mtimes and umask gives the same bytes too" \
	cmp -s "$T/$D.tar.gz" "$T/tree2/build/$D.tar.gz"
tar tzf "$T/$D.tar.gz" | grep -v '/$' | sed "s|^$D/||" | sort > "$T/tar.files"
git ls-files | sort > "$T/git.files"
check "the tarball holds exactly the tracked files ($(wc -l < "$T/git.files")), under $D/" \
	diff "$T/git.files" "$T/tar.files"
diff "$T/git.files" "$T/tar.files" | head -20 | indent
tar tvzf "$T/$D.tar.gz" | awk '$2 != "0/0"' > "$T/owners"
check "every entry is owned by 0/0" test ! -s "$T/owners"
check "every entry has the commit's time" bash -c "[ \"\$(tar --full-time -tvzf '$T/$D.tar.gz' |
	awk '{ print \$4 \" \" \$5 }' | sort -u)\" = \"\$(date -u -d @$epoch '+%Y-%m-%d %H:%M:%S')\" ]"
check "NEWS has an entry for $VERSION" grep -qx "memtrace $VERSION" NEWS
# a version named differently anywhere stops make dist
mkdir "$T/badver"
cp -r "$T/tree2/." "$T/badver/"
sed -i "1s/($VERSION-/(9.9.9-/" "$T/badver/debian/changelog"
(cd "$T/badver" && SOURCE_DATE_EPOCH=$epoch make -s dist) > "$T/badver.out" 2>&1
check "make dist refuses a debian/changelog of another version" \
	bash -c "[ $? = 2 ] && grep -q 'not in: debian/changelog' '$T/badver.out'"
rm -rf "$T/badver" "$T/tree2"

# ---------------------------------------------------------------- 2. the .deb --
step "dpkg-buildpackage -us -uc -b"
mkdir "$T/deb"
tar xzf "$T/$D.tar.gz" -C "$T/deb"
# nocheck (option and profile: no Check needed): make check runs the unit tests; parallel: all CPUs
(cd "$T/deb/$D" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" DEB_BUILD_PROFILES=nocheck \
	dpkg-buildpackage -us -uc -b) > "$T/deb.log" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc -b exits 0 in the unpacked tarball" test $rc = 0
[ $rc = 0 ] || tail -30 "$T/deb.log" | indent
first() { [ -e "$1" ] && echo "$1"; }	# first FILES...: the first of a glob that matched
DEB=$(first "$T"/deb/memtrace_"$VERSION"-*_*.deb)
CHANGES=$(first "$T"/deb/memtrace_"$VERSION"-*_*.changes)
check "it made memtrace_${VERSION}-*.deb" test -n "$DEB"
if [ -n "$DEB" ]; then
	dep=$(dpkg-deb -f "$DEB" Depends)
	check "Depends is libc only ($dep)" bash -c "[[ '$dep' =~ ^libc6\ \(\>=\ [0-9.]+\)$ ]]"
	check "Suggests systemd, Enhances dracut and initramfs-tools" bash -c \
		"[ \"\$(dpkg-deb -f '$DEB' Suggests)\" = systemd ] &&
		 [ \"\$(dpkg-deb -f '$DEB' Enhances)\" = 'dracut, initramfs-tools' ]"
	dpkg-deb -e "$DEB" "$T/ctl"
	# (not enabled: the install below asks systemctl is-enabled)
	check "the maintainer scripts start no service (no deb-systemd-invoke start)" \
		bash -c "! cat '$T/ctl/'*inst '$T/ctl/'*rm | grep -qE 'deb-systemd-invoke (start|restart)'"
	check "no update-initramfs trigger (debian/rules: the boot images are the user's to rebuild)" \
		bash -c "! grep -qs update-initramfs '$T/ctl/triggers'"
fi

# ---------------------------------------------------------------- 3. the RPM, started --
step "rpmbuild -ba, in the background"
mkdir -p "$T/rpm/SOURCES"
cp "$T/$D.tar.gz" "$T/rpm/SOURCES/"
tar xzf "$T/$D.tar.gz" -C "$T/rpm" "$D/memtrace.spec"
# Debian's rpm has no systemd-rpm-macros (Fedora's %{_unitdir}, %systemd_post, ...);
# BuildRequires name Fedora's packages, which the rpm database here does not have (--nodeps)
macros=()
[ -n "$(rpm --eval '%{?_unitdir}')" ] || macros=(--load "$ROOT/tests/rpm-macros.systemd")
# in the background, beside lintian and the install (whose update-initramfs leaves a CPU idle)
rpmbuild -ba --nodeps --define "_topdir $T/rpm" "${macros[@]}" "$T/rpm/$D/memtrace.spec" \
	> "$T/rpm.log" 2>&1 &
RPMBUILD=$!
PIDS+=("$RPMBUILD")

step "lintian"
if [ -n "$CHANGES" ]; then
	lintian --fail-on error,warning --display-info "$CHANGES" > "$T/lintian.out" 2>&1
	rc=$?
	grep -v 'running with root privileges' "$T/lintian.out" | indent
	check "lintian: no error or warning (exit $rc)" test $rc = 0
fi
for f in debian/*lintian-overrides; do
	[ -e "$f" ] || continue
	# shellcheck disable=SC2016 # (awk's program)
	check "$f: each override follows a comment that justifies it" awk '
		/^#/ { c = 1; next } /^[[:space:]]*$/ { c = 0; next }
		{ if (!c) { print FILENAME ": " $0 " has no comment"; bad = 1 } }
		END { exit bad }' "$f"
done

# ---------------------------------------------------------------- 5. install, run, purge --
# what the package installs, as paths on this machine
[ -n "$DEB" ] && dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$T/deb.paths"
# state outside the package's files: maintainer scripts, systemd's enablement records
state() { find /etc /var/lib/systemd /var/lib/dpkg/info /run/systemd -name '*memtrace*' \
	2>/dev/null | sort; }
why_not=
if [ "$(id -u)" != 0 ]; then
	why_not=need-root
elif [ -z "$DEB" ]; then
	why_not="no .deb was built"
elif dpkg-query -W -f '${db:Status-Status}' memtrace 2>/dev/null | grep -qv '^not-installed$'; then
	why_not="a memtrace package is installed here ($(dpkg-query -W -f '${Version}' memtrace)): not touched"
else
	for f in /usr/local/bin/memtrace /usr/local/sbin/memtrace \
		/usr/local/lib/systemd/system/memtrace.service /usr/lib/dracut/modules.d/99memtrace \
		$(cat "$T/deb.paths"); do
		if [ -e "$f" ] || [ -L "$f" ]; then
			why_not="$f is here (a make install, or a link to a tree): installing and purging the package would overwrite, then delete, the files they share"
			break
		fi
	done
fi
if [ "$why_not" = need-root ]; then
	skip_live "install, run and purge the .deb: need root"
elif [ -n "$why_not" ]; then
	skip "install, run and purge the .deb: $why_not"
else
	step "apt-get install ./memtrace_*.deb"
	state > "$T/state.before"
	dpkg-deb -c "$DEB" | awk '$1 ~ /^d/ { sub(/^\./, "", $6); sub(/\/$/, "", $6); print $6 }' |
		while read -r d; do [ -d "$d" ] || echo "$d"; done > "$T/newdirs"
	# the boot images: installing and purging leave them alone (no update-initramfs)
	sha256sum /boot/initrd.img-* > "$T/initrd.before" 2>/dev/null
	INSTALLED=1
	(cd "$T/deb" && apt-get install -y -qq -o Dpkg::Use-Pty=0 ./"$(basename "$DEB")") \
		> "$T/apt.log" 2>&1
	rc=$?
	check "apt-get install ./$(basename "$DEB") exits 0" test $rc = 0
	[ $rc = 0 ] || tail -20 "$T/apt.log" | indent
	check "dpkg: memtrace $(dpkg-deb -f "$DEB" Version) installed" bash -c \
		"[ \"\$(dpkg-query -W -f '\${db:Status-Status} \${Version}' memtrace)\" = 'installed $(dpkg-deb -f "$DEB" Version)' ]"
	dpkg -L memtrace > "$T/dpkg-L"
	step "installed"
	check "memtrace in PATH is the package's /usr/bin/memtrace" \
		test "$(command -v memtrace)" = /usr/bin/memtrace
	v=$(memtrace --version 2>&1)
	check "memtrace --version: memtrace $VERSION ($v)" test "$v" = "memtrace $VERSION"
	if command -v man > /dev/null; then
		m=$(man -w memtrace 2>&1)
		check "man -w memtrace: /usr/share/man/man8/memtrace.8.gz ($m)" \
			test "$m" = /usr/share/man/man8/memtrace.8.gz
	else
		skip_live "man not installed (man-db): man -w memtrace not run"
	fi
	find_tracefs
	if can_trace "memtrace -- true from the package"; then
		step "memtrace -- true"
		memtrace --instance "$INST" -- true > "$T/trace.out" 2>&1
		rc=$?
		check "memtrace -- true exits 0 with a report (command, exit status, tree peak)" \
			bash -c "[ $rc = 0 ] && grep -qx 'command: true' '$T/trace.out' &&
				grep -qx 'exit status: 0' '$T/trace.out' && grep -q '^tree peak: [0-9]* pages' '$T/trace.out'"
		grep -E '^(command|exit status|tree peak|lost events):' "$T/trace.out" | indent
		check "no tracefs instance left behind" test ! -e "$TFS/instances/$INST"
	fi
	step "dracut, systemd, initramfs-tools"
	# dracut: the module in its own directory, and dracut lists it
	check "dracut module in /usr/lib/dracut/modules.d/99memtrace (module-setup.sh executable)" \
		test -x /usr/lib/dracut/modules.d/99memtrace/module-setup.sh
	if command -v dracut > /dev/null; then
		check "dracut --list-modules names memtrace" \
			bash -c "dracut --list-modules --no-kernel 2>/dev/null | grep -qx memtrace"
	else
		skip_live "dracut not installed (dracut-core): its module list not asked"
	fi
	# systemd: the unit in one of its unit directories, verified, not enabled
	u=$(grep -E '/systemd/system/memtrace\.service$' "$T/dpkg-L")
	check "the unit is in a directory systemd reads ($u)" bash -c \
		"systemd-analyze unit-paths 2>/dev/null | grep -qx '$(dirname "$u")'"
	systemd-analyze verify --man=no "$u" > "$T/verify.out" 2>&1
	check "systemd-analyze verify $u is clean" test ! -s "$T/verify.out"
	indent < "$T/verify.out"
	e=$(systemctl --root=/ is-enabled memtrace.service 2>&1)
	check "the unit is not enabled (systemctl is-enabled: $e)" test "$e" = disabled
	if [ -d /run/systemd/system ]; then
		a=$(systemctl is-active memtrace.service 2>&1)
		check "the unit is not running (systemctl is-active: $a)" test "$a" = inactive
	fi
	check "initramfs-tools hook in /usr/share/initramfs-tools/hooks" \
		test -x /usr/share/initramfs-tools/hooks/memtrace

	step "apt-get purge -y memtrace"
	apt-get purge -y -qq -o Dpkg::Use-Pty=0 memtrace > "$T/purge.log" 2>&1
	rc=$?
	check "apt-get purge -y memtrace exits 0" test $rc = 0
	[ $rc = 0 ] || tail -20 "$T/purge.log" | indent
	check "dpkg: memtrace is not installed" bash -c \
		"! dpkg-query -W -f '\${db:Status-Status}' memtrace 2>/dev/null | grep -qv '^not-installed$'"
	INSTALLED=
	left=$(while read -r f; do
		[ -d "$f" ] && continue
		[ -e "$f" ] || [ -L "$f" ] && echo "$f"
	done < "$T/dpkg-L")
	check "every file dpkg -L listed is gone ($(grep -c . "$T/dpkg-L") paths)" test -z "$left"
	[ -z "$left" ] || echo "$left" | indent
	left=$(while read -r d; do [ -d "$d" ] && echo "$d"; done < "$T/newdirs")
	check "the directories it brought are gone ($(grep -c . "$T/newdirs"))" test -z "$left"
	# (what kept one: seen, another tree's test linking its dracut module into ours)
	[ -z "$left" ] || echo "$left" | while read -r d; do ls -la "$d"; done | indent
	state > "$T/state.after"
	check "nothing of it in /etc, /var/lib/systemd, /var/lib/dpkg/info, /run/systemd" \
		diff "$T/state.before" "$T/state.after"
	diff "$T/state.before" "$T/state.after" | indent
	if [ -s "$T/initrd.before" ]; then
		check "the boot images in /boot are untouched ($(wc -l < "$T/initrd.before"))" \
			sha256sum --quiet -c "$T/initrd.before"
	fi
fi

# ---------------------------------------------------------------- 3. the RPM --
step "rpmbuild -ba (waiting for it)"
wait "$RPMBUILD"
rc=$? RPMBUILD=
check "rpmbuild -ba memtrace.spec exits 0 on the make dist tarball" test $rc = 0
[ $rc = 0 ] || tail -30 "$T/rpm.log" | indent
RPM=$(first "$T"/rpm/RPMS/*/memtrace-"$VERSION"-*.rpm)
SRPM=$(first "$T"/rpm/SRPMS/memtrace-"$VERSION"-*.src.rpm)
check "it made memtrace-$VERSION-*.rpm and the .src.rpm" test -n "$RPM" -a -n "$SRPM"
if ! command -v rpmlint > /dev/null; then
	skip_live "rpmlint not installed (Debian: rpmlint)"
elif [ -n "$RPM" ]; then
	rpmlint -r tests/package.rpmlintrc "$RPM" "$SRPM" "$T/rpm/$D/memtrace.spec" \
		> "$T/rpmlint.out" 2>&1
	rc=$?
	grep -E ': [EW]: |checked;' "$T/rpmlint.out" | indent
	check "rpmlint: 0 errors, 0 warnings past tests/package.rpmlintrc (exit $rc)" \
		bash -c "[ $rc = 0 ] && grep -q ' 0 errors, 0 warnings' '$T/rpmlint.out'"
fi

# ---------------------------------------------------------------- 4. file lists --
step "file lists"
# "MODE PATH" of the files and symlinks (no directories): merged /usr (/lib is /usr/lib),
# man pages without their compression, documentation and licenses compared apart, the
# .deb's lintian overrides (packaging metadata) left out
norm() {
	sed -E 's|^([^ ]+) \.?/|\1 /|; s| /lib/| /usr/lib/|; s|(/share/man/.*)\.(gz\|bz2\|xz)$|\1|' |
		grep -vE ' /usr/share/(doc|licenses)/| /usr/lib/\.build-id(/|$)| /usr/share/lintian/overrides/' |
		sort
}
make -s -C "$T/deb/$D" install DESTDIR="$T/mi" PREFIX=/usr > "$T/mi.out" 2>&1
check "make install DESTDIR=... PREFIX=/usr exits 0" test $? = 0
(cd "$T/mi" && find . \( -type f -o -type l \) -printf '%M %p\n') | norm > "$T/list.make"
[ -n "$DEB" ] && dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $1 " " $6 }' | norm > "$T/list.deb"
[ -n "$RPM" ] && rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$RPM" |
	awk '$1 !~ /^d/' | norm > "$T/list.rpm"
grep -v ' /usr/share/initramfs-tools/' "$T/list.make" > "$T/list.make-rpm"
check "make install installs files ($(wc -l < "$T/list.make"))" test -s "$T/list.make"
check "dpkg -c lists the same files with the same modes as make install" \
	diff "$T/list.make" "$T/list.deb"
diff "$T/list.make" "$T/list.deb" 2>&1 | indent
check "rpm -qlp lists the same as make install, less the initramfs-tools parts" \
	diff "$T/list.make-rpm" "$T/list.rpm"
diff "$T/list.make-rpm" "$T/list.rpm" 2>&1 | indent
check "the RPM leaves out only initramfs-tools parts ($(grep -c initramfs-tools "$T/list.make"))" \
	test "$(comm -23 "$T/list.make" "$T/list.rpm" | grep -vc ' /usr/share/initramfs-tools/')" = 0
# docs: README.md, NEWS, docs/*.md and the pictures they show (docs/*.svg) in both, each
# package's license file
(echo README.md; echo NEWS; ls docs/*.md docs/*.svg) | sort > "$T/docs.want"
[ -n "$DEB" ] && dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $6 }' |
	sed -nE 's|^\./usr/share/doc/memtrace/||p' | sed 's/\.gz$//' |
	grep -vxE 'changelog\.Debian|copyright' | sort > "$T/docs.deb"
[ -n "$RPM" ] && rpm -qlp "$RPM" | sed -nE 's|^/usr/share/doc/memtrace[^/]*/(.*[^/])$|\1|p' |
	grep -vx docs | sort > "$T/docs.rpm"
check "the .deb's docs are README.md, NEWS, docs/*.md and docs/*.svg (and copyright)" \
	bash -c "diff '$T/docs.want' '$T/docs.deb' && dpkg-deb -c '$DEB' | grep ' ./usr/share/doc/memtrace/copyright$' > /dev/null"
check "the RPM's docs are the same, and COPYING is its %license" \
	bash -c "diff '$T/docs.want' '$T/docs.rpm' && rpm -qlp '$RPM' | grep -E '^/usr/share/licenses/memtrace[^/]*/COPYING$' > /dev/null"

check "the repository is as before: no build artefact in it" test "$(repo_state)" = "$repo_before"
step "done"
echo "# $((SECONDS - t0)) s"
summary
[ "$fail" = 0 ]
