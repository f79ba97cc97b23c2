#!/bin/sh
# Rebuilds the MPE2 recordings of this directory: builds MPE2 2.4.6 from
# source against Debian's MPICH 4, links the programs with its logging
# wrappers (-llmpe -lmpe, what `mpecc -mpilog` does) and runs them on 4
# processes. The test suite never runs this script; it reads the .clog2
# files checked in next to it.
#
# Needs: apt-get install -y mpich libmpich-dev autoconf make gcc python3
# and MPE2's sources: MPE2DIR names a directory holding them (src/mpe2 of
# an MPICH2 1.x tarball, or of the MVAPICH2 repository at commit
# c07d3500473de96cbde3ddd35f92694cb6874007, which ships MPE 2.4.6).
# MPE2's sources are not part of this repository.
#
# Usage: MPE2DIR=/path/to/mpe2 ./build.sh [WORKDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${MPE2DIR:?set MPE2DIR to a directory holding MPE2 2.4.6 sources}"
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cp -R "$MPE2DIR" "$work/mpe2"
cd "$work/mpe2"

# MPE 2.4.6 predates MPI-3: its wrappers spell const as MPICH2_CONST, and
# wrap calls MPI-3 removed (MPI_Address, MPI_Type_struct, ...) or declared
# with const (MPI_Lookup_name, ...). Define the one, drop the others.
python3 "$here/drop_funcs.py" src/wrappers/src/log_mpi_core.c MPI_Address MPI_Type_hindexed \
    MPI_Type_struct MPI_Type_hvector MPI_Type_extent MPI_Type_lb MPI_Type_ub \
    MPI_Errhandler_create MPI_Errhandler_get MPI_Errhandler_set MPI_Attr_delete \
    MPI_Attr_get MPI_Attr_put MPI_Keyval_create MPI_Keyval_free
python3 "$here/drop_funcs.py" src/wrappers/src/trace_mpi_core.c MPI_Address MPI_Type_hindexed \
    MPI_Type_struct MPI_Type_hvector MPI_Type_extent MPI_Type_lb MPI_Type_ub \
    MPI_Errhandler_create MPI_Errhandler_get MPI_Errhandler_set MPI_Attr_delete \
    MPI_Attr_get MPI_Attr_put MPI_Keyval_create MPI_Keyval_free
python3 "$here/drop_funcs.py" src/wrappers/src/log_mpi_spawn.c MPI_Lookup_name MPI_Publish_name \
    MPI_Unpublish_name
[ -x configure ] || ./autogen.sh
./configure --prefix="$work/inst" CC=mpicc F77=false --disable-f77 --disable-graphics \
    --disable-slog2 --disable-rlog MPI_CC=mpicc
# The logging library and tools build as they are; the wrappers need the
# const definition.
make -k >/dev/null 2>&1 || true
sed -i 's/^MPICC_FLAGS *= *\(.*\)$/MPICC_FLAGS = \1 -DMPICH2_CONST=const -w/' src/wrappers/src/Makefile
make -C src/wrappers
lib="$work/mpe2/lib"
inc="$work/mpe2/include"
test -f "$lib/liblmpe.a"

cd "$work"
build() { # program, extra sources...
    p=$1
    shift
    mpicc -O1 -o "$p" "$here/$p.c" "$@" -I"$inc" -L"$lib" -llmpe -lmpe -lpthread -lm
}
build colls
build masterworker
build allreduce "$here/skewclock.c"
build irecv
# colls and masterworker with MPE's clock synchronisation (its default):
# the merged file holds the TIMESHIFT records, their shifts applied.
MPE_LOGFILE_PREFIX=colls mpiexec -n 4 ./colls
MPE_LOGFILE_PREFIX=masterworker mpiexec -n 4 ./masterworker
# allreduce on skewed clocks: no synchronisation, skewclock's offsets.
# Whether a rank leaves an allreduce before another enters depends on how
# long the calls take on the recording machine: on a loaded one they may
# outlast the skew.
MPE_CLOCKS_SYNC=no MPE_LOGFILE_PREFIX=allreduce mpiexec -n 4 ./allreduce
# irecv: how MPE logs MPI_Irecv (the receive event at the wait).
MPE_LOGFILE_PREFIX=irecv mpiexec -n 4 ./irecv
cp colls.clog2 masterworker.clog2 allreduce.clog2 irecv.clog2 "$here/"
echo "wrote $here/colls.clog2 $here/masterworker.clog2 $here/allreduce.clog2 $here/irecv.clog2"
