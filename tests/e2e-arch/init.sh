#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the e2e-arch initramfs (tests/e2e-arch.sh): busybox-static, the statically
# cross-built memtrace and workload, crc7.ko of the booted kernel. Runs memtrace the way
# a user would, collects every report and exit status in /tmp/out, sends /tmp/out back
# over the console as a base64 tar between marker lines, and powers off. The host checks
# the numbers; this script only runs things and writes down what happened.
#
#   (a) demo: memtrace --daemon -o LOG, workload 64 MiB, USR1 (report to stdout),
#       crc7 loaded and unloaded, TERM (final report to LOG)
#   (b) command mode: memtrace -o FILE -- workload 64
#   (c) --stacks in command mode with the workload
#   (d) --record DIR (daemon in the background), workload 64, TERM; then
#       memtrace --replay DIR in the guest: the reference for the host's replay
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing
# only emergencies on the console: kernel lines must not cut into the base64 block
echo 3 > /proc/sys/kernel/printk

P='@@e2earch@@'
say() { echo "$P $*"; }
O=/tmp/out
mkdir -p $O
T=/sys/kernel/tracing
now() { cut -d' ' -f1 /proc/uptime; }
say "init up at $(now) s"

# the kernel's log until now (boot) apart: the host checks what comes after
dmesg -c > $O/dmesg.boot 2> /dev/null
uname -r > $O/uname-r
uname -m > $O/uname-m
nproc > $O/nproc 2> /dev/null
cat /proc/cmdline > $O/cmdline
mount | grep -q ' /sys/kernel/tracing ' && echo yes > $O/tracefs-mounted

# wait until PID has exited (as PID 1 we may not reap a daemon: state Z counts as gone)
gone() {
	local i=0 st
	while [ $i -lt 600 ]; do
		[ -r /proc/$1/stat ] || return 0
		st=$(cut -d' ' -f3 /proc/$1/stat 2> /dev/null)
		[ "$st" = Z ] || [ -z "$st" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# a report written to FILE is complete: MODULES seen and the size steady for 0.5 s
report_done() {
	local i=0 s1 s2
	while [ $i -lt 300 ]; do
		if grep -q '^MODULES' "$1" 2> /dev/null; then
			s1=$(wc -c < "$1"); sleep 0.5; s2=$(wc -c < "$1")
			[ "$s1" = "$s2" ] && return 0
		else
			sleep 0.2
		fi
		i=$((i + 1))
	done
	return 1
}
# tracing is live in memtrace's instance: page allocations enabled, tracing on
live() {
	local i=0 f=$T/instances/memtrace
	while [ $i -lt 300 ]; do
		if [ "$(cat $f/events/kmem/mm_page_alloc/enable 2> /dev/null)" = 1 ] &&
			[ "$(cat $f/tracing_on 2> /dev/null)" = 1 ]; then
			sleep 1
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# ---------------------------------------------------------------- (a) demo
say "demo: start $(now)"
memtrace --daemon --pidfile /tmp/mt.pid -o $O/demo.log > $O/demo.usr1 2> $O/demo.err
echo $? > $O/demo.start.rc
MT=$(cat /tmp/mt.pid 2> /dev/null)
workload 64 500
echo $? > $O/demo.workload.rc
kill -USR1 "$MT"
echo $? > $O/demo.usr1.rc
report_done $O/demo.usr1 || say "demo: no USR1 report"
insmod /lib/modules/crc7.ko
echo $? > $O/demo.insmod.rc
grep '^crc7 ' /proc/modules > $O/demo.proc_modules
rmmod crc7
echo $? > $O/demo.rmmod.rc
sleep 0.5
kill -TERM "$MT"
echo $? > $O/demo.term.rc
gone "$MT" && echo yes > $O/demo.exited
# the instance is gone after TERM
[ -d $T/instances/memtrace ] && echo yes > $O/demo.instance_left
say "demo: done $(now)"

# ---------------------------------------------------------------- (b) command mode
say "command: start $(now)"
memtrace -o $O/cmd.txt -- workload 64 300 2> $O/cmd.err
echo $? > $O/cmd.rc
say "command: done $(now)"

# ---------------------------------------------------------------- (c) --stacks
say "stacks: start $(now)"
memtrace --stacks -o $O/stacks.txt -- workload 64 300 2> $O/stacks.err
echo $? > $O/stacks.rc
# the frames' names against the kernel's own symbol table; do_anonymous_page is a symbol
# of this kernel, or inlined (Debian's 6.1 builds: into __handle_mm_fault)
sed -n -E 's/^[ 0-9]*([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+.*/\1/p' $O/stacks.txt | sort -u > /tmp/names
[ -s /tmp/names ] && grep -w -F -f /tmp/names /proc/kallsyms > $O/kallsyms.frames
grep ' do_anonymous_page$' /proc/kallsyms > $O/kallsyms.anon
# the kernel's own stacks of the workload's pages (stacktrace trigger in an instance of
# ours, memtrace not running): the most frequent one, innermost first, with its count
I=$T/instances/e2eprobe
if mkdir $I; then
	echo 4096 > $I/buffer_size_kb
	E=$I/events/kmem/mm_page_alloc
	echo 'comm == "workload"' > $E/filter
	echo 'stacktrace if comm == "workload"' > $E/trigger
	echo 1 > $E/enable
	workload 8 0
	echo 0 > $E/enable
	awk '/<stack trace>/ { if (s != "") n[s]++; s = "-"; next }
		/^ => / && s != "" { s = s " " $2; next }
		{ if (s != "" && s != "-") n[s]++; s = "" }
		END { if (s != "" && s != "-") n[s]++
			for (k in n) if (n[k] > m) { m = n[k]; b = k }
			print m; print b }' $I/trace > $O/probe.stack
	echo '!stacktrace if comm == "workload"' > $E/trigger
	echo 0 > $E/filter
	rmdir $I || say "probe: rmdir $I failed"
fi
say "stacks: done $(now)"

# ---------------------------------------------------------------- (d) --record, replay
say "record: start $(now)"
memtrace --record /tmp/rec -o $O/rec.log > /dev/null 2> $O/rec.err &
MT=$!
live && echo yes > $O/rec.live
workload 64 500
echo $? > $O/rec.workload.rc
kill -TERM $MT
wait $MT
echo $? > $O/rec.rc
memtrace --replay /tmp/rec > $O/rec.replay 2> $O/rec.replay.err
echo $? > $O/rec.replay.rc
memtrace --replay /tmp/rec -f json > $O/rec.replay.json 2> /dev/null
say "record: done $(now)"

# ---------------------------------------------------------------- back to the host
dmesg > $O/dmesg
say "sending $(now)"
cp -a /tmp/rec $O/rec
echo "$P BEGIN OUT"
tar czf - -C /tmp out | base64
echo "$P END OUT"
say "all done $(now)"
sync
poweroff -f
