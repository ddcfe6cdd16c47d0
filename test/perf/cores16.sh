#!/usr/bin/env bash
# The collective rows of issue 3 with a CPU per PE: osu_barrier and
# osu_allreduce (8 B) under the host's Open MPI beside gshmem perf barrier and
# reduction, 2 and 4 PEs, pinned, three repetitions. Run on the 16-core GPU
# host from the repository root, with OSU 7.4 unpacked in .osu/src and a
# gshmem binary in .osu/gshmem (both carried there; results in
# compare-2026-11-29-s3-cores16.txt).
set -u
cd .osu/src && (./configure CC=mpicc CXX=mpicxx >/tmp/conf.log 2>&1 && make -j16 >/tmp/make.log 2>&1) || { tail -20 /tmp/conf.log /tmp/make.log; exit 1; }
cd ../..
nproc; mpirun --version | head -1
B=.osu/src/c/mpi/collective/blocking
R="--allow-run-as-root --bind-to core"
for rep in 1 2 3; do
  for np in 2 4; do
    echo "np=$np rep=$rep"
    echo -n "ompi barrier: "; mpirun $R -np $np $B/osu_barrier 2>&1 | tail -1
    echo -n "ompi allreduce8: "; mpirun $R -np $np $B/osu_allreduce -m 8:8 2>&1 | tail -1
    echo -n "gshmem barrier: "; GSHMEM_BIND=auto .osu/gshmem perf barrier -n $np 2>&1 | grep -E "^ +[0-9]" | head -1
    echo -n "gshmem reduction8: "; GSHMEM_BIND=auto .osu/gshmem perf reduction -n $np -e 8 2>&1 | grep -E "^ +8 " | head -1
  done
  echo -n "anchor: "; .osu/gshmem perf shm_pingpong -n 2 2>&1 | grep -E "^ *8 " | head -1
done
