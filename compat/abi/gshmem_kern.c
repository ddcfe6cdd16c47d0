//go:build cgo

/* Binding gshmem.cuh's device state into kernels the user compiles with
 * their own nvcc (stage 4). Each translation unit nvcc compiles with
 * gshmem.cuh registers a binder, a host function of the user's program
 * that copies the state into that unit's gshmemi_state with the CUDA
 * runtime (cudaMemcpyToSymbol); registration runs from static
 * constructors, before main and before the Go runtime may be up, so it is
 * plain C here. gshmem_init publishes the state (kern_publish) and every
 * binder runs then; a binder registered later (a library opened with
 * dlopen) runs at once. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "_cgo_export.h"

typedef int (*gshmemi_bind_fn)(const void *state, size_t size, int device);

#define KERN_STATE_MAX 256

static pthread_mutex_t kern_mu = PTHREAD_MUTEX_INITIALIZER;
static gshmemi_bind_fn *kern_fns;
static int kern_n, kern_cap;
static unsigned char kern_state[KERN_STATE_MAX];
static size_t kern_size;
static int kern_dev = -1, kern_sharers, kern_live;

/* What a binder's result means, for messages. */
static const char *kern_why(int rc)
{
    switch (rc) {
    case 2:
        return "the program's gshmem.cuh has another state layout than this library (rebuild it against this installation's gshmem.cuh)";
    default:
        return "the CUDA runtime could not write the state (is the program on the PE's GPU, in its primary context?)";
    }
}

int gshmemi_register_state(gshmemi_bind_fn fn)
{
    if (fn == NULL)
        return 1;
    pthread_mutex_lock(&kern_mu);
    if (kern_n == kern_cap) {
        int c = kern_cap ? 2 * kern_cap : 16;
        gshmemi_bind_fn *f = realloc(kern_fns, (size_t)c * sizeof *f);
        if (f == NULL) {
            pthread_mutex_unlock(&kern_mu);
            fprintf(stderr, "gshmem: gshmemi_register_state: out of memory\n");
            abort();
        }
        kern_fns = f;
        kern_cap = c;
    }
    kern_fns[kern_n++] = fn;
    int rc = kern_live ? fn(kern_state, kern_size, kern_dev) : 0;
    pthread_mutex_unlock(&kern_mu);
    if (rc != 0) {
        /* Registered after gshmem_init (a library opened later): its
         * kernels would run without the state. */
        abiint_shmem_fatal((char *)"gshmem.cuh", (char *)kern_why(rc));
    }
    return rc;
}

int gshmemi_kern_query(int *device, int *sharers)
{
    pthread_mutex_lock(&kern_mu);
    int live = kern_live;
    if (live) {
        if (device)
            *device = kern_dev;
        if (sharers)
            *sharers = kern_sharers;
    }
    pthread_mutex_unlock(&kern_mu);
    return live ? 0 : 1;
}

/* kern_publish keeps the state and runs every binder; it returns 0, or
 * writes why the first failing binder failed into why (n bytes). */
int kern_publish(const void *state, size_t size, int device, int sharers, char *why, size_t n)
{
    if (size > KERN_STATE_MAX) {
        snprintf(why, n, "a state table of %zu bytes", size);
        return 1;
    }
    pthread_mutex_lock(&kern_mu);
    memcpy(kern_state, state, size);
    kern_size = size;
    kern_dev = device;
    kern_sharers = sharers;
    kern_live = 1;
    int rc = 0;
    for (int i = 0; i < kern_n && rc == 0; i++)
        rc = kern_fns[i](kern_state, kern_size, kern_dev);
    if (rc != 0) {
        kern_live = 0;
        snprintf(why, n, "%s", kern_why(rc));
    }
    pthread_mutex_unlock(&kern_mu);
    return rc;
}

/* kern_unpublish forgets the state at gshmem_finalize: a binder registered
 * after it binds nothing, and gshmemx_collective_launch refuses. */
int kern_unpublish(void)
{
    pthread_mutex_lock(&kern_mu);
    kern_live = 0;
    memset(kern_state, 0, sizeof kern_state);
    pthread_mutex_unlock(&kern_mu);
    return 0;
}

int gshmemx_cumodule_init(void *module) { return abiint_kern_cumodule((uintptr_t)module, 0); }
int gshmemx_cumodule_finalize(void *module) { return abiint_kern_cumodule((uintptr_t)module, 1); }
