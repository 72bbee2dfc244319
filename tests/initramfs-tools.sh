#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# initramfs-tools.sh - the initramfs-tools hook, init-top and init-bottom scripts as
# `make install-initramfs-tools` installs them, run without a boot: in a chroot whose /proc,
# /sys and /dev are plain files (a fake /proc/cmdline, /proc/mounts with a tracefs, the
# stat file of a fake memtrace), with busybox as the initramfs' shell and tools and a stub
# memtrace that records its arguments and plays the daemon. Checks: nothing starts without
# memtrace= or with memtrace=0; each level's exact options (those of dracut's rd.memtrace);
# init-bottom's SIGTERM, report on the console and in /run/initramfs (the JSON one beside
# it, --json, kept), its bounded waits
# (15 s, a second TERM, KILL) and the instance a dead memtrace left removed; the hook
# copies the binary with copy_exec: the boot binary (memtrace-boot) where it is, else the
# full one, said; with the boot binary memtrace.svg=1 is said and left out (no picture).
# Root (chroot); no tracefs, no QEMU. KEEP=1 keeps the
# temporary directory (its name is in the first failing check's paths).
set -u
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/memtrace-itools.XXXXXX)
INST=memtrace-itools-unused
# shellcheck source=tests/lib.sh
. tests/lib.sh
trap "${KEEP:+:} rm -rf \"\$T\"" EXIT

if [ "$(id -u)" != 0 ]; then
	skip_live "not root: the scripts run in a chroot"
	summary
	exit 0
fi
BB=$(command -v busybox) DASH=$(command -v dash)
if [ -z "$BB" ] || readelf -l "$BB" 2> /dev/null | grep -q INTERP; then
	skip_live "no static busybox (Debian packages busybox or busybox-static): the initramfs' tools"
	summary
	exit 0
fi
if [ -z "$DASH" ]; then
	skip_live "no dash (Debian package dash): the initramfs' shell"
	summary
	exit 0
fi
unset MAKEFLAGS MFLAGS MAKELEVEL INITRAMFS_TOOLS_DIR DESTDIR
if ! make -s install-initramfs-tools DESTDIR="$T/inst" > "$T/make.out" 2>&1; then
	bad "make install-initramfs-tools: $(cat "$T/make.out")"
	summary
	exit 1
fi
IT=$T/inst/usr/share/initramfs-tools

if command -v shellcheck > /dev/null; then
	check "hook, init-top and init-bottom are shellcheck-clean" \
		shellcheck "$IT/hooks/memtrace" "$IT/scripts/init-top/memtrace" \
		"$IT/scripts/init-bottom/memtrace"
else
	skip_live "shellcheck not installed (Debian package shellcheck)"
fi

R=$T/root
# the stub memtrace (--version: the full or, with /stub.boot, the boot binary's line): its
# arguments, one a line, then --daemon: a fake daemon (stubd) with a
# /proc/PID/stat naming memtrace, the pidfile and the instance, as the real one has them
# when --daemon returns. /stub.mode: normal (TERM: report, instance removed, exit),
# ignore-term (TERM only logged), died (no daemon left; the instance and pidfile stay)
stub_memtrace() {
	cat > "$R/usr/sbin/memtrace" <<'EOF'
#!/bin/sh
# --version: the full binary's, or the boot binary's when /stub.boot exists
if [ "$1" = --version ]; then
	if [ -e /stub.boot ]; then echo "memtrace 0.1.0 (the boot build)"; else echo "memtrace 0.1.0"; fi
	exit 0
fi
printf '%s\n' "$@" > /argv
while [ $# -gt 0 ]; do
	case "$1" in --pidfile) pidfile=$2; shift ;; -o) log=$2; shift ;; --json) js=$2; shift ;; esac
	shift
done
mkdir /sys/kernel/tracing/instances/memtrace
if [ "$(cat /stub.mode)" = died ]; then
	echo $$ > "$pidfile"
	exit 0
fi
/bin/sh /stubd "$log" "$js" > /dev/null 2>&1 < /dev/null &
echo $! > "$pidfile"
n=0
while [ ! -e "/proc/$!/stat" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
exit 0
EOF
	cat > "$R/stubd" <<'EOF'
on_term() {
	echo "TERM $(date +%s)" >> /signals
	[ "$(cat /stub.mode)" = ignore-term ] && return
	echo "memtrace 0.1.0 report (trigger: SIGTERM, live)" > "$1"
	echo "virtio_blk fake module row" >> "$1"
	echo '{"memtrace_version":"0.1.0","trigger":"SIGTERM"}' > "$2"
	rmdir /sys/kernel/tracing/instances/memtrace
	rm -f "/proc/$$/stat"
	exit 0
}
trap 'on_term "$1" "$2"' TERM
# --switch-root: HUP (follow the switch) and USR2 (the report so far)
trap 'echo "HUP $(date +%s)" >> /signals' HUP
trap 'echo "USR2 $(date +%s)" >> /signals; echo "memtrace 0.1.0 report (trigger: SIGUSR2, live)" > "$1"' USR2
# the stat file last, as memtrace's signals are set up before --daemon returns: a HUP
# that came before the trap would end this shell
mkdir "/proc/$$"
echo "$$ (memtrace) S 1" > "/proc/$$/stat"
while :; do sleep 0.05; done
EOF
	chmod 755 "$R/usr/sbin/memtrace"
}

# the image's files, once: busybox, dash, the installed scripts
mkimage() {
	R=$T/image
	mkdir -p "$R"/{bin,usr/sbin,usr/bin,proc,run,dev,sys/kernel/tracing/instances}
	cp "$BB" "$R/bin/busybox"
	chroot "$R" /bin/busybox --install -s /bin
	# the shell: dash (Debian's /bin/sh, where mkinitramfs runs the hook; an image
	# without busybox has klibc's, a dash): busybox's sh runs its own applets before
	# PATH's, and the rmdir below must be found
	rm "$R/bin/sh"
	cp "$DASH" "$R/bin/sh"
	for l in $(ldd "$DASH" | grep -o '/[^ ]*'); do
		mkdir -p "$R${l%/*}" && cp -L "$l" "$R$l"
	done
	# tracefs: rmdir of an instance removes it with its (kernel's) files
	rm -f "$R/bin/rmdir"
	cat > "$R/bin/rmdir" <<'EOF'
#!/bin/sh
for d; do
	echo "$d" >> /rmdirs
	case "$d" in /sys/kernel/tracing/instances/?*) rm -rf "$d" ;; *) busybox rmdir "$d" || exit ;; esac
done
EOF
	chmod 755 "$R/bin/rmdir"
	cp -a "$IT/scripts" "$R/scripts"
	R=$T/root
}
mkimage
# a fresh root for each case: the image, plain files for /proc, /sys and /dev
mkroot() {
	rm -rf "$R"
	cp -a "$T/image" "$R"
	echo "tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0" > "$R/proc/mounts"
	: > "$R/dev/console"
	: > "$R/dev/null"
	echo normal > "$R/stub.mode"
	echo "console=ttyS0 root=/dev/vda rw $1" > "$R/proc/cmdline"
	stub_memtrace
}
# HUP at its default: a shell cannot trap a signal that was ignored when it started (make
# check under nohup, or a CI runner that ignores HUP), and the fake daemon traps it
inroot() { env -i --default-signal=HUP PATH=/usr/bin:/sbin:/bin chroot "$R" "$@"; }
# the daemon's real pid, and whether it still runs (on the host)
stub_pid() { cat "$R/run/memtrace.pid" 2> /dev/null; }
# (gone: no such process, or a zombie its new parent has not reaped yet)
stub_gone() {
	local p st
	p=$(stub_pid)
	[ -n "$p" ] && read -r st 2> /dev/null < "/proc/$p/stat" || return 0
	st=${st##*) }
	case "$st" in Z* | X*) return 0 ;; esac
	return 1
}
reap() { stub_gone || kill -KILL "$(stub_pid)"; }

# 1. nothing starts without memtrace=, with memtrace=0, or with dracut's rd.memtrace=4
for line in "quiet" "memtrace=0" "rd.memtrace=4 rd.memdebug=5" "memtrace=4 memtrace=0"; do
	mkroot "$line"
	inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
	rc=$?
	check "[$line] init-top exits 0, memtrace not run, no pidfile" \
		eval '[ $rc = 0 ] && [ ! -e "$R/argv" ] && [ ! -e "$R/run/memtrace.pid" ]'
	inroot /scripts/init-bottom/memtrace > "$T/bottom.out" 2>&1
	rc=$?
	check "[$line] init-bottom exits 0, prints nothing, writes no report" \
		eval '[ $rc = 0 ] && [ ! -s "$R/dev/console" ] && [ ! -s "$T/bottom.out" ] &&
			[ ! -e "$R/run/initramfs/mem_debug_log" ]'
done

# 2. the options of each level: rd.memtrace's (dracut/99memtrace/memtrace-dracut.sh)
summary_argv="--daemon --pidfile /run/memtrace.pid --kmsg --stacks -b 2048 -n 30 --stack-top 0 --instance memtrace -o /run/initramfs/mem_debug_log --json /run/initramfs/mem_debug_log.json"
full_argv="--daemon --pidfile /run/memtrace.pid --kmsg --stacks -b 2048 -n 0 --instance memtrace -o /run/initramfs/mem_debug_log --json /run/initramfs/mem_debug_log.json"
argv() { tr '\n' ' ' < "$R/argv" | sed 's/ $//'; }
for c in "memtrace=1:$summary_argv" "memtrace=4:$summary_argv" "memtrace:$summary_argv" \
	"memtrace=5:$full_argv" "memtrace=0 memtrace=5:$full_argv" \
	"memtrace=4 trace_event=module:module_load:$summary_argv --boot-buffer" \
	"memtrace=4 memtrace.svg=1:$summary_argv --svg /run/initramfs/mem_debug_log.svg" \
	"memtrace=4 memtrace.svg=0:$summary_argv"; do
	line=${c%%:--*} want=--${c#*:--}
	mkroot "$line"
	inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
	rc=$?
	check "[$line] init-top exits 0 once the daemon runs; memtrace $want" \
		eval '[ $rc = 0 ] && [ "$(argv)" = "$want" ] && ! stub_gone'
	reap
done
# the boot binary (what the hook takes by default) draws no picture: no --svg, said
mkroot "memtrace=4 memtrace.svg=1"
: > "$R/stub.boot"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
rc=$?
check "[memtrace=4 memtrace.svg=1, the boot binary] started without --svg, and said why" \
	eval '[ $rc = 0 ] && [ "$(argv)" = "$summary_argv" ] && ! stub_gone &&
		grep -q "no picture: this image has the boot binary (memtrace-boot)" "$T/top.out"'
reap
mkroot "memtrace=5"
: > "$R/stub.boot"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
check "[memtrace=5, the boot binary] its options as the full binary's, nothing said" \
	eval '[ "$(argv)" = "$full_argv" ] && ! grep -q "picture" "$T/top.out"'
reap
mkroot "memtrace=4"
: > "$R/proc/vmcore"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
# a kdump kernel: no -b (memtrace sizes its buffer from the capture kernel, issue 39)
capture_argv=${summary_argv/--kmsg/--kmsg=4}
capture_argv=${capture_argv/ -b 2048/}
check "[memtrace=4, a kdump kernel] the console summary at warning level (--kmsg=4), no -b (memtrace sizes its buffer there), --switch-root /root (kdump-tools dumps after the switch)" \
	eval '[ "$(argv)" = "$capture_argv --switch-root /root" ]'
inroot /scripts/init-bottom/memtrace > "$T/bottom.out" 2>&1
rc=$?
check "[memtrace=4, a kdump kernel] init-bottom: HUP then USR2 (follow the switch; the report so far), no TERM, memtrace goes on" \
	eval '[ $rc = 0 ] && [ "$(cut -d" " -f1 "$R/signals" | tr "\n" " ")" = "HUP USR2 " ] && ! stub_gone'
check "[memtrace=4, a kdump kernel] init-bottom: says memtrace follows the switch, shows the report so far" \
	eval 'grep -q "follows it there and goes on tracing" "$R/dev/console" &&
		grep -q "trigger: SIGUSR2" "$R/dev/console"'
reap
mkroot "memtrace=4 rootmnt-test"
: > "$R/proc/vmcore"
env -i --default-signal=HUP PATH=/usr/bin:/sbin:/bin rootmnt=/newroot chroot "$R" /scripts/init-top/memtrace > "$T/top.out" 2>&1
check "[memtrace=4, a kdump kernel, rootmnt=/newroot] --switch-root follows initramfs-tools' rootmnt" \
	eval '[ "$(argv)" = "$capture_argv --switch-root /newroot" ]'
reap
for line in memtrace=6 memtrace=x; do
	mkroot "$line"
	inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
	rc=$?
	check "[$line] not started, said why" \
		eval '[ $rc = 0 ] && [ ! -e "$R/argv" ] && grep -q "ignoring $line (use 0, 4 or 5)" "$T/top.out"'
done
mkroot "memtrace=4"
rm "$R/usr/sbin/memtrace"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
rc=$?
check "[memtrace=4, no binary in the image] init-top exits 0 and says so" \
	eval '[ $rc = 0 ] && grep -q "/usr/sbin/memtrace is not in this initramfs" "$T/top.out"'

# 3. init-bottom: TERM, the report on the console and kept, the instance gone
mkroot "memtrace=4"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
inroot /scripts/init-bottom/memtrace > "$T/bottom.out" 2>&1
rc=$?
check "init-bottom: exit 0, one TERM, memtrace gone, its pidfile removed" \
	eval '[ $rc = 0 ] && [ "$(grep -c TERM "$R/signals")" = 1 ] && stub_gone &&
		[ ! -e "$R/run/memtrace.pid" ]'
check "init-bottom: the report on the console, and kept in /run/initramfs/mem_debug_log" \
	eval 'grep -q "^memtrace 0.1.0 report (trigger: SIGTERM" "$R/dev/console" &&
		cmp -s "$R/dev/console" "$R/run/initramfs/mem_debug_log"'
check "init-bottom: the JSON report kept beside it, /run/initramfs/mem_debug_log.json" \
	grep -q '"trigger":"SIGTERM"' "$R/run/initramfs/mem_debug_log.json"
check "init-bottom: no instance left, none removed by hand (memtrace did it)" \
	eval '[ -z "$(ls "$R/sys/kernel/tracing/instances")" ] &&
		! grep -v "^/sys/kernel/tracing/instances/memtrace$" "$R/rmdirs" 2> /dev/null | grep -q . &&
		[ "$(grep -c . "$R/rmdirs")" = 1 ]'

# 4. a memtrace that does not finish: TERM, 15 s, TERM, 2 s, KILL; then the instance it
#    left is removed
mkroot "memtrace=4"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
echo ignore-term > "$R/stub.mode"
t0=$(date +%s.%N)
inroot /scripts/init-bottom/memtrace > "$T/bottom.out" 2>&1
t1=$(date +%s.%N)
mapfile -t terms < <(sed -n 's/^TERM //p' "$R/signals")
# (15 s of sleep 0.1 between the TERMs, plus the polls' own time, which is more when
# the machine is loaded)
check "hung memtrace: two TERMs, the second 15-45 s after the first" \
	eval '[ ${#terms[@]} = 2 ] && [ $((terms[1] - terms[0])) -ge 14 ] && [ $((terms[1] - terms[0])) -le 45 ]'
check "hung memtrace: killed; init-bottom returned in under 60 s ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" \
	eval 'stub_gone && awk -v a="$t0" -v b="$t1" "BEGIN { exit !(b - a < 60) }"'
check "hung memtrace: init-bottom said so and removed its instance" \
	eval 'grep -q "did not finish its report in 15 s" "$T/bottom.out" &&
		grep -q "removing the tracefs instance memtrace left behind" "$T/bottom.out" &&
		[ -z "$(ls "$R/sys/kernel/tracing/instances")" ]'
reap

# 5. memtrace died before init-bottom (crash, OOM kill): no signal, the instance removed
mkroot "memtrace=4"
echo died > "$R/stub.mode"
inroot /scripts/init-top/memtrace > "$T/top.out" 2>&1
inroot /scripts/init-bottom/memtrace > "$T/bottom.out" 2>&1
rc=$?
check "dead memtrace: init-bottom exits 0, sends nothing, removes the instance and pidfile" \
	eval '[ $rc = 0 ] && [ ! -e "$R/signals" ] && [ -z "$(ls "$R/sys/kernel/tracing/instances")" ] &&
		[ ! -e "$R/run/memtrace.pid" ]'

# 6. the hook, with a stub hook-functions whose copy_exec records its arguments
mkroot quiet
mkdir -p "$R/usr/share/initramfs-tools/hooks" "$R/opt"
cp "$IT/hooks/memtrace" "$R/usr/share/initramfs-tools/hooks/memtrace"
echo 'copy_exec() { echo "copy_exec $*" >> /copies; }' > "$R/usr/share/initramfs-tools/hook-functions"
out=$(inroot /usr/share/initramfs-tools/hooks/memtrace prereqs 2>&1)
check "hook: prereqs prints an empty line, copies nothing" \
	eval '[ -z "$out" ] && [ ! -e "$R/copies" ]'
cp "$R/usr/sbin/memtrace" "$R/opt/memtrace"
env -i PATH=/usr/bin:/sbin:/bin MEMTRACE_BIN=/opt/memtrace chroot "$R" \
	/usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
rc=$?
check "hook: MEMTRACE_BIN copied with copy_exec to /usr/sbin/memtrace, and rm, rmdir" \
	eval '[ $rc = 0 ] && [ "$(head -1 "$R/copies")" = "copy_exec /opt/memtrace /usr/sbin/memtrace" ] &&
		grep -qx "copy_exec /bin/rm /bin/rm" "$R/copies" && grep -qx "copy_exec /bin/rmdir /bin/rmdir" "$R/copies"'
rm -f "$R/copies"
inroot /usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
check "hook: no boot binary: the full memtrace from /usr/sbin, and it says so" \
	eval 'grep -qx "copy_exec /usr/sbin/memtrace /usr/sbin/memtrace" "$R/copies" &&
		grep -q "^I: memtrace: no boot binary (memtrace-boot in /usr/libexec/memtrace, built with musl-tools); the image takes the full /usr/sbin/memtrace" "$T/hook.out"'
# the boot binary where make install and the packages put it: taken, silently
mkdir -p "$R/usr/libexec/memtrace"
cp "$R/usr/sbin/memtrace" "$R/usr/libexec/memtrace/memtrace-boot"
rm -f "$R/copies"
inroot /usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
rc=$?
check "hook: the boot binary, /usr/libexec/memtrace/memtrace-boot, taken over the full one, nothing said" \
	eval '[ $rc = 0 ] && [ "$(head -1 "$R/copies")" = "copy_exec /usr/libexec/memtrace/memtrace-boot /usr/sbin/memtrace" ] &&
		[ ! -s "$T/hook.out" ]'
rm -f "$R/copies"
env -i PATH=/usr/bin:/sbin:/bin MEMTRACE_BIN=/opt/memtrace chroot "$R" \
	/usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
check "hook: MEMTRACE_BIN wins over the boot binary" \
	test "$(head -1 "$R/copies")" = "copy_exec /opt/memtrace /usr/sbin/memtrace"
# a PREFIX of its own: PREFIX/libexec/memtrace/memtrace-boot beside PREFIX/bin/memtrace
rm -rf "$R/copies" "$R/usr/libexec/memtrace"
mkdir -p "$R/opt/mt/bin" "$R/opt/mt/libexec/memtrace"
mv "$R/usr/sbin/memtrace" "$R/opt/mt/bin/memtrace"
cp "$R/opt/mt/bin/memtrace" "$R/opt/mt/libexec/memtrace/memtrace-boot"
env -i PATH=/opt/mt/bin:/usr/bin:/sbin:/bin chroot "$R" \
	/usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
check "hook: PREFIX/bin/memtrace in PATH: PREFIX/libexec/memtrace/memtrace-boot taken" \
	test "$(head -1 "$R/copies")" = "copy_exec /opt/mt/libexec/memtrace/memtrace-boot /usr/sbin/memtrace"
rm -rf "$R/copies" "$R/opt/mt"
inroot /usr/share/initramfs-tools/hooks/memtrace > "$T/hook.out" 2>&1
rc=$?
check "hook: no memtrace anywhere: a warning, exit 0 (the image builds), nothing copied" \
	eval '[ $rc = 0 ] && grep -q "^W: memtrace: no executable memtrace" "$T/hook.out" && [ ! -e "$R/copies" ]'

summary
[ "$fail" = 0 ]
