#!/usr/bin/env bash
# GPU tests and measurements of the CUDA backend.
#
#   test/gpu/run.sh build [DIR]   on a machine with Go and the CUDA build deps
#                                 (scripts/install-cuda-deps.sh): builds the GPU
#                                 test binary, putblock-gpu and gshmem into DIR
#                                 (default gpu-bin, git-ignored) and copies the
#                                 NVSHMEM reference program next to them.
#   test/gpu/run.sh run [DIR]     on the GPU machine (no Go needed): runs, in one
#                                 sitting, logging to $OUT (or DIR/logs):
#                                   1. the correctness suite, PEs in one process
#                                      sharing a context (2 and 4 PEs), no MPS
#                                   2. the measurements, in-process, no MPS
#                                   3. putblock-gpu, in-process
#                                   4. under MPS: the suite as processes (CUDA IPC,
#                                      2 and 4 PEs), putblock-gpu as processes, and
#                                      the measurements as processes
#                                   5. the NVSHMEM reference (shared/reference/gpu/run.sh)
#                                 and prints the figures side by side.
#   test/gpu/run.sh coll [DIR]    on the GPU machine: the team collectives as
#                                 kernels (issue 21): the suite in-process (2
#                                 and 4 PEs), the collective measurements with
#                                 their floors in-process (2 and 4 PEs), then
#                                 under MPS the suite as processes and the
#                                 measurements as processes, and NCCL's
#                                 all-reduce through torch.distributed (on one
#                                 GPU NCCL refuses two ranks: its log says so).
#   test/gpu/run.sh compat [DIR]  on the GPU machine: compat's collectives on
#                                 device buffers (issues 21, 22: the rooted and
#                                 v-collectives too): the suite in-process
#                                 (2, 3 and 4 PEs), the compat.Allreduce measurements
#                                 beside shmem.Reduce's in-process, then under
#                                 MPS both as processes.
#   test/gpu/run.sh abi [DIR]     on the GPU machine: the C ABI built with -tags
#                                 cuda (CUDA-aware MPI, issues 21-22):
#                                 collectives on cuMemAlloc buffers
#                                 (compat/abi/testdata/cudacoll.c; 2, 3 and 4
#                                 processes, and 4 with a 16 KiB scratch), the
#                                 calls that run on host copies of them
#                                 (cudanbc.c: nonblocking, persistent and
#                                 neighborhood collectives, Scan, Exscan,
#                                 Alltoallw, user ops, Pack/Unpack,
#                                 Reduce_local; 2, 3 and 4 processes) and
#                                 point-to-point and RMA on device buffers
#                                 and windows (cudap2p.c), 2 and 4 processes
#                                 under MPS and 2 without; then the timings
#                                 (test/gpu/testdata/cudap2p_bench.c: device
#                                 ping-pong 8 B to 1 MiB, MPI_Put 8 B on a
#                                 device window), 2 processes under MPS.
#   test/gpu/run.sh build-p2pab DIR   on a machine with Go: the A/B of device
#                                 point-to-point (issue 22): this tree's
#                                 cuda-tagged library in DIR/after, the one of
#                                 BASE (a commit, default main) built from
#                                 git archive in DIR/before, cudap2p.c and
#                                 cudap2p_bench.c against each, the GPU test
#                                 binary, and with OSU=<OSU source tree> a
#                                 copy of it (never committed) for the GPU
#                                 machine's own Open MPI.
#   test/gpu/run.sh p2pab DIR     on the GPU machine, under MPS: cudap2p (2
#                                 and 4 processes) and the Go API's p2p suite
#                                 as processes with this tree's library, the
#                                 memkind figures (cuPointerGetAttributes
#                                 cost), then cudap2p_bench before and after
#                                 interleaved twice (device buffers, and
#                                 host buffers in the device job), host
#                                 buffers in a host job, and an anchor: OSU's
#                                 osu_latency -d cuda D D under the machine's
#                                 Open MPI when ompi_info says it is
#                                 CUDA-aware, else mpi4py and CuPy under it
#                                 (mpi4py_cupy_pingpong.py: staged through
#                                 host memory, and direct).
#   test/gpu/run.sh p2pcheck DIR  on the GPU machine, after build-p2pab: the Go
#                                 suites in-process (point-to-point, compat's
#                                 collectives, shmem; 2 and 4 PEs) and the
#                                 cost of each step of a device message,
#                                 without and under MPS; cudacoll.c against
#                                 this tree's library under MPS; what the
#                                 machine's Open MPI and UCX say about CUDA,
#                                 and osu_latency -d cuda D D tried under it
#                                 whatever they say (its outcome is the log).
#   test/gpu/run.sh p2p [DIR]     on the GPU machine: compat's point-to-point
#                                 and windows on device buffers through the Go
#                                 API (issue 22): the suite in-process (2 and
#                                 4 PEs) and the timings in-process, then under
#                                 MPS the suite as processes (2 and 4) and the
#                                 timings as processes.
#   test/gpu/run.sh cabi [DIR]    on the GPU machine: gshmem.h on the device heap
#                                 and its *_on_stream calls (issue 22), built
#                                 with -tags cuda (compat/abi/testdata/
#                                 gshmem_stream.c): the checks with 2 and 4
#                                 processes under MPS, then the figures (on-
#                                 stream put 8 B, putmem_signal_on_stream
#                                 ping-pong) beside the Go API's (the same
#                                 shapes with streams.CUDAStream), 2 processes
#                                 under MPS, and NVSHMEM's in the same shapes
#                                 (test/gpu/nvshmem_stream.cu, from the GPU
#                                 machine's NVSHMEM wheel), and the C Jacobi
#                                 of stage 3 (examples/c/jacobi-gpu) against
#                                 the Go one's residual and checksum.
#   test/gpu/run.sh ckern [DIR]   on the GPU machine: stage 4 in C (issue 22): the
#                                 programs of compat/abi/testdata/kern_* compiled
#                                 there by the machine's own nvcc through gshmem
#                                 nvcc (a runtime-API program, the same over two
#                                 -rdc files, a driver-API module, and kern_nvstyle:
#                                 NVSHMEM's shape, gshmem.h and gshmemx.h only,
#                                 -rdc with libgshmem_device.a), run as 2 and 4
#                                 processes under MPS; then kernel put bandwidth
#                                 and the device ping-pong, and the same source
#                                 built against NVSHMEM (renamed) for its figures.
#                                 Build with 'run.sh build-ckern DIR' first.
#   test/gpu/run.sh cjacobi [DIR] on the GPU machine: the C Jacobi ladder
#                                 (examples/c/jacobi-gpu, issue 22) built there
#                                 by its own nvcc (stage1_mpi, stage2_win,
#                                 stage3_stream, stage4_kernel.cu when present),
#                                 each run with 2 processes under MPS beside
#                                 examples/jacobi's same stage (Go), the last
#                                 lines compared, on two grids (one with
#                                 uneven row blocks), and stages 1-2 with 3.
#   test/gpu/run.sh nvjacobi DIR MGPM   on the GPU machine: NVIDIA's
#                                 multi-gpu-programming-models Jacobi, its
#                                 mpi and mpi_overlap folders copied by hand to
#                                 MGPM (never committed), built unmodified by
#                                 their Makefiles with gshmem's mpicxx and the
#                                 machine's nvcc, each run under gshmem run -n 2
#                                 (MPS, GSHMEM_HEAP=device); their own check
#                                 against a single-GPU run must pass.
#   test/gpu/run.sh nvshjacobi DIR MGPM   on the GPU machine: NVIDIA's
#                                 nvshmem Jacobi (MGPM/nvshmem, copied by hand,
#                                 never committed) with nvshmem renamed to
#                                 gshmem by sed, built by their Makefile with
#                                 only its libraries changed (-lgshmem_device
#                                 -lmpi_abi; libgshmem_device.a built there by
#                                 gshmem nvcc --device-lib), run under gshmem
#                                 run -n 2 (MPS, GSHMEM_HEAP=device) with their
#                                 options; their check must pass.
#   test/gpu/run.sh multi [DIR]   on a machine of several GPUs: the multi-GPU
#                                 sitting (issue 10), most telling first: the
#                                 measurements with one PE per GPU (processes,
#                                 no MPS, the ping-pong included; a 1 GiB
#                                 float32 allreduce too), NCCL's all-reduce through
#                                 torch.distributed, the suite with one PE per
#                                 GPU and (under MPS) two per GPU, then the
#                                 NVSHMEM reference.
#
# With the device tool: build here, then
#   run(command="test/gpu/run.sh run", carry=["gpu-bin"], timeout_s=600)
set -uo pipefail
cmd=${1:-run}
dir=${2:-gpu-bin}
root=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$cmd" = build ]; then
	set -e
	cd "$root"
	mkdir -p "$dir/ref"
	ex=$(git rev-parse --git-path info/exclude)
	case $dir in /*) ;; *) git check-ignore -q "$dir" || { mkdir -p "$(dirname "$ex")" && echo "/$dir/" >>"$ex"; } ;; esac
	go test -c -tags cuda -o "$dir/gpu.test" ./test/gpu
	go build -tags cuda -o "$dir/putblock-gpu" ./examples/putblock-gpu
	go build -o "$dir/gshmem" ./cmd/gshmem || echo "warning: cmd/gshmem did not build; putblock-gpu as processes is skipped"
	ref="$root/../shared/reference/gpu"
	[ -d "$root/shared/reference/gpu" ] && ref="$root/shared/reference/gpu"
	# Without the NVSHMEM reference the build goes on (everything else runs),
	# and every run's summary says that its anchor was not run.
	cp "$ref"/putbw.cu "$ref"/run.sh "$dir/ref/" 2>/dev/null ||
		echo "warning: no NVSHMEM reference at $ref: the run's NVSHMEM anchor will not run, and its summary will say so"
	cp "$0" "$dir/run.sh"
	cp "$root/test/gpu/nccl_allreduce.py" "$root/test/gpu/nvshmem_stream.cu" "$dir/"
	if GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/abi" >/dev/null; then
		for c in compat/abi/testdata/cudacoll.c compat/abi/testdata/cudanbc.c compat/abi/testdata/cudap2p.c test/gpu/testdata/cudap2p_bench.c; do
			b=$(basename "$c" .c)
			cc -Wall -Wextra -Werror -I "$dir/abi/include" -I compat/abi/testdata -o "$dir/abi/$b" "$c" \
				-L "$dir/abi/lib" -lmpi_abi -lcuda -Wl,-rpath,'$ORIGIN/lib' || echo "warning: $b did not build"
		done
	else
		echo "warning: the cuda-tagged C ABI did not build; 'run.sh abi' will fail"
	fi
	# gshmem.h on the device heap and its on-stream calls, and the C Jacobi
	# of stage 3 with the Go one to compare it with (run.sh cabi).
	if [ -f "$dir/abi/lib/libmpi_abi.so.1" ]; then
		"$dir/abi/bin/mpicc" -Wall -Wextra -Werror -o "$dir/abi/gshmem_stream" compat/abi/testdata/gshmem_stream.c \
			-lcuda -Wl,-rpath,'$ORIGIN/lib' || echo "warning: gshmem_stream did not build"
		nvcc -O2 -fmad=false -arch=sm_90 -I "$dir/abi/include" -o "$dir/abi/stage3_stream" examples/c/jacobi-gpu/stage3_stream.cu \
			-L "$dir/abi/lib" -lmpi_abi -Xlinker -rpath -Xlinker '$ORIGIN/lib' || echo "warning: stage3_stream did not build"
		go build -o "$dir/jacobi" ./examples/jacobi
		# The C ladder's sources for the GPU machine's nvcc (run.sh cjacobi),
		# and the programs built here as a fallback.
		mkdir -p "$dir/jacobi-gpu/prebuilt"
		cp examples/c/jacobi-gpu/*.cu examples/c/jacobi-gpu/*.cuh "$dir/jacobi-gpu/"
		for s in stage1_mpi stage2_win stage3_stream; do
			nvcc -O2 -fmad=false -arch=sm_90 -I "$dir/abi/include" -o "$dir/jacobi-gpu/prebuilt/$s" examples/c/jacobi-gpu/$s.cu \
				-L "$dir/abi/lib" -lmpi_abi -Xlinker -rpath -Xlinker '$ORIGIN/lib' || echo "warning: $s did not build"
		done
	fi
	ls -la "$dir" "$dir/ref"
	exit 0
fi

if [ "$cmd" = build-p2pab ]; then
	set -e
	cd "$root"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	ex=$(git rev-parse --git-path info/exclude)
	git check-ignore -q "$dir" 2>/dev/null || case $dir in "$root"/*) echo "/${dir#"$root"/}/" >>"$ex" ;; esac
	rm -rf "$dir/before" "$dir/after"
	GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/after/abi" >/dev/null
	src=$(mktemp -d)
	git archive "${BASE:-main}" | tar -x -C "$src"
	(cd "$src" && GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/before/abi" >/dev/null)
	rm -rf "$src" "$dir/before/abi/bin" # after's launcher runs both
	for ab in before after; do
		strip --strip-unneeded "$dir/$ab/abi/lib/libmpi_abi.so.1"
		for c in compat/abi/testdata/cudap2p.c compat/abi/testdata/cudacoll.c test/gpu/testdata/cudap2p_bench.c; do
			cc -Wall -Wextra -I "$dir/$ab/abi/include" -I compat/abi/testdata -o "$dir/$ab/$(basename "$c" .c)" "$c" \
				-L "$dir/$ab/abi/lib" -lmpi_abi -lcuda -Wl,-rpath,'$ORIGIN/abi/lib'
		done
	done
	go test -c -tags cuda -ldflags="-s -w" -o "$dir/gpu.test" ./test/gpu
	cp test/gpu/mpi4py_cupy_pingpong.py "$dir/"
	if [ -n "${OSU:-}" ]; then
		rm -rf "$dir/osu" && mkdir -p "$dir/osu" && (cd "$OSU" && tar --exclude=autom4te.cache -cf - .) | tar -x -C "$dir/osu"
	fi
	cp "$0" "$dir/run.sh"
	du -sh "$dir"
	exit 0
fi

if [ "$cmd" = build-ckern ]; then
	# On a machine with Go: the cuda-tagged library and gshmem (for gshmem
	# nvcc), the stage-4 sources for the GPU machine's nvcc, kern_drv (C)
	# and, as a fallback, the programs built by this machine's nvcc.
	set -e
	cd "$root"
	ex=$(git rev-parse --git-path info/exclude)
	git check-ignore -q "$dir" || { mkdir -p "$(dirname "$ex")" && echo "/$dir/" >>"$ex"; }
	mkdir -p "$dir/ckern/prebuilt"
	GOFLAGS=-tags=cuda go run ./cmd/gshmem abi install --prefix "$dir/abi" >/dev/null
	t=compat/abi/testdata
	cp $t/kern_*.cu $t/kern_ops.cuh $t/kern_main.h $t/kern_nv.h $t/shmcheck.h "$dir/ckern/"
	"$dir/abi/bin/mpicc" -Wall -Wextra -Werror -o "$dir/ckern/kern_drv" $t/kern_drv.c -lcuda -Wl,-rpath,'$ORIGIN/../abi/lib'
	if command -v nvcc >/dev/null; then
		g="$dir/abi/bin/gshmem nvcc --prefix $dir/abi -arch=sm_90 -O3"
		$g -o "$dir/ckern/prebuilt/kern_rt" $t/kern_rt.cu -Xlinker -rpath,'$ORIGIN/../../abi/lib'
		$g -rdc=true -o "$dir/ckern/prebuilt/kern_rdc" $t/kern_rdc_main.cu $t/kern_rdc_dev.cu -Xlinker -rpath,'$ORIGIN/../../abi/lib'
		$g -cubin -o "$dir/ckern/prebuilt/kern_mod.cubin" $t/kern_mod.cu
		$g -rdc=true -o "$dir/ckern/prebuilt/kern_nvstyle" $t/kern_nvstyle.cu -L"$dir/abi/lib" -lgshmem_device -Xlinker -rpath,'$ORIGIN/../../abi/lib'
	fi
	cp "$0" "$dir/run.sh"
	ls -la "$dir" "$dir/ckern"
	exit 0
fi

mgpm=
case $cmd in nvjacobi | nvshjacobi)
	mgpm=$([ -n "${3:-}" ] && cd "$3" && pwd) || { echo "usage: $0 $cmd DIR MGPM (MGPM: a copy of multi-gpu-programming-models' mpi and mpi_overlap, or nvshmem)"; exit 2; } ;;
esac
cd "$root/$dir" 2>/dev/null || cd "$dir" || { echo "no $dir: run '$0 build' first"; exit 1; }
out=${OUT:-$PWD/logs}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export GSHMEM_BOOTSTRAP_TIMEOUT=120s
fails=()
unrun=() # anchors not run, each with why: the summary names them
step() { # name timeout command...
	local name=$1 t=$2
	shift 2
	echo "=== $name: $*" | tee -a "$out/steps.log"
	local s=$SECONDS
	timeout -k 10 "$t" "$@" >"$out/$name.log" 2>&1
	local rc=$?
	echo "=== $name: rc=$rc in $((SECONDS - s)) s" | tee -a "$out/steps.log"
	[ $rc = 0 ] || { fails+=("$name"); tail -40 "$out/$name.log"; }
	return 0
}

mps_start() {
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
	mkdir -p /tmp/mps /tmp/mpslog
	nvidia-cuda-mps-control -d && echo "MPS started" | tee -a "$out/steps.log"
}
mps_stop() { echo quit | nvidia-cuda-mps-control; sleep 1; }
# anchor_absent records an anchor (a reference measurement of the same
# sitting) that could not run; summary names it.
anchor_absent() { # name why
	unrun+=("$1 ($2)")
	echo "=== anchor not run: $1: $2" | tee -a "$out/steps.log"
}
# summary ends a subcommand: its failed steps and the anchors it did not
# run, whose figures are then missing; the exit status is the steps'.
summary() {
	echo "failed steps: ${fails[*]:-none}"
	[ ${#unrun[@]} = 0 ] || echo "anchors NOT run (no reference figures beside these): ${unrun[*]}"
	[ ${#fails[@]} = 0 ]
}
figures() { # extra logs to take BENCH lines from...
	echo "================ figures (gshmem) ================"
	grep -h "BENCH" "$out"/bench-*.log "$@" 2>/dev/null | sed 's/^\[pe [0-9]\] //' | sort -u
	echo "================ figures (NVSHMEM 3.4 reference) ================"
	grep -hE "GB/s|us" "$out/nvshmem-ref.log" 2>/dev/null | grep -v "^===" | head -20
	echo "================ correctness ================"
	grep -hE "^(--- |ok|FAIL|PASS)|verified" "$out"/suite-*.log "$out"/putblock-*.log 2>/dev/null
	summary
}

{
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv
	nvidia-smi topo -m 2>/dev/null | head -5
	uname -r
} >"$out/machine.log" 2>&1
cat "$out/machine.log"

if [ "$cmd" = coll ]; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	step suite-inproc 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteInProcess|TestGPUComplexReduce' -test.v -test.timeout 145s
	step coll-inproc 150 env GSHMEM_GPU_COLL=1 GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUCollBenchInProcess' -test.v -test.timeout 145s
	mps_start
	step suite-procs-mps 130 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 125s
	step coll-procs-mps 100 env GSHMEM_GPU_COLL=1 GSHMEM_GPU_MPS=1 GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUCollBenchProcesses' -test.v -test.timeout 95s
	mps_stop
	step nccl-allreduce 40 torchrun --standalone --nproc_per_node="$((ngpu > 1 ? ngpu : 2))" nccl_allreduce.py
	figures "$out"/coll-*.log "$out"/nccl-*.log
	exit
fi

if [ "$cmd" = compat ]; then
	step compat-inproc 150 env GSHMEM_GPU_NPES=2,3,4 ./gpu.test -test.run 'TestGPUCompatInProcess' -test.v -test.timeout 145s
	step compatbench-inproc 100 env GSHMEM_GPU_COMPAT_BENCH=1 ./gpu.test -test.run TestGPUCompatBenchInProcess -test.v -test.timeout 95s
	mps_start
	step compat-procs-mps 100 env GSHMEM_GPU_NPES=2,3,4 ./gpu.test -test.run TestGPUCompatProcesses -test.v -test.timeout 95s
	step compatbench-procs-mps 100 env GSHMEM_GPU_COMPAT_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUCompatBenchProcesses -test.v -test.timeout 95s
	mps_stop
	grep -h "BENCH compat" "$out"/compatbench-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
	grep -h "compat on device buffers" "$out"/compat-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
	summary
	exit
fi

if [ "$cmd" = abi ]; then
	export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
	mps_start
	for n in 2 4; do
		step "abi-cudacoll-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/cudacoll
		step "abi-cudap2p-$n-mps" 120 ./abi/bin/gshmem run -n $n ./abi/cudap2p
	done
	# 3 members, and a 16 KiB scratch: the device collectives in many pieces.
	step abi-cudacoll-3-mps 60 ./abi/bin/gshmem run -n 3 ./abi/cudacoll
	step abi-cudacoll-4-mps-scratch16k 60 env GSHMEM_MPI_SCRATCH=16k ./abi/bin/gshmem run -n 4 ./abi/cudacoll
	for n in 2 3 4; do
		step "abi-cudanbc-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/cudanbc
	done
	step abi-bench-mps 90 ./abi/bin/gshmem run -n 2 ./abi/cudap2p_bench
	mps_stop
	step abi-cudacoll-2 60 ./abi/bin/gshmem run -n 2 ./abi/cudacoll
	step abi-cudanbc-2 60 ./abi/bin/gshmem run -n 2 ./abi/cudanbc
	step abi-cudap2p-2 120 ./abi/bin/gshmem run -n 2 ./abi/cudap2p
	grep -h "cudacoll:\|cudanbc:\|cudap2p:\|BENCH" "$out"/abi-*.log
	summary
	exit
fi

if [ "$cmd" = p2pab ]; then
	export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
	L=./after/abi/bin/gshmem
	{ command -v ompi_info && ompi_info --version && ompi_info --parsable --all | grep -i cuda; } >"$out/ompi-cuda.log" 2>&1
	cat "$out/ompi-cuda.log"
	mps_start
	for n in 2 4; do step "cudap2p-after-$n-mps" 120 $L run -n $n ./after/cudap2p; done
	step memkind-inproc 60 ./gpu.test -test.run TestGPUMemKind -test.v -test.timeout 55s
	step p2p-go-procs-mps 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run TestGPUP2PProcesses -test.v -test.timeout 145s
	for round in 1 2; do
		for ab in before after; do
			step "bench-$ab-$round" 60 $L run -n 2 ./$ab/cudap2p_bench
			step "bench-hostbuf-$ab-$round" 60 $L run -n 2 ./$ab/cudap2p_bench host
		done
	done
	for ab in before after; do step "bench-hostjob-$ab" 60 env GSHMEM_HEAP=host $L run -n 2 ./$ab/cudap2p_bench host; done
	# The anchor: another library's figure in the same sitting.
	if grep -q "mpi_built_with_cuda_support:value:true" "$out/ompi-cuda.log" && [ -d osu ]; then
		cu=$(dirname "$(dirname "$(command -v nvcc)")")
		step osu-build 150 bash -c "rm -rf /tmp/osub && mkdir -p /tmp/osub && cd /tmp/osub && $PWD/osu/configure CC=mpicc CXX=mpicxx --enable-cuda --with-cuda-include=$cu/include --with-cuda-libpath=$cu/lib64 && make -j16 -C c/mpi/pt2pt/standard osu_latency"
		o=/tmp/osub/c/mpi/pt2pt/standard/osu_latency
		for bufs in "D D" "H H"; do
			step "osu-latency-${bufs// /}-mps" 60 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
				$o -d cuda -m 8:1048576 $bufs
		done
	else
		echo "anchor: the machine's Open MPI is not CUDA-aware (ompi-cuda.log), or no OSU copy; mpi4py and CuPy instead" | tee -a "$out/steps.log"
		if python3 -c "import mpi4py, cupy" >>"$out/steps.log" 2>&1 && [ -f mpi4py_cupy_pingpong.py ]; then
			for m in staged direct; do
				step "anchor-mpi4py-$m-mps" 90 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
					python3 mpi4py_cupy_pingpong.py $m
			done
		else
			echo "no mpi4py/cupy" | tee -a "$out/steps.log"
		fi
	fi
	mps_stop
	for f in "$out"/bench-*.log "$out"/anchor-*.log; do [ -f "$f" ] && grep -h BENCH "$f" | sed "s|^|$(basename "$f" .log): |"; done
	grep -h "memkind\|cudap2p:" "$out"/memkind-*.log "$out"/cudap2p-*.log | sed 's/^ *\[pe [0-9]*\] //' | sort -u
	grep -hE "^# |^[0-9]+ " "$out"/osu-latency-*.log 2>/dev/null
	summary
	exit
fi

if [ "$cmd" = p2pcheck ]; then
	step suites-inproc 200 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUP2PInProcess|TestGPUCompatInProcess|TestGPUSuiteInProcess' -test.v -test.timeout 195s
	step copycost-inproc 60 env GSHMEM_GPU_P2P_BENCH=1 ./gpu.test -test.run TestGPUCopyCosts -test.v -test.timeout 55s
	mps_start
	step copycost-mps 60 env GSHMEM_GPU_P2P_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUCopyCosts -test.v -test.timeout 55s
	[ -x ./after/cudacoll ] && step cudacoll-after-4-mps 60 env GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m ./after/abi/bin/gshmem run -n 4 ./after/cudacoll
	{
		command -v mpirun ompi_info ucx_info nvcc
		ompi_info --version 2>&1 | head -2
		ompi_info --parsable --all 2>&1 | grep -iE "cuda|accelerator" | head -20
		ompi_info 2>&1 | grep -iE "MCA (pml|btl|accelerator)" | head -20
		ucx_info -v 2>&1 | head -3
		ucx_info -d 2>&1 | grep -iE "transport|cuda" | head -20
		python3 -c "import mpi4py; print('mpi4py', mpi4py.__version__)" 2>&1 | tail -1
		python3 -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1
	} >"$out/anchor-env.log" 2>&1
	if [ -d osu ] && command -v mpicc >/dev/null; then
		cu=$(dirname "$(dirname "$(command -v nvcc)")")
		step osu-build 120 bash -c "rm -rf /tmp/osub && mkdir -p /tmp/osub && cd /tmp/osub && $PWD/osu/configure CC=mpicc CXX=mpicxx --enable-cuda --with-cuda-include=$cu/include --with-cuda-libpath=$cu/lib64 >/dev/null && make -j16 -C c/mpi/pt2pt/standard osu_latency >/dev/null"
		o=/tmp/osub/c/mpi/pt2pt/standard/osu_latency
		for bufs in "D D" "H H"; do
			[ -x $o ] && step "osu-latency-${bufs// /}-mps" 40 mpirun --allow-run-as-root --oversubscribe -np 2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
				$o -d cuda -m 8:1048576 -i 2000 $bufs
		done
	fi
	mps_stop
	grep -h "^--- \|^ok\|^FAIL" "$out"/suites-inproc.log | grep -v "^    ---" | head -40
	grep -h "BENCH copycost" "$out"/copycost-*.log | sed 's/^ *\[pe [0-9]*\] //'
	grep -h "cudacoll:" "$out"/cudacoll-*.log 2>/dev/null
	echo "---- anchor-env.log"; cat "$out/anchor-env.log"
	for f in "$out"/osu-*.log; do [ -f "$f" ] && { echo "---- $(basename "$f")"; tail -25 "$f"; }; done
	summary
	exit
fi

if [ "$cmd" = p2p ]; then
	step p2p-inproc 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUP2PInProcess' -test.v -test.timeout 145s
	step p2pbench-inproc 90 env GSHMEM_GPU_P2P_BENCH=1 ./gpu.test -test.run TestGPUP2PBenchInProcess -test.v -test.timeout 85s
	mps_start
	step p2p-procs-mps 150 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run TestGPUP2PProcesses -test.v -test.timeout 145s
	step p2pbench-procs-mps 90 env GSHMEM_GPU_P2P_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run TestGPUP2PBenchProcesses -test.v -test.timeout 85s
	mps_stop
	grep -h "BENCH" "$out"/p2pbench-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
	grep -h "compat p2p on device buffers" "$out"/p2p-*.log | sed 's/^ *\[pe [0-9]\] //' | sort -u
	summary
	exit
fi

if [ "$cmd" = cabi ]; then
	# gshmem_init alone puts the heap on the GPU in the cuda build.
	export GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	mps_start
	for n in 2 4; do
		step "cabi-stream-$n-mps" 60 ./abi/bin/gshmem run -n $n ./abi/gshmem_stream
	done
	step cabi-perf-mps 45 ./abi/bin/gshmem run -n 2 ./abi/gshmem_stream perf
	# The same with each process held to half the GPU's threads, the
	# condition under which NVSHMEM allows its on-stream signal calls on
	# processes that share a GPU (below).
	step cabi-perf-mps50 45 env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 ./abi/bin/gshmem run -n 2 ./abi/gshmem_stream perf
	# The C Jacobi of stage 3 (examples/c/jacobi-gpu/stage3_stream.cu) prints
	# the Go program's line for the same grid.
	if [ -x ./abi/stage3_stream ] && [ -x ./jacobi ]; then
		for g in "-n 256 -iters 100" "-n 512 -iters 200"; do
			name="cabi-jacobi3-$(echo "$g" | tr -d ' -')"
			step "$name" 60 ./abi/bin/gshmem run -n 2 ./abi/stage3_stream $g
			step "$name-go" 60 ./abi/bin/gshmem run -n 2 ./jacobi -stage 3 $g
			c=$(grep -o 'residual=.*' "$out/$name.log") g2=$(grep -o 'residual=.*' "$out/$name-go.log")
			echo "jacobi $g: C stage3_stream: $c; Go examples/jacobi: $g2" | tee -a "$out/steps.log"
			[ -n "$c" ] && [ "$c" = "$g2" ] || fails+=("$name (differs from Go)")
		done
	fi
	[ -x ./gpu.test ] && step cabi-goperf-mps 45 env GSHMEM_GPU_CABI=1 ./gpu.test -test.run TestGPUStreamFiguresProcesses -test.v -test.timeout 40s
	# NVSHMEM's figures in the same shapes (test/gpu/nvshmem_stream.cu),
	# from the machine's pip wheel, under Open MPI.
	if [ -f nvshmem_stream.cu ] && NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null); then
		ln -sf "$NV/lib/libnvshmem_host.so.3" "$NV/lib/libnvshmem_host.so" 2>/dev/null
		step cabi-nvshmem-build 60 nvcc -O3 -rdc=true -arch=sm_90 -I"$NV/include" nvshmem_stream.cu -o /tmp/nvshmem_stream \
			-L"$NV/lib" -lnvshmem_host -lnvshmem_device -lcuda
		step cabi-nvshmem-mps 45 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
			-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 \
			-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=256M -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/nvshmem_stream
	else
		anchor_absent cabi-nvshmem "no nvshmem_stream.cu or no NVSHMEM wheel (python3 -c 'import nvidia.nvshmem')"
	fi
	mps_stop
	grep -h "^jacobi .*: C stage3_stream" "$out/steps.log"
	grep -h "gshmem_stream ok" "$out"/cabi-stream-*.log | sed 's/^ *\[pe [0-9]*\] //' | sort | uniq -c
	grep "BENCH" "$out"/cabi-*.log | sed "s|^$out/||; s/\.log:/: /; s/\[pe [0-9]*\] //"
	summary
	exit
fi

if [ "$cmd" = ckern ]; then
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	export GSHMEM_NVCC=$nvcc LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
	# The user's own nvcc (this machine's), in parallel: the three builds.
	g="./abi/bin/gshmem nvcc --prefix abi -arch=sm_90 -O3"
	b=ckern/built && mkdir -p $b
	$g -o $b/kern_rt ckern/kern_rt.cu >"$out/ckern-build-rt.log" 2>&1 &
	$g -rdc=true -o $b/kern_rdc ckern/kern_rdc_main.cu ckern/kern_rdc_dev.cu >"$out/ckern-build-rdc.log" 2>&1 &
	$g -cubin -o $b/kern_mod.cubin ckern/kern_mod.cu >"$out/ckern-build-mod.log" 2>&1 &
	# NVSHMEM's shape: gshmem.h and gshmemx.h only, -rdc, the state from
	# libgshmem_device.a (built here by this nvcc).
	{ ./abi/bin/gshmem nvcc --prefix abi --device-lib -arch=sm_90 &&
		$g -rdc=true -o $b/kern_nvstyle ckern/kern_nvstyle.cu -Labi/lib -lgshmem_device; } >"$out/ckern-build-nvstyle.log" 2>&1 &
	wait
	for f in kern_rt kern_rdc kern_mod.cubin kern_nvstyle; do
		[ -s $b/$f ] || { echo "=== $f did not build with $nvcc (log: ckern-build-*.log): the prebuilt one runs" | tee -a "$out/steps.log"
			fails+=("ckern-build-$f"); cp ckern/prebuilt/$f $b/ 2>/dev/null; }
	done
	export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m
	mps_start
	for n in 2 4; do
		step "ckern-rt-$n-mps" 60 ./abi/bin/gshmem run -n $n $b/kern_rt
	done
	step ckern-rdc-2-mps 60 ./abi/bin/gshmem run -n 2 $b/kern_rdc
	for n in 2 4; do
		step "ckern-nvstyle-$n-mps" 60 ./abi/bin/gshmem run -n $n $b/kern_nvstyle
	done
	step ckern-drv-2-mps 60 ./abi/bin/gshmem run -n 2 ./ckern/kern_drv $b/kern_mod.cubin
	step ckern-bench-mps 90 env GSHMEM_SYMMETRIC_SIZE=3g ./abi/bin/gshmem run -n 2 $b/kern_rt bench
	# The same source against NVSHMEM (the machine's pip wheel), renamed.
	if NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null); then
		ln -sf "$NV/lib/libnvshmem_host.so.3" "$NV/lib/libnvshmem_host.so" 2>/dev/null
		mkdir -p /tmp/kern_nv && cp ckern/kern_nv.h /tmp/kern_nv/
		for f in kern_rt.cu kern_ops.cuh kern_main.h shmcheck.h; do
			sed 's|<gshmem.cuh>|"kern_nv.h"|; s/gshmem/nvshmem/g; s/GSHMEM/NVSHMEM/g' ckern/$f >/tmp/kern_nv/$f
		done
		diff -r ckern /tmp/kern_nv >"$out/ckern-nvshmem-rename.diff" 2>&1
		step ckern-nvshmem-build 120 "$nvcc" -O3 -rdc=true -arch=sm_90 -I"$NV/include" /tmp/kern_nv/kern_rt.cu -o /tmp/kern_nv/kern_rt \
			-L"$NV/lib" -lnvshmem_host -lnvshmem_device -lcuda
		step ckern-nvshmem-ops-mps 60 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
			-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 \
			-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=256M -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/kern_nv/kern_rt
		step ckern-nvshmem-bench-mps 90 env LD_LIBRARY_PATH="$NV/lib:$LD_LIBRARY_PATH" mpirun --allow-run-as-root --oversubscribe -np 2 \
			-x LD_LIBRARY_PATH -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x NVSHMEM_DISABLE_NVLS=1 \
			-x NVSHMEM_BOOTSTRAP=MPI -x NVSHMEM_SYMMETRIC_SIZE=3G -x NVSHMEM_REMOTE_TRANSPORT=none /tmp/kern_nv/kern_rt bench
	else
		anchor_absent ckern-nvshmem "no NVSHMEM wheel (python3 -c 'import nvidia.nvshmem')"
	fi
	mps_stop
	grep -H "kern ok\|kern_drv ok\|kern nvstyle ok" "$out"/ckern-*.log | sed 's|^[^:]*/||; s/\.log:.*\] /: /; s/\.log:/: /' | sort | uniq -c
	echo "gshmem:"
	grep -h "BENCH\|kern putbw grid" "$out"/ckern-bench-mps.log | sed 's/^ *\[pe [0-9]*\] //'
	echo "NVSHMEM (same source, renamed):"
	grep -h "BENCH\|kern putbw grid" "$out"/ckern-nvshmem-bench-mps.log 2>/dev/null | sed 's/^ *\[pe [0-9]*\] //'
	summary
	exit
fi

if [ "$cmd" = cjacobi ]; then
	# The C ladder, built here by the user's own nvcc (this machine's), in
	# parallel; a program that does not build runs from the prebuilt copy
	# and the build counts as failed. Binaries go to abi/ so that their
	# rpath $ORIGIN/lib finds the library.
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
	export GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$PWD/abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	stages=(1:stage1_mpi 2:stage2_win 3:stage3_stream)
	[ -f jacobi-gpu/stage4_kernel.cu ] && stages+=(4:stage4_kernel)
	for st in "${stages[@]}"; do
		s=${st#*:}
		rm -f abi/$s
		if [ "$s" = stage4_kernel ]; then # device code: gshmem nvcc adds gshmem.cuh's flags
			./abi/bin/gshmem nvcc --prefix abi -O2 -fmad=false -arch=sm_90 -o abi/$s jacobi-gpu/$s.cu \
				-Xlinker -rpath -Xlinker '$ORIGIN/lib' >"$out/cjacobi-build-$s.log" 2>&1 &
		else
			"$nvcc" -O2 -fmad=false -arch=sm_90 -I abi/include -o abi/$s jacobi-gpu/$s.cu -L abi/lib -lmpi_abi \
				-Xlinker -rpath -Xlinker '$ORIGIN/lib' >"$out/cjacobi-build-$s.log" 2>&1 &
		fi
	done
	wait
	for st in "${stages[@]}"; do
		s=${st#*:}
		[ -x abi/$s ] && continue
		echo "=== $s did not build with $nvcc (cjacobi-build-$s.log): the prebuilt one runs" | tee -a "$out/steps.log"
		fails+=("cjacobi-build-$s")
		cp jacobi-gpu/prebuilt/$s abi/ 2>/dev/null
	done
	mps_start
	# C on a device heap (where the library is CUDA-aware and windows are
	# GPU memory); Go on a host heap (its blocks are Go slices).
	for np in 2 3; do
		for g in "-n 256 -iters 100" "-n 511 -iters 200"; do
			[ $np = 3 ] && [ "$g" != "-n 511 -iters 200" ] && continue
			for st in "${stages[@]}"; do
				k=${st%%:*} s=${st#*:}
				[ $np = 3 ] && [ $k -gt 2 ] && continue
				[ -x abi/$s ] || { fails+=("$s (no binary)"); continue; }
				name="cjacobi-$k-$np-$(echo "$g" | tr -d ' -')"
				step "$name" 30 env GSHMEM_HEAP=device ./abi/bin/gshmem run -n $np ./abi/$s $g
				step "$name-go" 30 ./abi/bin/gshmem run -n $np ./jacobi -stage $k $g
				c=$(grep -o 'stage=.*' "$out/$name.log") g2=$(grep -o 'stage=.*' "$out/$name-go.log")
				echo "jacobi $np PEs $g: C $s: $c; Go examples/jacobi: $g2" | tee -a "$out/steps.log"
				[ -n "$c" ] && [ "$c" = "$g2" ] || fails+=("$name (differs from Go)")
			done
		done
	done
	mps_stop
	grep -h "^jacobi .* PEs" "$out/steps.log"
	summary
	exit
fi

if [ "$cmd" = nvjacobi ]; then
	# NVIDIA's mpi and mpi_overlap Jacobi, unmodified, built by their own
	# Makefiles in a scratch copy: NVCC is this machine's, MPICXX a wrapper
	# around gshmem mpicxx naming this installation (abi/bin/mpicxx holds
	# the build machine's absolute path).
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
	[ -f "$cuda_home/include/cuda_runtime.h" ] || cuda_home=/usr/local/cuda
	"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
	echo "CUDA_HOME=$cuda_home; nvtx3: $(ls -d "$cuda_home"/include/nvtx3 2>&1)" | tee -a "$out/steps.log"
	w=$PWD/abi/mpicxx-here
	printf '#!/bin/sh\nexec "%s/abi/bin/gshmem" mpicxx --prefix "%s/abi" "$@"\n' "$PWD" "$PWD" >"$w"
	chmod +x "$w"
	command -v c++ >/dev/null || export GSHMEM_CXX=g++
	b=/tmp/mgpm-build
	rm -rf $b && mkdir -p $b && cp -r "$mgpm"/mpi "$mgpm"/mpi_overlap $b/
	# Their Makefile as it is first; then, only where that fails, make's
	# command-line overrides of their flag variables (never their code):
	# CUDA 13's CUB wants C++17 where they say -std=c++14, and NVTX's
	# header is not in every CUDA. The log names the one that built.
	gen="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
	tries=("" "NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17"
		"NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17|MPICXX_FLAGS=-DUSE_NVTX -I$cuda_home/include -std=c++17"
		"NVCC_FLAGS=-DHAVE_CUB -lineinfo $gen -std=c++17|MPICXX_FLAGS=-I$cuda_home/include -std=c++17")
	nvbuild() { # variant
		local v=$1 t
		for t in "${tries[@]}"; do
			local -a over=()
			[ -n "$t" ] && IFS='|' read -r -a over <<<"$t"
			echo "=== make ${over[*]:-(their flags)}" >>"$out/nvjacobi-build-$v.log"
			make -C $b/$v clean >/dev/null 2>&1
			if make -C $b/$v NVCC="$nvcc" MPICXX="$w" CUDA_HOME="$cuda_home" BUILD_SM_ARCH=90 "${over[@]}" jacobi \
				>>"$out/nvjacobi-build-$v.log" 2>&1; then
				echo "=== nvjacobi-build-$v: built with make ${over[*]:-(their flags)}" >>"$out/steps.log"
				return 0
			fi
		done
		return 1
	}
	for v in mpi mpi_overlap; do
		: >"$out/nvjacobi-build-$v.log"
		nvbuild $v &
	done
	wait
	for v in mpi mpi_overlap; do
		grep "=== nvjacobi-build-$v:" "$out/steps.log"
		[ -x $b/$v/jacobi ] && continue
		fails+=("nvjacobi-build-$v")
		echo "=== nvjacobi-build-$v failed:"
		grep -i -m8 "error\|not found" "$out/nvjacobi-build-$v.log"
	done
	export GSHMEM_HEAP=device GSHMEM_SYMMETRIC_SIZE=256m LD_LIBRARY_PATH="$cuda_home/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	mps_start
	for v in mpi mpi_overlap; do
		[ -x $b/$v/jacobi ] || continue
		step "nvjacobi-$v-2-mps" 60 ./abi/bin/gshmem run -n 2 $b/$v/jacobi -niter 200 -nx 1024 -ny 1024
		# Their check: every rank compares its rows with a single-GPU run
		# (tolerance 1e-8); rank 0 prints "Num GPUs: 2." and the speedup
		# only when all match, and the exit status is 1 when one does not.
		if grep -q "^Num GPUs: 2\." "$out/nvjacobi-$v-2-mps.log" && ! grep -q "^ERROR" "$out/nvjacobi-$v-2-mps.log"; then
			echo "nvjacobi $v: their correctness check passed: $(grep -A1 '^Num GPUs' "$out/nvjacobi-$v-2-mps.log" | tail -1)" | tee -a "$out/steps.log"
		else
			echo "nvjacobi $v: their correctness check did not pass" | tee -a "$out/steps.log"
			fails+=("nvjacobi-$v (check)")
		fi
	done
	mps_stop
	summary
	exit
fi

if [ "$cmd" = nvshjacobi ]; then
	# NVIDIA's nvshmem Jacobi with nvshmem renamed to gshmem (the sed below,
	# nothing else in their code), built by their Makefile with only its
	# libraries named for gshmem (-lnvshmem: libgshmem_device.a, built here
	# by this machine's nvcc, and libmpi_abi) and NVSHMEM_HOME the gshmem
	# installation; their -ccbin=mpic++ is gshmem mpicxx.
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
	[ -f "$cuda_home/include/cuda_runtime.h" ] || cuda_home=/usr/local/cuda
	"$nvcc" --version 2>&1 | tail -2 | tee -a "$out/steps.log"
	mkdir -p abi/ccbin
	printf '#!/bin/sh\nexec "%s/abi/bin/gshmem" mpicxx --prefix "%s/abi" "$@"\n' "$PWD" "$PWD" >abi/ccbin/mpic++
	chmod +x abi/ccbin/mpic++
	export PATH="$PWD/abi/ccbin:$PATH"
	command -v c++ >/dev/null || export GSHMEM_CXX=g++
	step nvshjacobi-devlib 120 env GSHMEM_NVCC="$nvcc" ./abi/bin/gshmem nvcc --prefix abi --device-lib -arch=sm_90
	b=/tmp/mgpm-nvsh
	rm -rf $b && mkdir -p $b && cp "$mgpm"/nvshmem/jacobi.cu "$mgpm"/nvshmem/Makefile $b/
	rename='sed -e s/nvshmem/gshmem/g -e s/NVSHMEM/GSHMEM/g'
	echo "=== renaming: $rename jacobi.cu" | tee -a "$out/steps.log"
	$rename "$mgpm"/nvshmem/jacobi.cu >$b/jacobi.cu
	# The renamed identifiers (the diff's lines, reduced to the names).
	diff "$mgpm"/nvshmem/jacobi.cu $b/jacobi.cu | grep -o 'gshmem[a-z0-9_]*\|GSHMEM[A-Z0-9_]*' | sort | uniq -c >"$out/nvshjacobi-renamed.txt"
	sed -i 's/-lnvshmem /-lgshmem_device -lmpi_abi /' $b/Makefile
	diff "$mgpm"/nvshmem/Makefile $b/Makefile >"$out/nvshjacobi-makefile.diff"
	cat "$out/nvshjacobi-makefile.diff"
	# Their Makefile first; then, only where the link fails, the libraries'
	# paths: libnvidia-ml may be only the driver's .so.1 (CUDA's stubs
	# have the .so), and nothing of gshmem uses it.
	ld="-ccbin=mpic++ -L$PWD/abi/lib -lgshmem_device -lmpi_abi -L$cuda_home/lib64 -lcuda -lcudart -ldl"
	tries=("" "NVCC_LDFLAGS=$ld -L$cuda_home/lib64/stubs -lnvidia-ml" "NVCC_LDFLAGS=$ld")
	: >"$out/nvshjacobi-build.log"
	for t in "${tries[@]}"; do
		over=()
		[ -n "$t" ] && over=("$t")
		echo "=== make ${over[*]:-(their Makefile)}" >>"$out/nvshjacobi-build.log"
		make -C $b clean >/dev/null 2>&1
		if make -C $b NVCC="$nvcc" NVSHMEM_HOME="$PWD/abi" CUDA_HOME="$cuda_home" BUILD_SM_ARCH=90 "${over[@]}" jacobi \
			>>"$out/nvshjacobi-build.log" 2>&1; then
			echo "=== nvshjacobi-build: built with make ${over[*]:-(their Makefile)}" | tee -a "$out/steps.log"
			break
		fi
	done
	if ! [ -x $b/jacobi ]; then
		fails+=("nvshjacobi-build")
		grep -i -m12 "error\|not found\|undefined" "$out/nvshjacobi-build.log"
	fi
	export GSHMEM_HEAP=device LD_LIBRARY_PATH="$PWD/abi/lib:$cuda_home/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	unset GSHMEM_SYMMETRIC_SIZE
	mps_start
	# Their options: the default kernel (gshmem_float_p), the block puts
	# (gshmemx_float_put_nbi_block), the neighbourhood sync (gshmemx_signal_op,
	# gshmem_uint64_wait_until_all) with the norm overlapped; they set
	# GSHMEM_SYMMETRIC_SIZE themselves after MPI_Init. The last run is their
	# default grid, with the size given in the job's environment.
	runs=("default:-niter 200 -nx 1024 -ny 1024" "block:-niter 200 -nx 1024 -ny 1024 -use_block_comm"
		"nbsync:-niter 200 -nx 1024 -ny 1024 -neighborhood_sync -norm_overlap"
		"all:-niter 500 -nx 2048 -ny 2048 -use_block_comm -neighborhood_sync -norm_overlap")
	for r in "${runs[@]}" "full:"; do
		name="nvshjacobi-${r%%:*}-2-mps"
		[ -x $b/jacobi ] || break
		if [ "${r%%:*}" = full ]; then
			step "$name" 90 env GSHMEM_SYMMETRIC_SIZE=2500000000 ./abi/bin/gshmem run -n 2 $b/jacobi
		else
			# shellcheck disable=SC2086
			step "$name" 60 ./abi/bin/gshmem run -n 2 $b/jacobi ${r#*:}
		fi
		if grep -q "^Num GPUs: 2\." "$out/$name.log" && ! grep -q "ERROR" "$out/$name.log"; then
			echo "nvshjacobi ${r%%:*} (${r#*:}): their correctness check passed: $(grep -A1 '^Num GPUs' "$out/$name.log" | tail -1)" | tee -a "$out/steps.log"
		else
			echo "nvshjacobi ${r%%:*}: their correctness check did not pass" | tee -a "$out/steps.log"
			fails+=("$name (check)")
		fi
	done
	mps_stop
	summary
	exit
fi

if [ "$cmd" = multi ]; then
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	{ nvidia-smi -L; nvidia-smi topo -p2p n 2>/dev/null; } >>"$out/machine.log" 2>&1
	echo "GPUs: $ngpu" | tee -a "$out/steps.log"
	step bench-procs-multi 100 env GSHMEM_GPU_BENCH=1 GSHMEM_GPU_PINGPONG=1 GSHMEM_GPU_ALLREDUCE=1 ./gpu.test -test.run 'TestGPUBenchProcesses' -test.v -test.timeout 95s
	step nccl-allreduce 90 torchrun --standalone --nproc_per_node="$ngpu" nccl_allreduce.py
	step suite-procs-multi 60 env GSHMEM_GPU_NPES="$ngpu" ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 55s
	mps_start
	step suite-procs-multi-mps 60 env GSHMEM_GPU_NPES="$((2 * ngpu))" ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 55s
	mps_stop
	if [ -f ref/run.sh ]; then
		step nvshmem-ref 60 bash ref/run.sh
	else
		anchor_absent nvshmem-ref "no ref/run.sh: the build found no NVSHMEM reference"
	fi
	figures "$out"/nccl-*.log
	exit
fi

# 1-3: no MPS.
step suite-inproc 100 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteInProcess' -test.v -test.timeout 95s
step bench-inproc 100 env GSHMEM_GPU_BENCH=1 ./gpu.test -test.run 'TestGPUBenchInProcess' -test.v -test.timeout 95s
step putblock-inproc 40 ./putblock-gpu -inproc 2

# 4: MPS.
mps_start
step suite-procs-mps 100 env GSHMEM_GPU_NPES=2,4 ./gpu.test -test.run 'TestGPUSuiteProcesses' -test.v -test.timeout 95s
if [ -x ./gshmem ]; then
	step putblock-procs-mps 40 ./gshmem run -n 2 ./putblock-gpu
fi
step bench-procs-mps 100 env GSHMEM_GPU_BENCH=1 GSHMEM_GPU_MPS=1 ./gpu.test -test.run 'TestGPUBenchProcesses' -test.v -test.timeout 95s
mps_stop

# 5: the NVSHMEM reference program, same machine, same sitting.
if [ -f ref/run.sh ]; then
	step nvshmem-ref 180 bash ref/run.sh
else
	anchor_absent nvshmem-ref "no ref/run.sh: the build found no NVSHMEM reference"
fi

echo
figures
