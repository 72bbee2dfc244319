#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memtrace-dracut - start and stop memtrace inside a dracut initramfs, and
# inside an initramfs-tools one (installed there as /scripts/memtrace-initrd,
# run by the init-top and init-bottom scripts of initramfs-tools/)
#
#   memtrace-dracut level     print the level asked for on the command line
#   memtrace-dracut enabled   exit 0 if memtrace should run (systemd ExecCondition)
#   memtrace-dracut start     start memtrace; returns once tracing is live
#   memtrace-dracut stop      final report, wait for memtrace to exit, show the
#                             report, remove anything memtrace left in tracefs
#   memtrace-dracut pre-pivot the pre-pivot hook: stop, unless a capture step
#                             follows (rd.memtrace.kdump, or /proc/vmcore: a kdump
#                             kernel): then a report so far, and tracing goes on
#   memtrace-dracut bottom    initramfs-tools' init-bottom: stop; but in a kdump
#                             kernel kdump-tools takes the dump after the switch
#                             to the root: memtrace (started with --switch-root)
#                             follows it there (SIGHUP), a report so far is shown,
#                             and the final one comes at shutdown
#
# Levels (kernel command line, also /etc/cmdline.d/*.conf in the image):
#   rd.memtrace=<level> wins when given:  0 = off, 5 = full report (every task,
#       the top stacks of each module and task), 1..4 or a bare rd.memtrace =
#       summary report (top 30 tasks and top 30 modules)
#   otherwise rd.memdebug=4 = summary, rd.memdebug=5 = full (dracut's levels;
#       at 4 and 5 dracut itself also dumps /proc/meminfo and slabinfo)
#   Both levels trace with kernel stacks (--stacks): a page counts for the module
#       whose code asked for it, also long after the module's load
#   rd.memtrace.kdump: a capture step runs after pre-pivot and ends the boot
#       (reboot, poweroff): the pre-pivot hook only takes a report so far; the
#       final one comes when memtrace gets its TERM at shutdown (systemd:
#       `systemctl reboot -f` signals every process; its summary goes to
#       /dev/kmsg, on the console) or from `memtrace-dracut stop` (shell
#       flavour: kdump.conf's `kdump_post /usr/sbin/memtrace-dracut stop`).
#       Implied in a kdump kernel (/proc/vmcore exists).
#   trace_event=module:module_load,module:module_free (a kernel parameter) makes
#       the kernel record the module loads done before memtrace starts (systemd
#       PID 1 loads some); memtrace then reads them with --boot-buffer
#   trace_event=kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=4M (kernel
#       parameters) record the page events of the boot before memtrace: what
#       the tasks held at its start, the initramfs unpacked, the boot's own
#       peak; memtrace reads them with --boot-buffer and then gives the buffer
#       back. A kdump kernel's crashkernel= answer needs them: without them it
#       is a lower bound, said at the start. The words may be one trace_event=
#       (comma-separated) or several; about 40 bytes an event (a capture's
#       boot: 36,000 events, 1.4 MB), and the report says what a buffer too
#       small lost.
#   initramfs-tools (no dracut-lib in the image): memtrace=<level> on the
#       kernel command line, the same levels as rd.memtrace (a bare memtrace
#       = 4); nothing else is read (no rd.memdebug, rd.memtrace.*)
#   rd.memtrace.record: also keep the raw ring-buffer pages and format files in
#       /run/initramfs/memtrace-record (for `memtrace --replay DIR`, bug reports)
#   rd.memtrace.svg=1 (initramfs-tools: memtrace.svg=1): also a picture of memory over
#       time, /run/initramfs/mem_debug_log.svg, written after the final report (--svg);
#       beside the log, so it asks nothing of the boot the log does not: a picture
#       that cannot be written is said on stderr, the report and the boot go on.
#       Not with the boot binary (memtrace-boot, what the images take by default),
#       which draws none: said, and the boot is traced without it; the picture of a
#       recording (rd.memtrace.record) is `memtrace --replay DIR --svg FILE` after it
# Files: /run/initramfs/mem_debug_log (report; /run survives switch_root),
#        /run/initramfs/mem_debug_log.json (always: the same final report whole, as
#        JSON, for `memtrace --diff` of two boots; one that cannot be written is said
#        on stderr, the report and the boot go on), /run/memtrace.pid

MEMTRACE=/usr/sbin/memtrace
MEMTRACE_LOG=/run/initramfs/mem_debug_log
MEMTRACE_PIDFILE=/run/memtrace.pid
MEMTRACE_INSTANCE=memtrace
MEMTRACE_RECORD=/run/initramfs/memtrace-record
MEMTRACE_MOUNTED=/run/memtrace.tracefs-was-unmounted
MEMTRACE_FOLLOW=/run/memtrace.switch-root

# dracut-lib (getarg) only where the command line is read: the stop path runs
# inside the traced boot and should cost as little as possible
mt_lib() {
    [ -n "${DRACUT_LIB_SOURCED:-}" ] || [ ! -r /lib/dracut-lib.sh ] || . /lib/dracut-lib.sh
}

mt_say() {
    # dracut's info() when dracut-lib is loaded (not texinfo's info program)
    case "$(type info 2> /dev/null)" in
        *function*) info "memtrace: $*" ;;
        *) echo "memtrace: $*" >&2 ;;
    esac
}

mt_level() {
    local v w p
    mt_lib
    if ! command -v getarg > /dev/null 2>&1; then
        # initramfs-tools: memtrace=<level> from the kernel's command line
        v=0
        for w in $(cat /proc/cmdline); do
            case "$w" in
                memtrace) v= ;;
                memtrace=*) v=${w#memtrace=} ;;
            esac
        done
        p=memtrace
    elif getarg rd.memtrace > /dev/null 2>&1; then
        v=$(getarg rd.memtrace)
        p=rd.memtrace
    else
        v=$(getargnum 0 0 5 rd.memdebug)
        if [ "$v" -ge 4 ]; then echo "$v"; else echo 0; fi
        return
    fi
    case "$v" in
        "") echo 4 ;;
        0) echo 0 ;;
        1 | 2 | 3 | 4) echo 4 ;;
        5) echo 5 ;;
        *)
            mt_say "ignoring $p=$v (use 0, 4 or 5); memtrace off"
            echo 0
            ;;
    esac
}

mt_running() {
    local pid st
    [ -r "$MEMTRACE_PIDFILE" ] || return 1
    read -r pid 2> /dev/null < "$MEMTRACE_PIDFILE" || return 1
    [ -n "$pid" ] || return 1
    # gone, a zombie (exited, not yet reaped), or the pid reused by another
    # program after a crash: not running
    read -r st 2> /dev/null < "/proc/$pid/stat" || return 1
    case "$st" in *" (memtrace) "*) ;; *) return 1 ;; esac
    st=${st##*) }
    case "$st" in Z* | X*) return 1 ;; esac
    echo "$pid"
    return 0
}

mt_start() {
    local level top w rec= boot= kmsg=--kmsg svg= pages= follow= buf=
    mt_lib
    level=$(mt_level)
    [ "$level" -ge 4 ] || return 0
    # initramfs-tools: the hook found no binary when the image was built
    if [ ! -x "$MEMTRACE" ]; then
        mt_say "$MEMTRACE is not in this initramfs; not tracing"
        return 0
    fi
    if mt_running > /dev/null; then
        mt_say "already running"
        return 0
    fi
    top="-n 30 --stack-top 0"
    [ "$level" -ge 5 ] && top="-n 0"
    mkdir -p /run/initramfs
    command -v getargbool > /dev/null 2>&1 && getargbool 0 rd.memtrace.record \
        && rec="--record $MEMTRACE_RECORD"
    command -v getargbool > /dev/null 2>&1 && getargbool 0 rd.memtrace.svg \
        && svg="--svg $MEMTRACE_LOG.svg"
    # the kernel's own parameter, so the kernel's command line, not getarg
    # (which also reads /etc/cmdline.d, which the kernel never sees)
    for w in $(cat /proc/cmdline); do
        case "$w" in
        trace_event=*module*) boot=--boot-buffer ;;
        trace_event=*kmem:mm_page_alloc*) boot=--boot-buffer pages=1 ;;
        # initramfs-tools: no getarg; its own name, as memtrace=<level>
        memtrace.svg=1) command -v getargbool > /dev/null 2>&1 || svg="--svg $MEMTRACE_LOG.svg" ;;
        esac
    done
    # the boot binary draws no picture (--svg would be a usage error: no tracing)
    if [ -n "$svg" ]; then
        case $("$MEMTRACE" --version 2> /dev/null) in
        *"(the boot build)"*)
            mt_say "no picture: this image has the boot binary (memtrace-boot), which draws" \
                "none; rd.memtrace.record=1 keeps the boot, memtrace --replay DIR --svg FILE" \
                "draws it (or build the image with MEMTRACE_BIN=/usr/bin/memtrace)"
            svg=
            ;;
        esac
    fi
    # before a capture step the summary at shutdown is all the console may get:
    # at warning level, so that it shows on a console booted with quiet
    mt_capture && kmsg=--kmsg=4
    # a kdump kernel: the crashkernel= answer wants the boot's page events
    mt_capture && [ -z "$pages" ] && mt_say "no trace_event=kmem:mm_page_alloc,kmem:mm_page_free" \
        "trace_buf_size=4M on this capture kernel's command line: the crashkernel= answer" \
        "will be a lower bound"
    # initramfs-tools in a kdump kernel: kdump-tools dumps after the switch to
    # the root (mounted at $rootmnt by then): init-bottom has memtrace follow it
    if ! command -v getargbool > /dev/null 2>&1 && mt_capture; then
        follow="--switch-root ${rootmnt:-/root}"
        : > "$MEMTRACE_FOLLOW"
    fi
    # if memtrace mounts tracefs and is then killed, the stop path unmounts it
    mt_tracefs > /dev/null || : > "$MEMTRACE_MOUNTED"
    # --daemon returns only when the events are enabled and the buffers open;
    # exec: then the waiting parent is this process, which memtrace does not
    # seed, so the launcher's shell pages do not show in the report.
    # memtrace says on stderr why it could not start; the boot goes on.
    # shellcheck disable=SC2086
    # -b 2048: the default under --stacks is 4096 KiB per CPU (allocation storms);
    # a boot's rates are low (0 lost in every e2e boot) and its memory is short.
    # A capture kernel: memtrace sizes its buffer from it (512 KiB over all CPUs),
    # what it takes is taken from the reservation it measures.
    buf="-b 2048"
    mt_capture && buf=
    # --json: every boot leaves a report --diff can compare, whatever the level
    exec "$MEMTRACE" --daemon --pidfile "$MEMTRACE_PIDFILE" $kmsg --stacks $buf $top \
        --instance "$MEMTRACE_INSTANCE" -o "$MEMTRACE_LOG" --json "$MEMTRACE_LOG.json" \
        $rec $boot $svg $follow
}

# wait up to $1 tenths of a second for memtrace to exit
mt_wait() {
    local n=0
    while [ "$n" -lt "$1" ] && mt_running > /dev/null; do
        sleep 0.1
        n=$((n + 1))
    done
    ! mt_running > /dev/null
}

mt_tracefs() {
    local dev mnt fstype rest
    while read -r dev mnt fstype rest; do
        [ "$fstype" = tracefs ] && echo "$mnt" && return 0
    done < /proc/mounts
    return 1
}

# never leave events on or our instance behind, even if memtrace crashed or
# was killed (at start or at stop); runs at every stop, memtrace started or not
mt_scrub() {
    local t
    # an instance lives in tracefs: not mounted (and never was) means none
    t=$(mt_tracefs) || { rm -f "$MEMTRACE_MOUNTED"; return 0; }
    if [ -d "$t/instances/$MEMTRACE_INSTANCE" ]; then
        mt_say "removing the tracefs instance memtrace left behind"
        echo 0 > "$t/instances/$MEMTRACE_INSTANCE/tracing_on" 2> /dev/null
        echo '!stacktrace' > "$t/instances/$MEMTRACE_INSTANCE/events/kmem/mm_page_alloc/trigger" \
            2> /dev/null
        echo 0 > "$t/instances/$MEMTRACE_INSTANCE/events/enable" 2> /dev/null
        rmdir "$t/instances/$MEMTRACE_INSTANCE" 2> /dev/null \
            || mt_say "cannot remove $t/instances/$MEMTRACE_INSTANCE"
    fi
    # memtrace mounted tracefs and could not unmount it (killed): we do
    if [ -e "$MEMTRACE_MOUNTED" ] && [ ! -d "$t/instances/$MEMTRACE_INSTANCE" ]; then
        umount "$t" 2> /dev/null && mt_say "unmounted the tracefs memtrace had mounted"
    fi
    rm -f "$MEMTRACE_MOUNTED"
    return 0
}

mt_stop() {
    local pid
    # both flavours: the pid from memtrace's pidfile (in systemd it is the
    # unit's main pid; a stop job could not send the second TERM below)
    if pid=$(mt_running); then
        kill -TERM "$pid" 2> /dev/null
        if ! mt_wait 150; then
            mt_say "pid $pid did not finish its report in 15 s; stopping it"
            # a second TERM makes memtrace clean up tracefs and exit at once
            kill -TERM "$pid" 2> /dev/null
            mt_wait 20 || kill -KILL "$pid" 2> /dev/null
            mt_wait 20
        fi
    fi
    rm -f "$MEMTRACE_PIDFILE"
    mt_scrub
    if [ -s "$MEMTRACE_LOG" ]; then
        if [ -w /dev/console ]; then
            cat "$MEMTRACE_LOG" > /dev/console 2> /dev/null
        else
            cat "$MEMTRACE_LOG"
        fi
    elif [ -n "${pid:-}" ]; then
        mt_say "no report in $MEMTRACE_LOG"
    fi
    return 0
}

# a capture step (kdump) follows the pre-pivot hook and ends the boot itself
mt_capture() {
    [ -e /proc/vmcore ] && return 0
    mt_lib
    command -v getargbool > /dev/null 2>&1 && getargbool 0 rd.memtrace.kdump
}

# mt_report_so_far PID LINE: USR2, up to 5 s for the report so far (the log
# file, replaced at once), then LINE and that report on the console; memtrace
# traces on
mt_report_so_far() {
    local n=0 first=
    kill -USR2 "$1" 2> /dev/null
    while [ "$n" -lt 50 ]; do
        read -r first 2> /dev/null < "$MEMTRACE_LOG"
        case "$first" in *"(trigger: SIGUSR2,"*) break ;; esac
        sleep 0.1
        n=$((n + 1))
    done
    {
        echo "$2"
        [ -s "$MEMTRACE_LOG" ] && cat "$MEMTRACE_LOG"
    } > /dev/console 2> /dev/null
}

mt_pre_pivot() {
    local pid
    if pid=$(mt_running) && mt_capture; then
        # the capture step is traced on
        mt_report_so_far "$pid" "memtrace: a capture step follows: tracing goes on; the final report comes at shutdown (the report so far follows)"
        return 0
    fi
    mt_stop
}

# initramfs-tools' init-bottom: memtrace follows the switch to the root when
# it was started to (a kdump kernel: --switch-root); else the stop
mt_bottom() {
    local pid
    if [ -e "$MEMTRACE_FOLLOW" ] && pid=$(mt_running); then
        # HUP: hold the root mounted at $rootmnt (handled before USR2, a lower
        # signal: once the report so far is there, memtrace holds it)
        kill -HUP "$pid" 2> /dev/null
        mt_report_so_far "$pid" "memtrace: the dump is taken after the switch to the root: memtrace follows it there and goes on tracing; the final report comes at shutdown (the report so far follows)"
        return 0
    fi
    mt_stop
}

case "${1:-}" in
    level) mt_level ;;
    enabled) [ "$(mt_level)" -ge 4 ] ;;
    start) mt_start ;;
    stop) mt_stop ;;
    pre-pivot) mt_pre_pivot ;;
    bottom) mt_bottom ;;
    *)
        echo "usage: ${0##*/} level|enabled|start|stop|pre-pivot|bottom" >&2
        false
        ;;
esac
