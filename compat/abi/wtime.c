//go:build cgo

/* MPI_Wtime and MPI_Wtick.
 *
 * Benchmarks and instrumented codes read MPI_Wtime around every operation
 * (OSU's latency loops read it twice per iteration), so its cost is part of
 * every small-message figure: clock_gettime(CLOCK_MONOTONIC) costs about
 * 27 ns on this class of VM, more than an 8-byte put and flush into a
 * mapped peer. Where the time stamp counter is a clock (invariant: it ticks
 * at one rate in every power state, and the kernel itself keeps time with
 * it, which it does only after checking the CPUs agree), MPI_Wtime reads it
 * (lfence; rdtsc, ordered after earlier loads as the kernel's own reads
 * are) and converts with a rate learnt against CLOCK_MONOTONIC, so it stays
 * CLOCK_MONOTONIC's time to within a microsecond: the same clock in every
 * process of a node, as with clock_gettime.
 *
 * How the conversion stays honest:
 *  - the first anchor is taken when the library loads; until
 *    ABI_WTIME_CALIBRATE has passed, MPI_Wtime is clock_gettime, then the
 *    rate is the ratio over that whole span (sub-ppm: each end is a
 *    clock_gettime bracketed by two counter reads, the tightest of a few);
 *  - every ABI_WTIME_RESYNC the caller that finds the anchor old measures
 *    the drift against CLOCK_MONOTONIC and slews it out over the next
 *    interval, continuous and never going back; a drift above
 *    ABI_WTIME_MAX_DRIFT (the counter is not the clock we took it for: a
 *    migrated VM, say) ends the counter for good and every later read is
 *    clock_gettime.
 * GSHMEM_MPI_WTIME=clock keeps clock_gettime throughout (auto, the
 * default, takes the counter where it is a clock). */

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "abi.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#define ABI_HAVE_TSC 1
#else
#define ABI_HAVE_TSC 0
#endif

#define ABI_WTIME_CALIBRATE 0.02 /* s of the first span */
#define ABI_WTIME_RESYNC 1.0     /* s between drift checks */
#define ABI_WTIME_MAX_DRIFT 1e-4 /* s of drift that ends the counter */

/* The conversion, under a sequence lock: readers retry while seq is odd
 * or changed under them; one writer at a time (writing). */
static struct {
    _Atomic uint32_t seq;
    _Atomic int mode;      /* 0: clock_gettime, 1: counter */
    _Atomic int writing;   /* a thread is calibrating or resyncing */
    _Atomic uint64_t tsc0; /* anchor: counter */
    _Atomic double t0;     /* anchor: seconds */
    _Atomic double spt;    /* seconds per tick */
    _Atomic uint64_t next; /* counter value of the next drift check */
} wclk;

static struct {
    uint64_t tsc;      /* first anchor */
    double t;          /* its CLOCK_MONOTONIC time */
    double rate;       /* the long-baseline seconds per tick */
} wcal;

/* The counter is an invariant clock here, and no drift check refused it. */
static _Atomic int usable;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if ABI_HAVE_TSC
static inline uint64_t ticks(void)
{
    _mm_lfence();
    return __rdtsc();
}

/* pair reads the counter and CLOCK_MONOTONIC at one instant: the
 * clock_gettime of the tightest bracket of a few, at its middle. */
static void pair(uint64_t *tsc, double *t)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = ticks();
        double m = mono();
        uint64_t b = ticks();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *t = m;
        }
    }
}

/* invariant reports whether the CPU says its counter ticks at a constant
 * rate through power states and the kernel keeps time with it. */
static int invariant(void)
{
    int ok = 0;
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        char src[32] = {0};
        ok = fgets(src, sizeof src, f) && strncmp(src, "tsc", 3) == 0 && (src[3] == '\n' || src[3] == 0);
        fclose(f);
    }
    if (!ok)
        return 0;
    f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
}
#endif

__attribute__((constructor)) static void wtime_init(void)
{
#if ABI_HAVE_TSC
    const char *v = getenv("GSHMEM_MPI_WTIME");
    if (v && strcmp(v, "clock") == 0)
        return;
    if (!invariant())
        return;
    atomic_store(&usable, 1);
    pair(&wcal.tsc, &wcal.t);
    atomic_store(&wclk.tsc0, wcal.tsc);
    atomic_store(&wclk.t0, wcal.t);
#endif
}

#if ABI_HAVE_TSC
/* publish installs a conversion anchored at (tsc, t). */
static void publish(uint64_t tsc, double t, double spt, uint64_t next)
{
    uint32_t s = atomic_load_explicit(&wclk.seq, memory_order_relaxed);
    atomic_store_explicit(&wclk.seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&wclk.tsc0, tsc, memory_order_relaxed);
    atomic_store_explicit(&wclk.t0, t, memory_order_relaxed);
    atomic_store_explicit(&wclk.spt, spt, memory_order_relaxed);
    atomic_store_explicit(&wclk.next, next, memory_order_relaxed);
    atomic_store_explicit(&wclk.seq, s + 2, memory_order_release);
}

/* slow runs the calibration or a drift check, or returns
 * clock_gettime while another thread does. */
static double slow(void)
{
    int idle = 0;
    if (!atomic_load(&usable) || !atomic_compare_exchange_strong(&wclk.writing, &idle, 1))
        return mono();
    uint64_t tsc;
    double t;
    pair(&tsc, &t);
    double r = t;
    if (atomic_load(&wclk.mode) == 0) {
        if (t - wcal.t >= ABI_WTIME_CALIBRATE && tsc > wcal.tsc) {
            wcal.rate = (t - wcal.t) / (double)(tsc - wcal.tsc);
            publish(tsc, t, wcal.rate, tsc + (uint64_t)(ABI_WTIME_RESYNC / wcal.rate));
            atomic_store(&wclk.mode, 1);
        }
    } else {
        /* Where the conversion says we are, and how far that is from
         * CLOCK_MONOTONIC: keep the time continuous at this instant and
         * steer the rate so the drift is gone one interval on. */
        uint64_t a = atomic_load(&wclk.tsc0);
        double at = atomic_load(&wclk.t0), spt = atomic_load(&wclk.spt);
        double now = at + (double)(tsc - a) * spt;
        double drift = t - now;
        if (drift > ABI_WTIME_MAX_DRIFT || drift < -ABI_WTIME_MAX_DRIFT || tsc < a) {
            atomic_store(&usable, 0);
            atomic_store(&wclk.mode, 0);
        } else {
            wcal.rate = (t - wcal.t) / (double)(tsc - wcal.tsc);
            double span = ABI_WTIME_RESYNC;
            publish(tsc, now, wcal.rate * (1.0 + drift / span), tsc + (uint64_t)(span / wcal.rate));
            r = now;
        }
    }
    atomic_store(&wclk.writing, 0);
    return r;
}
#endif

double abic_Wtime(void)
{
#if ABI_HAVE_TSC
    if (atomic_load_explicit(&wclk.mode, memory_order_relaxed)) {
        for (;;) {
            uint32_t s = atomic_load_explicit(&wclk.seq, memory_order_acquire);
            uint64_t a = atomic_load_explicit(&wclk.tsc0, memory_order_relaxed);
            double at = atomic_load_explicit(&wclk.t0, memory_order_relaxed);
            double spt = atomic_load_explicit(&wclk.spt, memory_order_relaxed);
            uint64_t next = atomic_load_explicit(&wclk.next, memory_order_relaxed);
            atomic_thread_fence(memory_order_acquire);
            if ((s & 1) || atomic_load_explicit(&wclk.seq, memory_order_relaxed) != s)
                continue;
            uint64_t now = ticks();
            if (now - a >= next - a)
                break;
            return at + (double)(now - a) * spt;
        }
        return slow();
    }
    if (atomic_load_explicit(&usable, memory_order_relaxed)) {
        double t = mono();
        return t - wcal.t < ABI_WTIME_CALIBRATE ? t : slow();
    }
#endif
    return mono();
}

double abic_Wtick(void)
{
#if ABI_HAVE_TSC
    if (atomic_load_explicit(&wclk.mode, memory_order_relaxed))
        return 1e-9; /* the counter ticks faster; the time is kept to the ns */
#endif
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0))
        return 1e-9;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* abic_wtime_source names the clock MPI_Wtime reads now, for gshmem info
 * and the tests: "tsc", "clock (calibrating)" or "clock". */
const char *abic_wtime_source(void)
{
    if (atomic_load(&wclk.mode))
        return "tsc";
    return atomic_load(&usable) ? "clock (calibrating)" : "clock";
}
