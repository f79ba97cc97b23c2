/* masterworker: rank 0 hands out 40 tasks to the other ranks, which
 * compute for a time that depends on the task and send back a result;
 * rank 0 receives with MPI_ANY_SOURCE. The master computes almost
 * nothing, which Stats must show (see build.sh). */
#include <mpi.h>

#include "spin.h"

int main(int argc, char **argv)
{
    int rank, size, task, w, result;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int next = 0, done = 0, stop = -1;
        for (w = 1; w < size; w++, next++)
            MPI_Send(&next, 1, MPI_INT, w, 1, MPI_COMM_WORLD);
        while (done < 40) {
            MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
            done++;
            if (next < 40) {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
                next++;
            } else {
                MPI_Send(&stop, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
            }
        }
    } else {
        for (;;) {
            MPI_Recv(&task, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
            if (task < 0)
                break;
            spin(200 + 50 * (task % 7));
            result = task * task;
            MPI_Send(&result, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
