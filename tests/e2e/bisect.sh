# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# bisect.sh - sourced by tests/e2e.sh when E2E_BISECT=KINDS (tests/kdump-bisect.sh, make
# kdump-bisect), in place of its boots: for each capture KIND (dracut, itools, heavy; see
# kdump_boot), the smallest crashkernel= in which the capture is healthy in every one of
# E2E_BISECT_BOOTS boots (default 2): M (issue 38). Sizes are tried in steps of 4 MiB from a
# start (E2E_BISECT_START_<KIND>, MiB): down while healthy, up while not, the step doubling,
# then halved between the last unhealthy and the first healthy size; M is a size healthy in
# all its boots whose size - 4 MiB was not. Every boot is classified by kdump_health and
# kept (console, health line) in E2E_BISECT_KEEP (default build/kdump-bisect/boots); the
# figures, a table per capture, go to E2E_BISECT_OUT (default build/kdump-bisect/figures.md).
# E2E_BISECT_SIZES_<KIND>="S1 S2 ..." (MiB): only boot those sizes (no bisection).
# Assumes what the bisection needs: a capture healthy at one size stays so at a larger one.

BISECT_BOOTS=${E2E_BISECT_BOOTS:-2}
BISECT_KEEP=${E2E_BISECT_KEEP:-$REPO/build/kdump-bisect/boots}
BISECT_OUT=${E2E_BISECT_OUT:-$REPO/build/kdump-bisect/figures.md}
BISECT_MIN=64 BISECT_MAX=384	# MiB: the first kernel has 512 MiB
# where to start (MiB): the dracut capture's M as measured before; the others near their
# expected M (itools: a smaller initramfs; heavy: 32 MiB more to hold)
declare -A BISECT_START=([dracut]=120 [itools]=112 [heavy]=152)
# size -> "healthy boots/boots", per kind (the current kind's)
declare -A BISECT_SEEN=()

# bisect_row NAME SIZE SECS: one table row of a boot
bisect_row() {
	local n=$1 peak cls kills fl vm mt mf av
	read -r cls kills _ fl _ vm mt mf av <<< "$KD_HEALTH"
	# the capture's system peak: memtrace's final report (dracut: the stop's, itools: init-bottom's)
	peak=$(sed -n '/report (trigger: SIGTERM/,$p' "$W/$1.capture" |
		sed -n 's/^\(@@e2e@@ LOG \)\{0,1\}system peak: \([0-9]*\) pages.*/\2/p' | head -1)
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$2" "${n##*-}" "$cls" \
		"${kills#*=}" "${fl#*=}" "${vm#*=}" "${mt#*=}" "${mf#*=}" "${av#*=}" "${peak:--}" "$3"
}

# bisect_size KIND SIZE: BISECT_BOOTS boots of KIND at SIZE MiB, side by side (E2E_JOBS);
# 0 when every one was healthy
bisect_size() {
	local kind=$1 size=$2 i n good=0 secs
	for i in $(seq 1 "$BISECT_BOOTS"); do
		PASS=launch PROBE=1 KEEP_DISK=1 AFTER_KILL=$KD_AFTER_KILL \
			kdump_boot "bisect-$kind-${size}M-$i" "${size}M" "$kind"
	done
	for i in $(seq 1 "$BISECT_BOOTS"); do
		n=bisect-$kind-${size}M-$i
		PASS=collect PROBE=1 kdump_boot "$n" "${size}M" "$kind" || continue
		kdump_health "$n"
		read -r _ secs < "$W/$n.rc"
		[ "$KD_CLASS" = healthy ] && good=$((good + 1))
		echo "bisect: $kind ${size}M boot $i: $KD_HEALTH ($secs s)"
		bisect_row "$n" "${size}M" "$secs" >> "$W/bisect-$kind.rows"
		cp "$W/$n.console" "$BISECT_KEEP/$n.console"
		echo "$KD_HEALTH" > "$BISECT_KEEP/$n.health"
		rm -f "$W/$n.disk" "$W/$n.vmcore" "$W/$n.dmesg"
	done
	BISECT_SEEN[$size]="$good/$BISECT_BOOTS"
	echo "bisect: $kind ${size}M: healthy in $good of $BISECT_BOOTS"
	[ "$good" = "$BISECT_BOOTS" ]
}

# bisect_kind KIND: M of that capture into BISECT_M (empty when not found in range)
bisect_kind() {
	local kind=$1 s lo='' hi='' step=4 x var
	BISECT_M=
	BISECT_SEEN=()
	var=E2E_BISECT_SIZES_$(echo "$kind" | tr a-z A-Z)
	if [ -n "${!var:-}" ]; then
		for x in ${!var}; do bisect_size "$kind" "$x"; done
		return
	fi
	var=E2E_BISECT_START_$(echo "$kind" | tr a-z A-Z)
	s=${!var:-${BISECT_START[$kind]}}
	if bisect_size "$kind" "$s"; then
		hi=$s
		x=$((s - step))
		while [ "$x" -ge "$BISECT_MIN" ]; do
			if bisect_size "$kind" "$x"; then hi=$x; step=$((step * 2)); x=$((hi - step))
			else lo=$x; break; fi
		done
	else
		lo=$s
		x=$((s + step))
		while [ "$x" -le "$BISECT_MAX" ]; do
			if bisect_size "$kind" "$x"; then hi=$x; break
			else lo=$x; step=$((step * 2)); x=$((lo + step)); fi
		done
	fi
	[ -n "$hi" ] && [ -n "$lo" ] || return
	while [ $((hi - lo)) -gt 4 ]; do
		x=$((lo + (hi - lo) / 8 * 4))
		if bisect_size "$kind" "$x"; then hi=$x; else lo=$x; fi
	done
	BISECT_M=$hi
}

# bisect_kernel_size: kdumpctl's "Kernel image size": the sum of the LOAD segments' memory
# sizes of the vmlinux in the bzImage (its payload: setup_sects, payload_offset and
# payload_length of the boot header; lz4, gzip, xz or zstd), in bytes
bisect_kernel_size() {
	local setup off len magic dec
	setup=$(od -A n -t u1 -j $((0x1f1)) -N 1 "$VMLINUZ" | tr -d ' ')
	[ "$setup" != 0 ] || setup=4
	off=$(od -A n -t u4 -j $((0x248)) -N 4 "$VMLINUZ" | tr -d ' ')
	len=$(od -A n -t u4 -j $((0x24c)) -N 4 "$VMLINUZ" | tr -d ' ')
	off=$(((setup + 1) * 512 + off))
	magic=$(od -A n -t x1 -j "$off" -N 4 "$VMLINUZ" | tr -d ' ')
	case $magic in
	02214c18) dec='lz4 -dc' ;; 1f8b08*) dec='gzip -dc' ;; fd377a58) dec='xz -dc' ;;
	28b52ffd) dec='zstd -dc' ;; *) echo 0; return ;;
	esac
	tail -c +$((off + 1)) "$VMLINUZ" | head -c "$len" | $dec 2> /dev/null > "$W/vmlinux"
	local sz=0 x
	for x in $(readelf -l -W "$W/vmlinux" 2> /dev/null | awk '/^  LOAD/ { print $6 }'); do
		sz=$((sz + x))
	done
	echo "$sz"
}

# bisect_estimate KIND: kdumpctl estimate's figure for the capture (kdump-utils' kdumpctl,
# do_estimate): the kernel's size (bisect_kernel_size) + the modules the capture loads
# (their size in its report) + 3 x the initrd + 16 MiB, in MiB
bisect_estimate() {
	local img ksz isz msz
	case $1 in dracut) img=$W/initrd-capture.img ;; itools) img=$W/initrd-itools.img ;;
		heavy) img=$W/initrd-heavy.img ;; esac
	ksz=$(bisect_kernel_size)
	isz=$(stat -c %s "$img")
	# (a table row has the header's fields; the table ends at the first other line)
	msz=$(cat "$BISECT_KEEP"/bisect-"$1"-*.console 2> /dev/null | tr -d '\r' |
		awk '/^(@@e2e@@ LOG )?MODULES: / { f = 1; s = 0; next } f && /^(@@e2e@@ LOG )?NAME / {
			for (i = 1; i <= NF; i++) if ($i == "STATIC_KIB") c = i; n = NF; next }
			f && c && NF == n && $c ~ /^[0-9]+$/ { s += $c; next }
			f { f = 0; if (s > m) m = s } END { if (f && s > m) m = s; print m + 0 }')
	awk -v k="$ksz" -v i="$isz" -v m="$msz" 'BEGIN {
		printf "%.1f MiB (kernel %.1f + modules %.1f + 3 x initrd %.1f + 16)\n",
			k / 1048576 + m / 1024 + 3 * i / 1048576 + 16, k / 1048576, m / 1024, i / 1048576 }'
}

bisect_all() {
	local kind t0 out=$W/bisect.md
	mkdir -p "$BISECT_KEEP" "$(dirname "$BISECT_OUT")"
	{
		echo "# crashkernel= bisection ($(date -u +%Y-%m-%d), tests/kdump-bisect.sh)"
		echo
		echo "Kernel $KVER under QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}') (TCG), 512 MiB, capture with nr_cpus=1;"
		echo "$BISECT_BOOTS boots per size, steps of 4 MiB. A capture is healthy when its vmcore is written"
		echo "and valid (kdump-compressed, the crashed kernel's log in it) and nothing was OOM-killed,"
		echo "no udev or dracut timeout or other failure, no page allocation failure (tests/e2e/"
		echo "kdump-health.sh). Columns: kills = OOM kills; fails = udev/dracut timeout and failure lines;"
		echo "vmcore bytes;"
		echo "MemTotal/MemFree (kB) before memtrace; avail = the capture kernel's \"Memory: A/B\" (kB);"
		echo "peak = memtrace's system peak (pages); s = the boot's wall-clock seconds."
	} > "$out"
	for kind in ${E2E_BISECT//,/ }; do
		case $kind in dracut | heavy) [ -n "$KDUMP_OK" ] ;; itools) [ -n "$KDUMP_OK" ] && [ -n "$ITOOLS_OK" ] ;;
			*) bad "E2E_BISECT: unknown capture $kind (dracut, itools, heavy)"; continue ;; esac ||
			{ bad "bisect $kind: its images were not built"; continue; }
		t0=$SECONDS
		: > "$W/bisect-$kind.rows"
		bisect_kind "$kind"
		{
			echo
			echo "## $kind"
			echo
			if [ -n "$BISECT_M" ]; then
				echo "M = ${BISECT_M} MiB (healthy in ${BISECT_SEEN[$BISECT_M]} boots; $((BISECT_M - 4)) MiB: ${BISECT_SEEN[$((BISECT_M - 4))]:-not booted}); $((SECONDS - t0)) s."
			else
				echo "M not found (sizes booted: ${!BISECT_SEEN[*]}); $((SECONDS - t0)) s."
			fi
			echo "kdumpctl estimate's formula: $(bisect_estimate "$kind"); Debian's kdump-tools: crashkernel=384M-:128M (128 MiB here)."
			echo
			echo "| crashkernel | boot | class | kills | fails | vmcore | MemTotal | MemFree | avail | peak | s |"
			echo "|---|---|---|---|---|---|---|---|---|---|---|"
			sort -t'|' -k2,2n -k3,3n "$W/bisect-$kind.rows"
		} >> "$out"
		if [ -n "$BISECT_M" ]; then
			ok "bisect $kind: M = ${BISECT_M}M ($((SECONDS - t0)) s)"
		else
			note "bisect $kind: no M ($((SECONDS - t0)) s)"
		fi
	done
	cp "$out" "$BISECT_OUT"
	echo "figures: $BISECT_OUT"
	sed 's/^/      /' "$out"
}
