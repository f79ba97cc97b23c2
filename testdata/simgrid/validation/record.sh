#!/bin/sh
# Records the time-independent traces of validation.c with SimGrid's SMPI
# (Debian libsimgrid-dev, SimGrid 3.32), as ../README.md describes for
# patterns.c: 8 ranks on the star platform of ../platform.xml, computation
# only from smpi_execute_flops. Each PROGRAM.txt is an index of
# PROGRAM.txt_files/rank-N.txt (SimGrid's TIMESTAMP_rank-K.txt renamed to
# rank-(K-1).txt so that a re-recording gives the same file names).
#
#   cd testdata/simgrid/validation && ./record.sh
set -eu
cd "$(dirname "$0")"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
smpicc -O1 validation.c -o "$build/validation"
for p in halo alltoall masterworker cg pipeline incast; do
	rm -rf "$p.txt" "$p.txt_files"
	smpirun -np 8 -platform ../platform.xml -hostfile ../hostfile -trace-ti \
		--cfg=tracing/filename:"$p.txt" --cfg=smpi/simulate-computation:no \
		"$build/validation" "$p" >"$build/$p.log" 2>&1 || { cat "$build/$p.log"; exit 1; }
	: >"$p.txt"
	for k in 1 2 3 4 5 6 7 8; do
		mv "$p.txt_files/"*"_rank-$k.txt" "$p.txt_files/rank-$((k - 1)).txt"
		echo "$p.txt_files/rank-$((k - 1)).txt" >>"$p.txt"
	done
	# SimGrid 3.32's tracer writes a blocking MPI_ANY_SOURCE receive as
	# source -333 (MPI_UNDEFINED), which its own replayer never matches
	# (smpirun -replay reports a deadlock); -555 (MPI_ANY_SOURCE) is what
	# it replays as a wildcard.
	sed -i 's/^\([0-9]*\) recv -333 /\1 recv -555 /' "$p.txt_files/"rank-*.txt
done
