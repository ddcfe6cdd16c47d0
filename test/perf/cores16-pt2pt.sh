#!/usr/bin/env bash
# osu_latency (8 B) under the host's Open MPI beside gshmem perf pt2pt_latency
# (OSU's 10000 iterations, and 100000) and the shm_pingpong anchor, 2 PEs
# pinned, six rounds. Run on the 16-core GPU host like cores16.sh (results in
# compare-2026-11-29-s3-cores16.txt).
set -u
cd .osu/src && (./configure CC=mpicc CXX=mpicxx >/tmp/conf.log 2>&1 && make -j16 >/tmp/make.log 2>&1) || { tail -20 /tmp/conf.log /tmp/make.log; exit 1; }
cd ../..
L=.osu/src/c/mpi/pt2pt/standard/osu_latency
for rep in 1 2 3 4 5 6; do
  o=$(mpirun --allow-run-as-root --bind-to core -np 2 $L -m 8:8 2>&1 | tail -1 | awk '{print $2}')
  g=$(GSHMEM_BIND=auto .osu/gshmem perf pt2pt_latency -n 2 -e 8 2>&1 | grep -E "^ *8 " | awk '{print $2}')
  g2=$(GSHMEM_BIND=auto .osu/gshmem perf pt2pt_latency -n 2 -e 8 --iters 100000 2>&1 | grep -E "^ *8 " | awk '{print $2}')
  a=$(.osu/gshmem perf shm_pingpong -n 2 2>&1 | grep -E "^ *8 " | awk '{print $2}')
  echo "ompi $o gshmem $g gshmem(100k iters) $g2 anchor $a"
done
