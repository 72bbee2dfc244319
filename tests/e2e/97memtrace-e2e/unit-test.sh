#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 40 (tests only; sourced; systemd flavour): with e2e.unit on the kernel
# command line, drive the running-system unit (systemd/memtrace.service.in, installed as
# memtrace-watch.service) the way its header says: start (with the --prometheus opt-in),
# USR2, stop. Results go to
# /run/initramfs/e2e-unit.txt and the final log to /run/initramfs/e2e-unit.log, which
# survive switch_root for the disk's init to print.
case " $(cat /proc/cmdline) " in
*" e2e.unit "*)
    {
        e2e_u=memtrace-watch.service
        e2e_log=/var/log/memtrace/memtrace.log
        # as on a running system (sys-kernel-tracing.mount); else memtrace mounts it in
        # the unit's own mount namespace, where this hook could not look
        grep -q ' tracefs ' /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
        # the Prometheus opt-in the unit's header describes: MEMTRACE_OPTS in a drop-in,
        # the file in node_exporter's textfile directory (writable for the unit if it exists)
        e2e_prom=/var/lib/prometheus/node-exporter/memtrace.prom
        mkdir -p /var/lib/prometheus/node-exporter "/run/systemd/system/$e2e_u.d"
        printf '[Service]\nEnvironment="MEMTRACE_OPTS=--prometheus %s --interval 1"\n' \
            "$e2e_prom" > "/run/systemd/system/$e2e_u.d/prometheus.conf"
        systemctl daemon-reload
        systemctl start "$e2e_u"
        echo "UNIT_START rc=$?"
        echo "UNIT_ACTIVE $(systemctl is-active "$e2e_u")"
        if [ -d /sys/kernel/tracing/instances/memtrace-service ]; then
            echo "UNIT_INSTANCE yes"
        else
            echo "UNIT_INSTANCE no"
        fi
        # 8 MB in this shell while traced
        e2e_x=$(printf '%8000000s' x)
        echo "UNIT_WORK ${#e2e_x}"
        unset e2e_x
        systemctl kill -s USR2 --kill-whom=main "$e2e_u"
        e2e_n=0
        while [ ! -s "$e2e_log" ] && [ "$e2e_n" -lt 50 ]; do sleep 0.1; e2e_n=$((e2e_n + 1)); done
        echo "UNIT_USR2 $(head -1 "$e2e_log" 2> /dev/null)"
        # an interval later the .prom file shows this shell's 8 MB
        sleep 1.5
        echo "UNIT_PROM_MODE $(stat -c %a "$e2e_prom" 2> /dev/null)"
        # (sed, not grep: the systemd-flavour image has no grep)
        sed -n "s/^memtrace_task_peak_bytes{pid=\"$$\",/UNIT_PROM_SHELL &/p" "$e2e_prom" 2> /dev/null
        echo "UNIT_PROM_EVENTS_BEFORE $(sed -n 's/^memtrace_events_total //p' "$e2e_prom" 2> /dev/null)"
        systemctl stop "$e2e_u"
        echo "UNIT_STOP rc=$?"
        echo "UNIT_RESULT $(systemctl show -p Result --value "$e2e_u")"
        echo "UNIT_MAINPID_AFTER $(systemctl show -p MainPID --value "$e2e_u")"
        if [ -d /sys/kernel/tracing/instances/memtrace-service ]; then
            echo "UNIT_INSTANCE_AFTER yes"
        else
            echo "UNIT_INSTANCE_AFTER no"
        fi
        echo "UNIT_LOGMODE $(stat -c %a "$e2e_log" 2> /dev/null)"
        echo "UNIT_PROM_EVENTS_AFTER $(sed -n 's/^memtrace_events_total //p' "$e2e_prom" 2> /dev/null)"
        e2e_n=0
        while read -r e2e_a e2e_b e2e_c; do
            [ "$e2e_a $e2e_b" = "# TYPE" ] && e2e_n=$((e2e_n + 1))
        done < "$e2e_prom"
        echo "UNIT_PROM_FAMILIES $e2e_n"
        cp "$e2e_log" /run/initramfs/e2e-unit.log 2> /dev/null
        journalctl -u "$e2e_u" --no-pager -o cat -n 30 2> /dev/null | sed 's/^/UNIT_JOURNAL /'
        unset e2e_u e2e_log e2e_n e2e_prom e2e_a e2e_b e2e_c
    } > /run/initramfs/e2e-unit.txt 2>&1
    ;;
esac
