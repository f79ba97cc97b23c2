/* A 2-D five-point stencil for the speed benchmark against `smpirun
 * -replay` (testdata/simgrid/bench/record.sh, `tracesim bench --simgrid`):
 * the ranks form a periodic √P × √P grid; each iteration exchanges a halo
 * row or column with the four neighbours, then computes; every tenth
 * iteration the residual is summed with MPI_Allreduce of one double.
 * Computation is injected with smpi_execute_flops so that the trace does
 * not depend on the recording machine.
 *
 *   smpicc -O1 stencil.c -o stencil
 *   smpirun -np 256 -platform star.xml -hostfile hosts -trace-ti \
 *       --cfg=tracing/filename:stencil.txt --cfg=smpi/simulate-computation:no \
 *       ./stencil ITERATIONS
 *
 * Per rank and ten iterations: 10 × (4 irecv, 4 isend, 1 waitall, 1
 * compute) + 1 allreduce = 101 actions; 400 iterations on 256 ranks are
 * 1,034,240 actions.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static char sbuf[4][1 << 16], rbuf[4][1 << 16];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 10;
  int side = 1;
  while ((side + 1) * (side + 1) <= size)
    side++;
  if (side * side != size) {
    if (rank == 0)
      fprintf(stderr, "stencil: %d ranks is not a square\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int x = rank % side, y = rank / side;
  /* east, west, north, south; a message to direction k is received as
   * coming from direction k ^ 1 */
  int nb[4] = {y * side + (x + 1) % side, y * side + (x + side - 1) % side,
               ((y + side - 1) % side) * side + x, ((y + 1) % side) * side + x};
  const int len = 16384; /* 2,048 doubles per edge */
  double res = 1, sum;
  for (int it = 0; it < iters; it++) {
    MPI_Request req[8];
    for (int k = 0; k < 4; k++)
      MPI_Irecv(rbuf[k], len, MPI_BYTE, nb[k], k ^ 1, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < 4; k++)
      MPI_Isend(sbuf[k], len, MPI_BYTE, nb[k], k, MPI_COMM_WORLD, &req[4 + k]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    smpi_execute_flops(2e6 + 2e4 * ((x + y) % 5));
    if (it % 10 == 9)
      MPI_Allreduce(&res, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
