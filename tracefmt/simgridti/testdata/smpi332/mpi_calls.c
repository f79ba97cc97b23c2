#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double buf[4096], rbuf[4096*8];
  int counts[8], disps[8], sym[8];
  for (int i = 0; i < size; i++) { counts[i] = 10 + i; disps[i] = i * 100; sym[i] = 10 + i + rank; }
  MPI_Request req[4];
  MPI_Status st;
  int flag;
  if (rank == 0) {
    MPI_Send(buf, 100, MPI_INT, 1, 7, MPI_COMM_WORLD);
    MPI_Isend(buf, 50, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], &st);
    MPI_Recv(rbuf, 10, MPI_CHAR, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
    MPI_Irecv(rbuf, 10, MPI_SHORT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &req[1]);
    MPI_Wait(&req[1], &st);
  } else if (rank == 1) {
    MPI_Recv(rbuf, 100, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
    MPI_Irecv(rbuf, 50, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &req[0]);
    MPI_Test(&req[0], &flag, &st);
    MPI_Wait(&req[0], &st);
    MPI_Send(buf, 10, MPI_CHAR, 0, 9, MPI_COMM_WORLD);
    MPI_Send(buf, 10, MPI_SHORT, 0, 10, MPI_COMM_WORLD);
  }
  if (rank < 2) {
    int p = 1 - rank;
    MPI_Sendrecv(buf, 5, MPI_LONG, p, 3, rbuf, 6, MPI_LONG, p, 3, MPI_COMM_WORLD, &st);
    MPI_Isend(buf, 3, MPI_BYTE, p, 4, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(rbuf, 3, MPI_BYTE, p, 4, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (rank == 0) { MPI_Ssend(buf, 2, MPI_LONG_DOUBLE, p, 5, MPI_COMM_WORLD); }
    else { MPI_Recv(rbuf, 2, MPI_LONG_DOUBLE, p, 5, MPI_COMM_WORLD, &st); }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(buf, 20, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Bcast(buf, 21, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(buf, rbuf, 30, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  MPI_Allreduce(buf, rbuf, 31, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Alltoall(buf, 4, MPI_DOUBLE, rbuf, 4, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Alltoallv(buf, sym, disps, MPI_INT, rbuf, sym, disps, MPI_INT, MPI_COMM_WORLD);
  MPI_Gather(buf, 5, MPI_DOUBLE, rbuf, 5, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Gatherv(buf, counts[rank], MPI_INT, rbuf, counts, disps, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(buf, 6, MPI_DOUBLE, rbuf, 6, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgatherv(buf, counts[rank], MPI_DOUBLE, rbuf, counts, disps, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Scatter(buf, 7, MPI_DOUBLE, rbuf, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Scatterv(buf, counts, disps, MPI_DOUBLE, rbuf, counts[rank], MPI_DOUBLE, 2, MPI_COMM_WORLD);
  MPI_Reduce_scatter(buf, rbuf, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(buf, rbuf, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(buf, rbuf, 9, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm c2; MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c2);
  MPI_Comm c3; MPI_Comm_dup(MPI_COMM_WORLD, &c3);
  double x = 0; for (long i = 0; i < 1000000; i++) x += i * 0.5;
  if (x < 0) printf("x\n");
  MPI_Finalize();
  return 0;
}
