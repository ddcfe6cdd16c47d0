// gshmem_device.cu: the one definition of the device state for programs
// built with separate compilation (-rdc=true), compiled into
// libgshmem_device.a (gshmem nvcc --device-lib), as NVSHMEM keeps its own in
// libnvshmem_device.a: a program that names -lgshmem_device needs no .cu
// file of its own to define GSHMEM_STATE_DEFINE. Its host part registers
// the state with libmpi_abi at start-up, as a defining unit's does.
#define GSHMEM_STATE_DEFINE
#include "gshmem.cuh"
