#!/usr/bin/env bash
# session 8: device point-to-point through the Go API and the C ABI, and the mpi4py+CuPy anchor, in one sitting
cd "$(dirname "$0")/.."
o=/tmp/o; rm -rf $o; mkdir -p $o
S=$OUT/summary.txt; t0=$(date +%s)
for c in p2p abi; do
	OUT=$o/$c timeout 300 gpu-bin/run.sh $c gpu-bin >$o/$c.txt 2>&1; echo "== $c rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
	python3 gpu-bin/mpi4py_cupy_pingpong.py staged >$o/anchor.txt 2>&1; echo "== anchor rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
echo quit | nvidia-cuda-mps-control; sleep 1
for c in p2p abi; do echo "######## $c"; grep -a -h "BENCH\|failed steps\|compat p2p on device\|rc=" $o/$c.txt; done >> $S
grep -a BENCH $o/anchor.txt >> $S
tar -czf $OUT/logs.tgz -C /tmp o
