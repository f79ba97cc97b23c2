/* A CG-like iteration for the speed benchmark against `smpirun -replay`
 * (testdata/simgrid/bench/record.sh, `tracesim bench --simgrid`): each
 * iteration exchanges a halo with both neighbours of a 1-D decomposition
 * and the ranks P/8 away (the off-diagonal band of a sparse matrix),
 * computes the matrix-vector product, and takes two dot products
 * with MPI_Allreduce of one double, with vector updates between them.
 * Computation is injected with smpi_execute_flops so that the trace does
 * not depend on the recording machine.
 *
 *   smpicc -O1 cg.c -o cg
 *   smpirun -np 64 -platform star.xml -hostfile hosts -trace-ti \
 *       --cfg=tracing/filename:cg.txt --cfg=smpi/simulate-computation:no \
 *       ./cg ITERATIONS
 *
 * Per rank and iteration: 4 irecv, 4 isend, 1 waitall, 3 compute and 2
 * allreduce actions (14); 1,120 iterations on 64 ranks are 1,003,520
 * actions.
 */
#include <mpi.h>
#include <stdlib.h>

static char sbuf[4][1 << 16], rbuf[4][1 << 16];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 10;
  int nb[4] = {(rank + 1) % size, (rank + size - 1) % size,
               (rank + size / 8) % size, (rank + size - size / 8) % size};
  /* Near neighbours share a long boundary, far ones a short one. */
  int len[4] = {24000, 24000, 4000, 4000};
  double dot = 1, sum;
  for (int it = 0; it < iters; it++) {
    MPI_Request req[8];
    for (int k = 0; k < 4; k++)
      MPI_Irecv(rbuf[k], len[k], MPI_BYTE, nb[k], k, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < 4; k++)
      MPI_Isend(sbuf[k], len[k], MPI_BYTE, nb[k], k ^ 1, MPI_COMM_WORLD, &req[4 + k]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    smpi_execute_flops(4e5 + 1e3 * (rank % 7)); /* q = A p */
    MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    smpi_execute_flops(1e5); /* x += a p, r -= a q */
    MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    smpi_execute_flops(5e4); /* p = r + b p */
  }
  MPI_Finalize();
  return 0;
}
