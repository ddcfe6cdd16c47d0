// oversub_barrier measures the barrier 4 processes on 2 CPUs can reach in
// C, with none of gshmem's or MPI's code: a central sense-reversing
// barrier (one counter, one generation word) and a dissemination barrier
// (gshmem's shape), both polling with sched_yield after SPINS polls, the
// processes pinned round-robin (PIN) or left to the scheduler. It is the
// floor that osu_barrier's and gshmem perf barrier's 4-PE rows on this
// machine are set against.
//
//   cc -O2 test/perf/oversub_barrier.c -o /tmp/oversub_barrier
//   /tmp/oversub_barrier MODE SPINS [pin]   # MODE 0 central, 1 dissemination
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define P 4
#define ITERS 200000
#define WARMUP 1000

typedef struct {
	_Alignas(64) atomic_ulong v;
} line;

struct shared {
	line count, gen;
	line flags[P][2]; // dissemination: [rank][round]
};

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void wait_ge(atomic_ulong *p, unsigned long v, int spins) {
	for (int i = 0; atomic_load(p) < v; i++)
		if (i >= spins)
			sched_yield();
}

int main(int argc, char **argv) {
	int mode = argc > 1 ? atoi(argv[1]) : 0, spins = argc > 2 ? atoi(argv[2]) : 0, pin = argc > 3;
	struct shared *s = mmap(0, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return 1;
	for (int r = 0; r < P; r++) {
		if (fork() != 0)
			continue;
		if (pin) {
			cpu_set_t c;
			CPU_ZERO(&c);
			CPU_SET(r % 2, &c);
			sched_setaffinity(0, sizeof c, &c);
		}
		double t0 = 0;
		for (unsigned long it = 1; it <= ITERS; it++) {
			if (it == WARMUP)
				t0 = now();
			if (mode == 0) {
				unsigned long g = atomic_load(&s->gen.v);
				if (atomic_fetch_add(&s->count.v, 1) == P - 1) {
					atomic_store(&s->count.v, 0);
					atomic_store(&s->gen.v, g + 1);
				} else {
					wait_ge(&s->gen.v, g + 1, spins);
				}
			} else {
				for (int k = 1, rd = 0; k < P; k <<= 1, rd++) {
					atomic_fetch_add(&s->flags[(r + k) % P][rd].v, 1);
					wait_ge(&s->flags[r][rd].v, it, spins);
				}
			}
		}
		if (r == 0) {
			printf("%s barrier, %d spins, %s: %.3f us\n", mode ? "dissemination" : "central", spins,
			       pin ? "pinned" : "unpinned", (now() - t0) / (ITERS - WARMUP) * 1e6);
			fflush(stdout);
		}
		_exit(0);
	}
	for (int r = 0; r < P; r++)
		wait(0);
	return 0;
}
