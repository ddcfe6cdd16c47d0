#!/usr/bin/env bash
# session 8, final: the merged tree in one sitting: compat (Go, device collectives incl. the rooted
# and v-collectives), p2p (Go), abi, cabi, ckern, cjacobi, NVIDIA's Jacobis, and the mpi4py anchor
cd "$(dirname "$0")/.."
o=/tmp/o; rm -rf $o; mkdir -p $o
S=$OUT/summary.txt; t0=$(date +%s)
for c in compat p2p abi cabi ckern cjacobi; do
	OUT=$o/$c timeout 300 gpu-bin/run.sh $c gpu-bin >$o/$c.txt 2>&1; echo "== $c rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
done
for c in nvjacobi nvshjacobi; do
	OUT=$o/$c timeout 240 gpu-bin/run.sh $c gpu-bin gpu-bin/mgpm >$o/$c.txt 2>&1; echo "== $c rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
	python3 gpu-bin/mpi4py_cupy_pingpong.py staged >$o/anchor.txt 2>&1; echo "== anchor rc=$? ($(( $(date +%s)-t0 )) s)" | tee -a $S
echo quit | nvidia-cuda-mps-control; sleep 1
for c in compat p2p abi cabi ckern cjacobi nvjacobi nvshjacobi; do echo "######## $c"; tail -70 $o/$c.txt; done > $OUT/tails.txt
grep -a -h "BENCH" $o/*.txt $o/*/*.log 2>/dev/null | sed 's/^ *\[pe [0-9]*\] //' | sort -u > $OUT/bench.txt
tar -czf $OUT/logs.tgz -C /tmp o
