"""Writes OTF2 archives with the OTF2 library's own Python writer
(Debian's python3-otf2), for the reader's table test.

    python3 gen_archives.py OUTDIR CASE

writes OUTDIR/traces.otf2 and its files. Each case is a small MPI program's
trace: ranks are processes ("MPI Rank N"), threads extra locations of a
process; MPI records follow the conventions Score-P uses (the MPI
COMM_LOCATIONS group lists each rank's master thread, communicators are
COMM_GROUPs of ranks).
"""
import random
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm,
                        RegionRole)


class Program:
    """Builds one archive: definitions, then events per location in time order."""

    def __init__(self, path, ranks, threads=1, resolution=10**9, offset=0):
        self.trace = otf2.writer.Writer(path, timer_resolution=resolution)
        defs = self.trace.definitions
        self.offset = offset
        self.defs = defs
        node = defs.system_tree_node("node")
        self.groups = [defs.location_group("MPI Rank %d" % r, system_tree_parent=node,
                                           location_group_type=LocationGroupType.PROCESS)
                       for r in range(ranks)]
        self.locs = [[defs.location("Master thread" if t == 0 else "Thread %d" % t,
                                    type=LocationType.CPU_THREAD, group=self.groups[r])
                      for t in range(threads)] for r in range(ranks)]
        self.world_group = defs.group("", group_type=GroupType.COMM_LOCATIONS,
                                      paradigm=Paradigm.MPI,
                                      members=[l[0] for l in self.locs])
        wg = defs.group("world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                        members=list(range(ranks)))
        self.world = defs.comm("MPI_COMM_WORLD", group=wg)
        self.regions = {}
        self.clock = [[offset + 1000 * (r + 1)] * threads for r in range(ranks)]
        self.writers = [[self.trace.event_writer_from_location(l) for l in rl] for rl in self.locs]

    def comm(self, name, ranks):
        g = self.defs.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                            members=list(ranks))
        return self.defs.comm(name, group=g, parent=self.world)

    def region(self, name):
        if name not in self.regions:
            mpi = name.startswith("MPI_")
            self.regions[name] = self.defs.region(
                name, paradigm=Paradigm.MPI if mpi else Paradigm.USER,
                region_role=RegionRole.FUNCTION)
        return self.regions[name]

    def tick(self, r, t=0, d=10):
        self.clock[r][t] += d
        return self.clock[r][t]

    def w(self, r, t=0):
        return self.writers[r][t]

    def enter(self, r, name, t=0):
        self.w(r, t).enter(self.tick(r, t), self.region(name))

    def leave(self, r, name, t=0):
        self.w(r, t).leave(self.tick(r, t), self.region(name))

    def send(self, r, dst, tag, size, comm=None, t=0):
        comm = comm or self.world
        self.enter(r, "MPI_Send", t)
        self.w(r, t).mpi_send(self.tick(r, t), dst, comm, tag, size)
        self.leave(r, "MPI_Send", t)

    def recv(self, r, src, tag, size, comm=None, t=0):
        comm = comm or self.world
        self.enter(r, "MPI_Recv", t)
        self.w(r, t).mpi_recv(self.tick(r, t), src, comm, tag, size)
        self.leave(r, "MPI_Recv", t)

    def isend(self, r, dst, tag, size, req, comm=None):
        self.enter(r, "MPI_Isend")
        self.w(r).mpi_isend(self.tick(r), dst, comm or self.world, tag, size, req)
        self.leave(r, "MPI_Isend")

    def irecv_post(self, r, req):
        self.enter(r, "MPI_Irecv")
        self.w(r).mpi_irecv_request(self.tick(r), req)
        self.leave(r, "MPI_Irecv")

    def wait_send(self, r, req):
        self.enter(r, "MPI_Wait")
        self.w(r).mpi_isend_complete(self.tick(r), req)
        self.leave(r, "MPI_Wait")

    def wait_recv(self, r, src, tag, size, req, comm=None, test_first=False):
        if test_first:
            self.enter(r, "MPI_Test")
            self.w(r).mpi_request_test(self.tick(r), req)
            self.leave(r, "MPI_Test")
        self.enter(r, "MPI_Wait")
        self.w(r).mpi_irecv(self.tick(r), src, comm or self.world, tag, size, req)
        self.leave(r, "MPI_Wait")

    def coll(self, ranks, name, op, root, sent, recvd, comm=None):
        comm = comm or self.world
        for r in ranks:
            self.enter(r, name)
            self.w(r).mpi_collective_begin(self.tick(r))
            self.w(r).mpi_collective_end(self.tick(r), op, comm, root, sent, recvd)
            self.leave(r, name)

    def close(self):
        self.trace.close()


def everywhere(p, name, t=0):
    for r in range(len(p.locs)):
        p.enter(r, name, t)


def main_begin(p):
    for r in range(len(p.locs)):
        p.enter(r, "main")


def main_end(p):
    for r in range(len(p.locs)):
        p.leave(r, "main")


def case_p2p(p):
    main_begin(p)
    for i in range(5):
        p.send(0, 1, 10, 1 << (10 + i))
        p.recv(1, 0, 10, 1 << (10 + i))
        p.send(1, 0, 20, 1 << (10 + i))
        p.recv(0, 1, 20, 1 << (10 + i))
    main_end(p)


def case_ring(p):
    n = len(p.locs)
    main_begin(p)
    for step in range(3):
        for r in range(n):
            p.send(r, (r + 1) % n, step, 4096)
        for r in range(n):
            p.recv(r, (r - 1) % n, step, 4096)
    main_end(p)


def case_isend_irecv(p):
    n = len(p.locs)
    main_begin(p)
    for r in range(n):
        p.irecv_post(r, 100 + r)
        p.isend(r, (r + 1) % n, 7, 1000 * (r + 1), 200 + r)
    for r in range(n):
        p.wait_recv(r, (r - 1) % n, 7, 1000 * ((r - 1) % n + 1), 100 + r, test_first=(r % 2 == 0))
        p.wait_send(r, 200 + r)
    main_end(p)


def case_collectives(p):
    n = len(p.locs)
    everyone = range(n)
    main_begin(p)
    p.coll(everyone, "MPI_Bcast", CollectiveOp.BCAST, 2, 800, 800)
    p.coll(everyone, "MPI_Reduce", CollectiveOp.REDUCE, 1, 64, 64)
    p.coll(everyone, "MPI_Allreduce", CollectiveOp.ALLREDUCE, 0xFFFFFFFF, 8, 8)
    p.coll(everyone, "MPI_Barrier", CollectiveOp.BARRIER, 0xFFFFFFFF, 0, 0)
    p.coll(everyone, "MPI_Gather", CollectiveOp.GATHER, 3, 16, 16 * n)
    p.coll(everyone, "MPI_Alltoall", CollectiveOp.ALLTOALL, 0xFFFFFFFF, 32 * n, 32 * n)
    main_end(p)


def case_subcomm(p):
    n = len(p.locs)
    even = [r for r in range(n) if r % 2 == 0]
    odd = [r for r in range(n) if r % 2 == 1]
    ce, co = p.comm("even", even), p.comm("odd", odd)
    main_begin(p)
    p.coll(even, "MPI_Bcast", CollectiveOp.BCAST, 1, 256, 256, comm=ce)
    p.coll(odd, "MPI_Bcast", CollectiveOp.BCAST, 2, 256, 256, comm=co)
    # local rank 0 -> local rank 1 of each sub-communicator
    for sub, c in ((even, ce), (odd, co)):
        p.send(sub[0], 1, 5, 512, comm=c)
        p.recv(sub[1], 0, 5, 512, comm=c)
    p.coll(range(n), "MPI_Allreduce", CollectiveOp.ALLREDUCE, 0xFFFFFFFF, 8, 8)
    main_end(p)


def case_threads(p):
    n = len(p.locs)
    main_begin(p)
    for r in range(n):
        for t in range(1, len(p.locs[r])):
            p.clock[r][t] = p.clock[r][0]
            p.enter(r, "!$omp parallel", t)
            p.enter(r, "compute", t)
            p.leave(r, "compute", t)
            p.leave(r, "!$omp parallel", t)
    p.send(0, 1, 1, 100)
    p.recv(1, 0, 1, 100)
    main_end(p)


def case_thread_mpi(p):
    # MPI_THREAD_MULTIPLE: thread 1 of each rank exchanges messages.
    main_begin(p)
    for r in range(2):
        p.clock[r][1] = p.clock[r][0] + 5
    p.send(0, 1, 9, 300, t=1)
    p.recv(1, 0, 9, 300, t=1)
    p.send(1, 0, 8, 200)
    p.recv(0, 1, 8, 200)
    main_end(p)


def case_mixed(p):
    n = len(p.locs)
    rng = random.Random(8)
    main_begin(p)
    for it in range(4):
        for r in range(0, n, 2):
            size = rng.randint(1, 1 << 20)
            p.send(r, r + 1, it, size)
            p.recv(r + 1, r, it, size)
        p.coll(range(n), "MPI_Allreduce", CollectiveOp.ALLREDUCE, 0xFFFFFFFF, 8, 8)
        p.coll(range(n), "MPI_Scatter", CollectiveOp.SCATTER, it % n, 40, 5)
    main_end(p)


def case_nested(p):
    n = len(p.locs)
    main_begin(p)
    for r in range(n):
        for depth in range(4):
            p.enter(r, "solve")
        for depth in range(4):
            p.leave(r, "solve")
        p.enter(r, "io")
        p.leave(r, "io")
    p.send(2, 0, 3, 12)
    p.recv(0, 2, 3, 12)
    main_end(p)


def case_many(p):
    # Big tags, lengths and ids: every width of OTF2's compressed integers.
    n = len(p.locs)
    main_begin(p)
    sizes = [0, 1, 255, 256, 65535, 65536, 1 << 24, 1 << 32, (1 << 40) + 7]
    for i in range(200):
        src, dst = i % n, (i + 1) % n
        size = sizes[i % len(sizes)]
        tag = [0, 7, 300, 70000, 1 << 30][i % 5]
        p.send(src, dst, tag, size)
        p.recv(dst, src, tag, size)
    main_end(p)


def case_offset(p):
    main_begin(p)
    p.send(0, 1, 0, 8)
    p.recv(1, 0, 0, 8)
    p.coll(range(len(p.locs)), "MPI_Barrier", CollectiveOp.BARRIER, 0xFFFFFFFF, 0, 0)
    main_end(p)


def case_irecv_early(p):
    """NAS CG's exchange on clocks that agree: both ranks post MPI_Irecv at
    once, compute, MPI_Send to each other, compute, and wait: each receive
    is posted long before its sender sends, and completes after."""
    n = len(p.locs)
    for r in range(n):
        p.clock[r] = [p.offset + 1000] * len(p.clock[r])
    main_begin(p)
    for r in range(n):
        p.irecv_post(r, 100 + r)
        p.tick(r, d=1000 * (r + 1))
        p.send(r, 1 - r, 7, 100000)
        p.tick(r, d=5000)
        p.wait_recv(r, 1 - r, 7, 100000, 100 + r)
    main_end(p)


CASES = {
    # name: (function, ranks, threads, resolution, offset)
    "p2p": (case_p2p, 2, 1, 10**9, 0),
    "ring": (case_ring, 4, 1, 10**6, 0),
    "isend_irecv": (case_isend_irecv, 4, 1, 10**9, 0),
    "collectives": (case_collectives, 4, 1, 2500000000, 0),
    "subcomm": (case_subcomm, 6, 1, 10**9, 0),
    "threads": (case_threads, 2, 3, 10**9, 0),
    "thread_mpi": (case_thread_mpi, 2, 2, 10**9, 0),
    "mixed": (case_mixed, 8, 1, 1000, 0),
    "nested": (case_nested, 3, 1, 1, 0),
    "many": (case_many, 4, 1, 10**9, 0),
    "offset": (case_offset, 2, 1, 10**9, 123456789012),
    "irecv_early": (case_irecv_early, 2, 1, 10**9, 0),
}


def main():
    out, name = sys.argv[1], sys.argv[2]
    fn, ranks, threads, res, offset = CASES[name]
    p = Program(out, ranks, threads, res, offset)
    fn(p)
    p.close()


if __name__ == "__main__":
    main()
