#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dracut module "memtrace": trace the page allocations of a whole initramfs boot
# and report which task and which kernel module needed how much memory at its peak.
#
# Opt-in: build with `dracut --add memtrace`, boot with rd.memdebug=4|5 or
# rd.memtrace=<level> (see memtrace-dracut.sh).  MEMTRACE_BIN (environment)
# names the binary to install; default: the boot binary, memtrace-boot.

# The full memtrace: in dracut's PATH (/usr/sbin, /usr/bin, ...), else /usr/local, where
# `make install` puts it by default.
memtrace_full() {
    local _p
    _p=$(find_binary memtrace) && [ -n "$_p" ] && echo "$_p" && return
    for _p in /usr/local/sbin/memtrace /usr/local/bin/memtrace; do
        [ -x "$dracutsysrootdir$_p" ] && echo "$_p" && return
    done
    return 1
}

# The binary: MEMTRACE_BIN, else the boot binary (static, only what an image runs: make
# install and the packages put it in /usr/libexec/memtrace, or PREFIX/libexec/memtrace
# beside PREFIX/bin/memtrace), else the full memtrace (said: larger, and its libraries
# come along). Either is /usr/sbin/memtrace in the image.
memtrace_bin() {
    local _p _full
    if [ -n "${MEMTRACE_BIN:-}" ]; then
        [ -x "$MEMTRACE_BIN" ] && echo "$MEMTRACE_BIN"
        return
    fi
    _full=$(memtrace_full)
    for _p in /usr/libexec/memtrace/memtrace-boot /usr/local/libexec/memtrace/memtrace-boot \
        ${_full:+"${_full%/*/*}/libexec/memtrace/memtrace-boot"}; do
        [ -x "$dracutsysrootdir$_p" ] && echo "$_p" && return
    done
    [ -n "$_full" ] || return 1
    echo "$_full"
}

check() {
    if ! memtrace_bin > /dev/null; then
        dinfo "memtrace: no executable memtrace (MEMTRACE_BIN, memtrace-boot, PATH or /usr/local)"
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
    case "$_bin" in
    */memtrace-boot) ;;
    *) [ -n "${MEMTRACE_BIN:-}" ] ||
        dinfo "memtrace: no boot binary (memtrace-boot in /usr/libexec/memtrace, built with musl-tools); the image takes the full $_bin" ;;
    esac

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
