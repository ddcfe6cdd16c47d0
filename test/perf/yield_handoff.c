// yield_handoff measures what one CPU costs to hand over between two
// processes that wait for each other (sched_yield in a polling loop): the
// floor of any barrier whose PEs outnumber the CPUs, since every CPU must
// run each of its PEs at least once per barrier.
//
//   cc -O2 test/perf/yield_handoff.c -o /tmp/yield_handoff && /tmp/yield_handoff
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
	const long iters = 200000;
	volatile long *turn = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (turn == MAP_FAILED)
		return 1;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		return 1;
	int child = fork() == 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < iters; i++) {
		long mine = 2 * i + child;
		while (*turn != mine)
			sched_yield();
		*turn = mine + 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (child)
		return 0;
	wait(0);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("yield handoff between two processes on one CPU: %.3f us\n", ns / 1e3 / (2.0 * iters));
	return 0;
}
