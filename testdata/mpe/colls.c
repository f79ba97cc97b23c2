/* colls: MPI_Allreduce, MPI_Alltoall and MPI_Bcast calls between bursts of
 * computation of unequal length, for tracesim's tests of collectives that
 * MPE logs as states. Recorded with MPE2's -mpilog wrappers (see build.sh). */
#include <mpi.h>
#include <stdlib.h>

#include "spin.h"

int main(int argc, char **argv)
{
    int rank, size, i, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *v = malloc(1024 * sizeof *v), *w = malloc(1024 * sizeof *w);
    int *a = malloc(256 * size * sizeof *a), *b = malloc(256 * size * sizeof *b);
    for (k = 0; k < 1024; k++)
        v[k] = rank + k;
    for (k = 0; k < 256 * size; k++)
        a[k] = rank;
    for (i = 0; i < 10; i++) {
        spin(200 + 100 * ((rank + i) % size));
        MPI_Allreduce(v, w, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        spin(100);
        MPI_Alltoall(a, 256, MPI_INT, b, 256, MPI_INT, MPI_COMM_WORLD);
        spin(50 * rank);
        MPI_Bcast(w, 1024, MPI_DOUBLE, i % size, MPI_COMM_WORLD);
    }
    free(v); free(w); free(a); free(b);
    MPI_Finalize();
    return 0;
}
