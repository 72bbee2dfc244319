#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# keep.py CONTROL BUDGET_BYTES OUTDIR - the corpus kept in the tree, chosen from a merge
# (libFuzzer -merge=1 -merge_control_file=CONTROL, its first directory the seeds) to fit
# BUDGET_BYTES: the inputs that reach code edges the seeds do not first, then those that add
# features, each time the most new per byte first; copied into OUTDIR (made, empty).
#
# libFuzzer runs the merge's inputs smallest first and writes for each only what it saw
# first (its "FT" features and "COV" edges no earlier input had): an input's figures here
# are what it adds in that order, so the kept set has at least the edges and features
# counted. Prints "kept N of M inputs, B of T bytes, edges E of EA, features F of FA".
import os
import shutil
import sys


def parse(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    n, first = int(lines[0]), int(lines[1])
    files = lines[2:2 + n]
    ft, cov = {}, {}
    for line in lines[2 + n:]:
        w = line.split()
        if len(w) < 2:
            continue
        i = int(w[1])
        if w[0] == "FT":
            ft[i] = len(w) - 2
        elif w[0] == "COV":
            cov[i] = len(w) - 2
    return files, first, ft, cov


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: keep.py CONTROL BUDGET_BYTES OUTDIR")
    files, first, ft, cov = parse(sys.argv[1])
    size = {}
    budget, out = int(sys.argv[2]), sys.argv[3]
    cand = [i for i in range(first, len(files)) if ft.get(i) or cov.get(i)]
    for i in cand:  # the bytes kept: the file's own (libFuzzer ran it cut at max_len)
        size[i] = os.path.getsize(files[i])
    kept, taken, used = [], set(), 0
    # edges first (most per byte), then features (most per byte); ties: the smaller
    for key in (cov, ft):
        rest = [i for i in cand if key.get(i) and i not in taken]
        rest.sort(key=lambda i: (-key[i] / max(size[i], 1), size[i]))
        for i in rest:
            if used + size[i] <= budget:
                kept.append(i)
                taken.add(i)
                used += size[i]
    os.makedirs(out)
    for i in kept:
        shutil.copyfile(files[i], os.path.join(out, os.path.basename(files[i])))
    print("kept %d of %d inputs, %d of %d bytes, edges %d of %d, features %d of %d" % (
        len(kept), len(cand), used, sum(size[i] for i in cand),
        sum(cov.get(i, 0) for i in kept), sum(cov.get(i, 0) for i in cand),
        sum(ft.get(i, 0) for i in kept), sum(ft.get(i, 0) for i in cand)))


if __name__ == "__main__":
    main()
