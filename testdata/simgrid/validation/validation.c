/* The MPI programs of the flow model's validation against SimGrid
 * (engine/preset/simgrid_test.go, docs/sim.md "Validation against
 * SimGrid"). record.sh builds this file with smpicc and records one
 * time-independent trace per program with smpirun -trace-ti on 8 ranks.
 * Computation is injected with smpi_execute_flops so that the traces do
 * not depend on the speed of the machine that recorded them.
 *
 * Programs (argv[1]):
 *   halo        2-D halo exchange on a periodic 2x4 grid: MPI_Irecv and
 *               MPI_Isend with the four neighbours, MPI_Waitall; eager and
 *               rendezvous sizes alternate
 *   alltoall    MPI_Alltoall of 1 KB and 100 KB blocks
 *   masterworker rank 0 hands out 24 tasks: MPI_Recv(MPI_ANY_SOURCE) of a
 *               result, MPI_Isend of the next task to whoever sent it
 *   cg          conjugate-gradient-like iterations: 1-D halo, two
 *               MPI_Allreduce of one double, a dot product's compute
 *   pipeline    ten 100 KB chunks flow from rank 0 to rank 7 through
 *               every rank (MPI_Recv, compute, MPI_Isend/MPI_Wait)
 *   incast      every rank sends 1 MB, then 20 KB, to rank 0 at once
 *               (MPI_Irecv, MPI_Waitall), then an MPI_Gather of 50 KB
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sbuf[4][1 << 20], rbuf[4][1 << 20];
static char abuf[8 << 20], bbuf[8 << 20];

static void halo(int rank, int size) {
  int px = 2, py = size / 2, x = rank % px, y = rank / px;
  int nb[4] = {(x + px - 1) % px + y * px, (x + 1) % px + y * px,
               x + ((y + py - 1) % py) * px, x + ((y + 1) % py) * px};
  MPI_Request req[8];
  for (int it = 0; it < 6; it++) {
    int n = it % 2 ? 150000 : 12000;
    smpi_execute_flops(1e6 * (2 + (rank + it) % 3));
    /* tag k identifies the direction, so that the two neighbours of a
     * 2-wide dimension (one rank, twice) are told apart */
    for (int k = 0; k < 4; k++)
      MPI_Irecv(rbuf[k], n, MPI_BYTE, nb[k], k ^ 1, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < 4; k++)
      MPI_Isend(sbuf[k], n, MPI_BYTE, nb[k], k, MPI_COMM_WORLD, &req[4 + k]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
  }
}

static void alltoall(int rank, int size) {
  for (int it = 0; it < 3; it++) {
    smpi_execute_flops(1e6 * (1 + (rank + it) % 3));
    MPI_Alltoall(abuf, 1000, MPI_BYTE, bbuf, 1000, MPI_BYTE, MPI_COMM_WORLD);
    smpi_execute_flops(5e5 * (1 + rank % 2));
    MPI_Alltoall(abuf, 100000, MPI_BYTE, bbuf, 100000, MPI_BYTE, MPI_COMM_WORLD);
  }
}

static void masterworker(int rank, int size) {
  const int tasks = 24, task = 300000, result = 100000;
  if (rank == 0) {
    /* tasks leave with MPI_Isend: a master blocked in a rendezvous send to
     * a worker still busy would deadlock the replay of this trace on a
     * platform where the results arrive in another order */
    MPI_Request req[32];
    int sent = 0, done = 0;
    for (int w = 1; w < size; w++, sent++)
      MPI_Isend(sbuf[0], task, MPI_BYTE, w, 1, MPI_COMM_WORLD, &req[sent]);
    while (done < tasks) {
      MPI_Status st;
      MPI_Recv(rbuf[0], result, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
      done++;
      MPI_Isend(sbuf[0], sent < tasks ? task : 8, MPI_BYTE, st.MPI_SOURCE, sent < tasks ? 1 : 3,
                MPI_COMM_WORLD, &req[sent]);
      sent++;
    }
    MPI_Waitall(sent, req, MPI_STATUSES_IGNORE);
  } else {
    for (int k = 0;; k++) {
      MPI_Status st;
      MPI_Recv(rbuf[0], task, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == 3)
        break;
      /* uneven, and never two workers alike, so that no two results
       * reach the master at the same instant */
      smpi_execute_flops(1e6 + 137e3 * rank + 251e3 * ((k * 5 + rank) % 7));
      MPI_Send(sbuf[0], result, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
  }
}

static void cg(int rank, int size) {
  int l = (rank + size - 1) % size, r = (rank + 1) % size;
  MPI_Request req[4];
  double x = rank, y;
  for (int it = 0; it < 8; it++) {
    smpi_execute_flops(1e6 + 1e5 * ((rank * 3 + it) % 4));
    MPI_Irecv(rbuf[0], 80000, MPI_BYTE, l, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(rbuf[1], 80000, MPI_BYTE, r, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(sbuf[0], 80000, MPI_BYTE, l, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(sbuf[1], 80000, MPI_BYTE, r, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    smpi_execute_flops(3e5);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    smpi_execute_flops(2e5);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

static void pipeline(int rank, int size) {
  MPI_Request sr = MPI_REQUEST_NULL;
  for (int k = 0; k < 10; k++) {
    if (rank > 0)
      MPI_Recv(rbuf[k % 2], 100000, MPI_BYTE, rank - 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    smpi_execute_flops(3e5 + 5e4 * (rank % 3));
    if (rank < size - 1) {
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
      MPI_Isend(sbuf[k % 2], 100000, MPI_BYTE, rank + 1, k, MPI_COMM_WORLD, &sr);
    }
  }
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
}

static void incast(int rank, int size) {
  static const int sizes[] = {1000000, 20000};
  MPI_Request req[8];
  for (int i = 0; i < 2; i++) {
    if (rank == 0) {
      for (int s = 1; s < size; s++)
        MPI_Irecv(abuf + s * sizes[i], sizes[i], MPI_BYTE, s, i, MPI_COMM_WORLD, &req[s - 1]);
      MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
    } else {
      smpi_execute_flops(1e5 * rank);
      MPI_Send(sbuf[0], sizes[i], MPI_BYTE, 0, i, MPI_COMM_WORLD);
    }
  }
  smpi_execute_flops(1e6);
  MPI_Gather(sbuf[0], 50000, MPI_BYTE, abuf, 50000, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static const struct {
  const char *name;
  void (*run)(int rank, int size);
} programs[] = {
    {"halo", halo}, {"alltoall", alltoall}, {"masterworker", masterworker},
    {"cg", cg},     {"pipeline", pipeline}, {"incast", incast},
};

int main(int argc, char **argv) {
  int rank, size, found = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (size_t i = 0; size == 8 && argc > 1 && i < sizeof programs / sizeof programs[0]; i++)
    if (!strcmp(argv[1], programs[i].name)) {
      programs[i].run(rank, size);
      found = 1;
    }
  if (!found && rank == 0)
    fprintf(stderr, "validation: usage: smpirun -np 8 ... validation PROGRAM (halo, alltoall, masterworker, cg, pipeline, incast)\n");
  MPI_Finalize();
  return found ? 0 : 1;
}
