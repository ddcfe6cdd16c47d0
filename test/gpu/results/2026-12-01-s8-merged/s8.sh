#!/usr/bin/env bash
# session 8 merged-tree sitting: issue 22's subcommands, NVIDIA's Jacobis, the mpi4py anchor
cd "$(dirname "$0")/.."
o=/tmp/o; rm -rf $o; mkdir -p $o
S=$OUT/summary.txt
t0=$(date +%s)
for c in abi cabi ckern cjacobi; do
	OUT=$o/$c timeout 240 gpu-bin/run.sh $c gpu-bin >$o/$c.txt 2>&1; echo "== $c rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
done
OUT=$o/nvjacobi timeout 200 gpu-bin/run.sh nvjacobi gpu-bin gpu-bin/mgpm >$o/nvjacobi.txt 2>&1; echo "== nvjacobi rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
OUT=$o/nvshjacobi timeout 240 gpu-bin/run.sh nvshjacobi gpu-bin gpu-bin/mgpm >$o/nvshjacobi.txt 2>&1; echo "== nvshjacobi rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d
{ ompi_info --version | head -1; ompi_info --parsable --all | grep -i "cuda_support"; } >$o/anchor.txt 2>&1
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
	python3 gpu-bin/mpi4py_cupy_pingpong.py staged >>$o/anchor.txt 2>&1; echo "== anchor rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
echo quit | nvidia-cuda-mps-control; sleep 1
for c in abi cabi ckern cjacobi nvjacobi nvshjacobi; do echo "######## $c"; tail -60 $o/$c.txt; done > $OUT/tails.txt
cat $o/anchor.txt >> $S
tar -czf $OUT/logs.tgz -C /tmp o
