#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 50 (tests only; sourced): SIGKILL memtrace if e2e.killmt is given
case " $(cat /proc/cmdline) " in
*" e2e.killmt "*)
    if read -r e2e_pid < /run/memtrace.pid; then
        kill -KILL "$e2e_pid" && echo "@@e2e-hook@@ killed memtrace pid $e2e_pid" > /dev/console
        # wait until it is gone (not only signalled)
        e2e_n=0
        while [ -e "/proc/$e2e_pid/stat" ] && [ "$e2e_n" -lt 50 ]; do
            case "$(cat "/proc/$e2e_pid/stat" 2> /dev/null)" in *") Z "*) break ;; esac
            sleep 0.1
            e2e_n=$((e2e_n + 1))
        done
    fi
    unset e2e_pid e2e_n
    ;;
esac
