#!/usr/bin/env bash
# The MPI rows of issue 6 with a CPU per PE: osu_latency (8 B) and
# osu_allreduce (8 B) under the host's Open MPI beside gshmem perf
# pt2pt_latency and mpi_allreduce, and the shm_pingpong anchor, 2 PEs pinned,
# six rounds. Run on the 16-core GPU host like cores16.sh, with OSU 7.4 in
# .osu/src and a gshmem binary in .osu/gshmem (results:
# compare-2026-11-29-s3-cores16.txt, compare-2026-11-29-s4-cores16.txt).
set -u
cd .osu/src && (./configure CC=mpicc CXX=mpicxx >/tmp/conf.log 2>&1 && make -j16 >/tmp/make.log 2>&1) || { tail -20 /tmp/conf.log /tmp/make.log; exit 1; }
cd ../..
L=.osu/src/c/mpi/pt2pt/standard/osu_latency
A=.osu/src/c/mpi/collective/blocking/osu_allreduce
R="--allow-run-as-root --bind-to core -np 2"
row() { grep -E "^ *8 " | awk '{print $2}'; }
for rep in 1 2 3 4 5 6; do
  o=$(mpirun $R $L -m 8:8 2>&1 | row)
  g=$(GSHMEM_BIND=auto .osu/gshmem perf pt2pt_latency -n 2 -e 8 2>&1 | row)
  oa=$(mpirun $R $A -m 8:8 -T mpi_float 2>&1 | row)
  ga=$(GSHMEM_BIND=auto .osu/gshmem perf mpi_allreduce -n 2 -e 8 2>&1 | row)
  a=$(.osu/gshmem perf shm_pingpong -n 2 2>&1 | row)
  echo "latency: ompi $o gshmem $g | allreduce 8 B: ompi $oa gshmem $ga | anchor $a"
done
