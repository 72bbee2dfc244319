#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dracut module "memtrace": trace the page allocations of a whole initramfs boot
# and report which task and which kernel module needed how much memory at its peak.
#
# Opt-in: build with `dracut --add memtrace`, boot with rd.memdebug=4|5 or
# rd.memtrace=<level> (see memtrace-dracut.sh).  MEMTRACE_BIN (environment)
# names the binary to install; default: memtrace from PATH.

# The binary: MEMTRACE_BIN, else memtrace in dracut's PATH (/usr/sbin, /usr/bin,
# ...), else /usr/local, where `make install` puts it by default.
memtrace_bin() {
    local _p
    if [ -n "${MEMTRACE_BIN:-}" ]; then
        [ -x "$MEMTRACE_BIN" ] && echo "$MEMTRACE_BIN"
        return
    fi
    _p=$(find_binary memtrace) && [ -n "$_p" ] && echo "$_p" && return
    for _p in /usr/local/sbin/memtrace /usr/local/bin/memtrace; do
        [ -x "$dracutsysrootdir$_p" ] && echo "$_p" && return
    done
    return 1
}

check() {
    if ! memtrace_bin > /dev/null; then
        dinfo "memtrace: no executable memtrace (MEMTRACE_BIN, PATH or /usr/local)"
        return 1
    fi
    # never in an image unless asked for
    return 255
}

depends() {
    return 0
}

install() {
    local _bin
    _bin=$(memtrace_bin) || return 1

    inst_binary "$_bin" /usr/sbin/memtrace
    inst_script "$moddir/memtrace-dracut.sh" /usr/sbin/memtrace-dracut
    # the stop path removes a leftover instance itself (bash has no rmdir)
    inst_multiple cat rmdir umount sleep
    if dracut_module_included systemd; then
        # a unit ordered before udev and module loading, started from sysinit.target
        inst_simple "$moddir/memtrace.service" "$systemdsystemunitdir/memtrace.service"
        $SYSTEMCTL -q --root "$initdir" add-wants sysinit.target memtrace.service
    else
        # the first cmdline hook: before rd.driver.pre modprobes and udev
        inst_hook cmdline 00 "$moddir/memtrace-start.sh"
    fi
    # the last pre-pivot hook: stop, report, clean up before switch_root
    inst_hook pre-pivot 99 "$moddir/memtrace-report.sh"
}
