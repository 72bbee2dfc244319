#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# hostile.py HEXNAME READY SECONDS - a task with any name: rename itself (prctl
# PR_SET_NAME, the bytes of HEXNAME), touch 8 MiB, create READY, hold SECONDS.
# Exits 3 if the kernel refuses the name. For the suites' hostile-name tests.
import ctypes, sys, time
name = bytes.fromhex(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(15, ctypes.c_char_p(name), 0, 0, 0) != 0:
    sys.exit(3)
b = bytearray(8 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
