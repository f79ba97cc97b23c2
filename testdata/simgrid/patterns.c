/* Communication patterns whose SimGrid TI traces tracesim's engine is
 * checked against (engine/replay/simgrid_test.go). Computation is
 * injected with smpi_execute_flops so that the traces do not depend on
 * the speed of the machine that recorded them.
 *
 *   smpicc -O1 patterns.c -o patterns
 *   smpirun -np N -platform platform.xml -hostfile hostfile -trace-ti \
 *       --cfg=tracing/filename:PATTERN.txt --cfg=smpi/simulate-computation:no \
 *       ./patterns PATTERN
 *
 * Patterns (none shares a link on a star cluster: each host sends at
 * most one message and receives at most one at a time, except halo):
 *   pingpong  2 ranks, round trips of 8 B to 2 MiB (eager and rendezvous)
 *   ring      a token passed around with MPI_Send/MPI_Recv, 5 laps
 *   shift     MPI_Sendrecv to the right, from the left, uneven computation
 *   pairs     MPI_Isend/MPI_Irecv/MPI_Waitall with partner rank ^ k
 *   tokens    MPI_Irecv, compute, MPI_Isend, MPI_Wait, MPI_Wait on a ring
 *   coll2     barrier, bcast, allreduce on 2 ranks
 *   halo      1-D halo exchange with both neighbours (shares uplinks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sbuf[4 << 20], rbuf[4 << 20];

static void pingpong(int rank) {
  static const int sizes[] = {8, 1000, 60000, 100000, 1 << 21};
  for (int it = 0; it < 4; it++)
    for (int i = 0; i < 5; i++) {
      int n = sizes[i];
      if (rank == 0) {
        smpi_execute_flops(2e6);
        MPI_Send(sbuf, n, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_BYTE, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, n, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        smpi_execute_flops(1e6);
        MPI_Send(sbuf, n, MPI_BYTE, 0, i, MPI_COMM_WORLD);
      }
    }
}

static void ring(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int lap = 0; lap < 5; lap++) {
    int n = lap % 2 ? 262144 : 4096;
    if (rank == 0) {
      smpi_execute_flops(5e5);
      MPI_Send(sbuf, n, MPI_BYTE, next, lap, MPI_COMM_WORLD);
      MPI_Recv(rbuf, n, MPI_BYTE, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(rbuf, n, MPI_BYTE, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      smpi_execute_flops(5e5 * (1 + rank % 3));
      MPI_Send(sbuf, n, MPI_BYTE, next, lap, MPI_COMM_WORLD);
    }
  }
}

static void shift(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int it = 0; it < 10; it++) {
    int n = it % 3 == 2 ? 131072 : 1024 * (it + 1);
    smpi_execute_flops(1e6 * (1 + (rank + it) % 4));
    MPI_Sendrecv(sbuf, n, MPI_BYTE, next, 0, rbuf, n, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void pairs(int rank, int size) {
  MPI_Request req[2];
  for (int k = 1; k < size; k++) {
    int p = rank ^ k, n = k % 2 ? 16384 : 200000;
    smpi_execute_flops(3e5 * (1 + (rank * k) % 5));
    MPI_Irecv(rbuf, n, MPI_BYTE, p, k, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, n, MPI_BYTE, p, k, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
}

static void tokens(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request rr, sr;
  for (int it = 0; it < 6; it++) {
    int n = it % 2 ? 500000 : 2000;
    MPI_Irecv(rbuf, n, MPI_BYTE, prev, 5, MPI_COMM_WORLD, &rr);
    smpi_execute_flops(1e6 * (1 + (rank + 2 * it) % 3));
    MPI_Isend(sbuf, n, MPI_BYTE, next, 5, MPI_COMM_WORLD, &sr);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
  }
}

static void coll2(int rank) {
  for (int it = 0; it < 3; it++) {
    smpi_execute_flops(1e6 * (rank + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(sbuf, 10000 * (it + 1), MPI_BYTE, it % 2, MPI_COMM_WORLD);
    smpi_execute_flops(5e5 * (2 - rank));
    MPI_Allreduce(sbuf, rbuf, 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

static void halo(int rank, int size) {
  MPI_Request req[4];
  for (int it = 0; it < 5; it++) {
    int k = 0, n = it % 2 ? 100000 : 8000;
    smpi_execute_flops(1e6 * (1 + rank % 2));
    if (rank > 0) MPI_Irecv(rbuf, n, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, &req[k++]);
    if (rank < size - 1) MPI_Irecv(rbuf + n, n, MPI_BYTE, rank + 1, 0, MPI_COMM_WORLD, &req[k++]);
    if (rank > 0) MPI_Isend(sbuf, n, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, &req[k++]);
    if (rank < size - 1) MPI_Isend(sbuf + n, n, MPI_BYTE, rank + 1, 0, MPI_COMM_WORLD, &req[k++]);
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *p = argc > 1 ? argv[1] : "";
  if (!strcmp(p, "pingpong")) pingpong(rank);
  else if (!strcmp(p, "ring")) ring(rank, size);
  else if (!strcmp(p, "shift")) shift(rank, size);
  else if (!strcmp(p, "pairs")) pairs(rank, size);
  else if (!strcmp(p, "tokens")) tokens(rank, size);
  else if (!strcmp(p, "coll2")) coll2(rank);
  else if (!strcmp(p, "halo")) halo(rank, size);
  else if (rank == 0) fprintf(stderr, "unknown pattern %s\n", p);
  MPI_Finalize();
  return 0;
}
