#!/bin/sh
# Builds the benchmark programs of this directory with smpicc and records
# their SimGrid time-independent traces (≥ 1 M actions each) with
# `smpirun -trace-ti` into a cache directory, with the platforms and
# hostfiles `tracesim bench --simgrid` replays them on. The traces are
# tens of megabytes: they are recorded, not committed.
#
#   testdata/simgrid/bench/record.sh [DIR]   # DIR: ${XDG_CACHE_HOME:-~/.cache}/tracesim/simgrid-bench
#
# Writes, in DIR:
#   cg64/cg.txt (+ cg.txt_files/)            CG-like, 64 ranks, 1,120 iterations (1,003,520 actions)
#   stencil256/stencil.txt (+ _files/)       2-D stencil, 256 ranks, 400 iterations (1,034,240 actions)
#   star64.xml star256.xml                   star clusters (1 Gflop/s, 125 MBps, 5 µs, SPLITDUPLEX)
#   torus64.xml torus256.xml                 TORUS 4,4,4 and 16,16 clusters of the same hosts and links
#   hosts64 hosts256                         one rank per host
# A trace already recorded is kept (delete its directory to record again).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/tracesim/simgrid-bench}
mkdir -p "$dir"
cd "$dir"

cluster() { # NAME HOSTS TOPOLOGY [TOPO_PARAMETERS]
	{
		echo "<?xml version='1.0'?>"
		echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
		echo '<platform version="4.1">'
		if [ "$3" = STAR ]; then
			echo "  <cluster id=\"c\" prefix=\"host\" suffix=\"\" radical=\"0-$(($2 - 1))\" speed=\"1Gf\" bw=\"125MBps\" lat=\"5us\" sharing_policy=\"SPLITDUPLEX\"/>"
		else
			echo "  <cluster id=\"c\" prefix=\"host\" suffix=\"\" radical=\"0-$(($2 - 1))\" speed=\"1Gf\" bw=\"125MBps\" lat=\"5us\" sharing_policy=\"SPLITDUPLEX\" topology=\"$3\" topo_parameters=\"$4\"/>"
		fi
		echo '</platform>'
	} >"$1.xml"
}
cluster star64 64 STAR
cluster star256 256 STAR
cluster torus64 64 TORUS 4,4,4
cluster torus256 256 TORUS 16,16
for n in 64 256; do
	i=0
	: >"hosts$n"
	while [ $i -lt $n ]; do
		echo "host$i" >>"hosts$n"
		i=$((i + 1))
	done
done

record() { # PROGRAM RANKS ITERATIONS
	out="$1$2"
	if [ -f "$out/$1.txt" ]; then
		echo "$out/$1.txt: already recorded"
		return
	fi
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	smpicc -O1 "$here/$1.c" -o "$out.tmp/$1"
	(cd "$out.tmp" && smpirun -np "$2" -platform ../star$2.xml -hostfile ../hosts$2 -trace-ti \
		--cfg=tracing/filename:$1.txt --cfg=smpi/simulate-computation:no \
		--log=root.thres:warning ./$1 "$3")
	rm -f "$out.tmp/$1"
	mv "$out.tmp" "$out"
	echo "$out/$1.txt: $(cat "$out"/$1.txt_files/* | wc -l) actions"
}
record cg 64 1120
record stencil 256 400
