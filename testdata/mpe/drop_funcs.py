#!/usr/bin/env python3
"""Remove the definitions of the named functions from a C file of MPE2's
wrappers: the MPI-1 calls that MPI-3 removed (MPI_Address, ...) and
calls whose prototypes gained const, which MPICH 4 declares differently."""
import re, sys
path, names = sys.argv[1], sys.argv[2:]
src = open(path).read().split("\n")
out, skip = [], False
for line in src:
    if not skip and any(re.match(r"^int\s+%s\s*\(" % n, line) for n in names):
        skip = True
        continue
    if skip:
        if line.startswith("}"):
            skip = False
        continue
    out.append(line)
open(path, "w").write("\n".join(out))
