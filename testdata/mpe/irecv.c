/* irecv: non-blocking receives, to show how MPE's -mpilog wrappers log
 * MPI_Irecv: where the receive event falls relative to the MPI_Irecv
 * state that posts it and to the MPI_Wait / MPI_Waitall that completes it.
 * Three iterations on 4 processes, each of
 *   (a) a NAS-CG-like pair exchange with rank ^ 1: MPI_Irecv of 100000
 *       bytes, MPI_Send of 100000 bytes, MPI_Wait (safe whatever the
 *       protocol, the receive being posted before the send);
 *   (b) a halo with both ring neighbours: two MPI_Irecv of 20000 bytes
 *       (tag 7), two MPI_Isend, MPI_Waitall of the four requests.
 * Rank 0 computes between posting its receives and waiting for them, so
 * that on it the posting and the completion are clearly apart in time
 * (see build.sh). */
#include <mpi.h>
#include <stdlib.h>

#include "spin.h"

#define PAIR_BYTES 100000
#define HALO_BYTES 20000

int main(int argc, char **argv)
{
    int rank, size, i, partner, left, right;
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner = rank ^ 1;
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    char *pin = malloc(PAIR_BYTES), *pout = malloc(PAIR_BYTES);
    char *lin = malloc(HALO_BYTES), *rin = malloc(HALO_BYTES);
    char *lout = malloc(HALO_BYTES), *rout = malloc(HALO_BYTES);
    for (i = 0; i < PAIR_BYTES; i++)
        pout[i] = (char)(rank + i);
    for (i = 0; i < HALO_BYTES; i++)
        lout[i] = rout[i] = (char)rank;
    for (i = 0; i < 3; i++) {
        spin(200 + 100 * rank);
        /* (a) pair exchange */
        MPI_Irecv(pin, PAIR_BYTES, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Send(pout, PAIR_BYTES, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
        if (rank == 0)
            spin(2000);
        MPI_Wait(&req[0], &st[0]);
        spin(100);
        /* (b) halo with both ring neighbours */
        MPI_Irecv(lin, HALO_BYTES, MPI_BYTE, left, 7, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(rin, HALO_BYTES, MPI_BYTE, right, 7, MPI_COMM_WORLD, &req[1]);
        if (rank == 0)
            spin(2000);
        MPI_Isend(lout, HALO_BYTES, MPI_BYTE, left, 7, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(rout, HALO_BYTES, MPI_BYTE, right, 7, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, st);
    }
    free(pin); free(pout); free(lin); free(rin); free(lout); free(rout);
    MPI_Finalize();
    return 0;
}
