#!/usr/bin/env bash
# Installs what `go build -tags cuda` and
# `go generate ./kernels/... ./internal/devstate` need on a Debian
# (bookworm or later) machine: the CUDA driver-API headers and the libcuda
# stub (nvidia-cuda-dev) and nvcc (nvidia-cuda-toolkit, CUDA 11.8, which
# emits sm_90 PTX). Both are in Debian's non-free component, which this
# script enables for the machine's own Debian sources. No GPU is needed: the
# binaries built here run unchanged on a machine with the NVIDIA driver.
#
#   scripts/install-cuda-deps.sh          # headers, stub and nvcc
#   scripts/install-cuda-deps.sh --check  # exit 0 if everything is present
set -euo pipefail

have() {
	[ -f /usr/include/cuda.h ] && command -v nvcc >/dev/null 2>&1 &&
		{ [ -e /usr/lib/x86_64-linux-gnu/libcuda.so ] || [ -e /usr/lib/x86_64-linux-gnu/stubs/libcuda.so ] ||
			ls /usr/lib/*/libcuda.so >/dev/null 2>&1 || ls /usr/lib/*/stubs/libcuda.so >/dev/null 2>&1; }
}

if [ "${1:-}" = "--check" ]; then
	have && exit 0
	echo "CUDA build dependencies missing: run scripts/install-cuda-deps.sh" >&2
	exit 1
fi
if have; then
	echo "CUDA build dependencies already installed: $(nvcc --version | tail -1)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-cuda-deps: run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# Enable contrib and non-free in the machine's own sources (deb822 or
# one-line format), leaving every URI as it is.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	if grep -q '^Components:' "$f" && ! grep -Eq '^Components:.*[[:space:]]non-free([[:space:]]|$)' "$f"; then
		sed -i -E 's/^(Components:.*\bmain\b)(.*)$/\1\2 contrib non-free/' "$f"
	fi
done
if [ -f /etc/apt/sources.list ]; then
	sed -i -E '/^deb .* main/{/ non-free( |$)/!s/ main( |$)/ main contrib non-free\1/}' /etc/apt/sources.list
fi

apt-get update -qq
# nvidia-cuda-toolkit pulls in the 11.8 nvcc and its host compiler (g++-11 or 12).
apt-get install -y -qq --no-install-recommends nvidia-cuda-dev nvidia-cuda-toolkit >/dev/null
have || { echo "install-cuda-deps: packages installed but cuda.h, nvcc or libcuda.so not found" >&2; exit 1; }
echo "CUDA build dependencies installed: $(nvcc --version | tail -1)"
