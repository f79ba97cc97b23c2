/* spin computes for about n microseconds: the programs' stand-in for work. */
#ifndef SPIN_H
#define SPIN_H
#include <mpi.h>

static volatile double spin_sink;

static void spin(double n)
{
    double t0 = MPI_Wtime(), x = 0;
    while ((MPI_Wtime() - t0) * 1e6 < n)
        x += 1.0;
    spin_sink = x;
}
#endif
