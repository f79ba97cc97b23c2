/* allreduce: ten MPI_Allreduce calls between bursts of computation of
 * unequal length. Recorded with MPE's clock synchronisation off
 * (MPE_CLOCKS_SYNC=no) and linked with skewclock.c, whose clocks run
 * apart by up to 32 ms: the trace has the skew the issue describes,
 * ranks that leave an allreduce before another enters it (see build.sh). */
#include <mpi.h>

#include "spin.h"

int main(int argc, char **argv)
{
    int rank, size, i;
    double v[64], w[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 64; i++)
        v[i] = rank;
    for (i = 0; i < 10; i++) {
        spin(300 + 200 * ((rank + i) % size));
        MPI_Allreduce(v, w, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
