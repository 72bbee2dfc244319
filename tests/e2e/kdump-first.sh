#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0-only
# /init of the first kernel of tests/e2e.sh's kdump boots (a busybox initramfs):
# load the capture kernel with Debian's kexec -p, then crash the kernel with sysrq c.
# The capture kernel boots in the crashkernel= reservation. e2e.kdump=NAME on the
# command line picks the capture initrd, /boot/NAME.img, and its command line,
# /NAME.cmdline: capture (default: a dracut image) or itools (an mkinitramfs image).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
P=@@e2e@@
K=capture NOBB= HOG=
for a in $(cat /proc/cmdline); do
	case $a in
	e2e.kdump=*) K=${a#e2e.kdump=} ;;
	e2e.kdump.nobootbuf) NOBB=1 ;;	# the capture without the boot buffer's words
	e2e.kdump.oomhog) HOG=1 ;;	# the capture runs out of memory (hold.sh)
	esac
done
APPEND=$(cat "/$K.cmdline")${HOG:+ e2e.oomhog}
if [ -n "$NOBB" ]; then
	A=
	for a in $APPEND; do
		case $a in trace_event=* | trace_buf_size=*) ;; *) A="$A $a" ;; esac
	done
	APPEND=${A# }
fi
echo "$P FIRST crashkernel $(cat /sys/kernel/kexec_crash_size) bytes, capture initrd $K"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu
/sbin/kexec -p /boot/vmlinuz --initrd="/boot/$K.img" --append="$APPEND"
rc=$?
echo "$P FIRST kexec -p rc=$rc, kexec_crash_loaded=$(cat /sys/kernel/kexec_crash_loaded)"
if [ "$rc" = 0 ]; then
	echo "$P FIRST crash at $(cut -d' ' -f1 /proc/uptime) s"
	echo c > /proc/sysrq-trigger
fi
echo "$P FIRST no crash"
poweroff -f
