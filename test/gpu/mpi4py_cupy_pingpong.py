"""An anchor for device point-to-point where the machine's MPI is not
CUDA-aware (issue 22): mpi4py and CuPy under the machine's Open MPI, 2 ranks
on one GPU, a Send/Recv ping-pong of 8 B, 4 KiB, 64 KiB and 1 MiB between
CuPy arrays, one-way time = round trip / 2, median of 5 timed rounds after a
warm-up, as test/gpu/testdata/cudap2p_bench.c measures gshmem.

  staged: what a code does without a CUDA-aware MPI: device -> host copy,
          MPI on host memory, host -> device copy at the receiver.
  direct: the CuPy arrays passed to MPI as they are (mpi4py hands MPI the
          device pointer); only meaningful if the MPI is CUDA-aware, and the
          log says what happened otherwise.

Run: mpirun -np 2 python3 mpi4py_cupy_pingpong.py staged|direct
"""
import statistics
import sys
import time

import cupy
import numpy
from mpi4py import MPI

mode = sys.argv[1] if len(sys.argv) > 1 else "staged"
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
if comm.Get_size() != 2:
    sys.exit("2 ranks, not %d" % comm.Get_size())
peer = 1 - rank
cupy.cuda.Device(0).use()

for n in (8, 4096, 65536, 1 << 20):
    s = cupy.full(n, rank + 1, dtype=cupy.uint8)
    r = cupy.zeros(n, dtype=cupy.uint8)
    hs = cupy.cuda.alloc_pinned_memory(n)
    hr = cupy.cuda.alloc_pinned_memory(n)
    hsv = numpy.frombuffer(hs, dtype=numpy.uint8, count=n)
    hrv = numpy.frombuffer(hr, dtype=numpy.uint8, count=n)
    iters = 2000 if n <= 8192 else 300

    def send():
        if mode == "direct":
            cupy.cuda.get_current_stream().synchronize()
            comm.Send([s, MPI.BYTE], dest=peer, tag=1)
        else:
            s.get(out=hsv)
            comm.Send([hsv, MPI.BYTE], dest=peer, tag=1)

    def recv():
        if mode == "direct":
            comm.Recv([r, MPI.BYTE], source=peer, tag=1)
        else:
            comm.Recv([hrv, MPI.BYTE], source=peer, tag=1)
            r.set(hrv)
            cupy.cuda.get_current_stream().synchronize()

    times = []
    for rnd in range(6):
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            if rank == 0:
                send()
                recv()
            else:
                recv()
                send()
        times.append((time.perf_counter() - t0) * 1e6 / (2 * iters))
    want = peer + 1
    if int(r[0]) != want or int(r[-1]) != want:
        sys.exit("rank %d: %d B: got %d, want %d" % (rank, n, int(r[0]), want))
    if rank == 0:
        print("BENCH mpi4py+cupy (%s, %s) Send/Recv ping-pong device->device %d B: %.2f us one way (median of 5 rounds)"
              % (mode, MPI.Get_library_version().splitlines()[0], n, statistics.median(times[1:])), flush=True)
