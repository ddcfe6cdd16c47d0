/* The eager fast path of MPI_Send and MPI_Recv (p2p.c) beside the Go
 * engine: messages sent by either path, received by either, in MPI's
 * order; wildcards; tags that do not match the ring's head; probes and
 * posted receives that must match first; a full ring, its wrap-around and
 * credit; truncation; a split communicator; self-sends; a wait that
 * must let another peer's full ring drain; MPI_Barrier; MPI_Allreduce. The library's
 * diagnostic counters show that the fast path served part of it. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

/* The library's diagnostic counters of the fast path (p2p.c). */
void gshmem_abi_fast_counts(uint64_t *sends, uint64_t *recvs);

/* The payload of message i of a stream: its bytes say which it is. */
static void fill(unsigned char *b, int n, int i)
{
    for (int k = 0; k < n; k++)
        b[k] = (unsigned char)(i * 31 + k * 7 + 1);
}

static int same(const unsigned char *b, int n, int i)
{
    for (int k = 0; k < n; k++)
        if (b[k] != (unsigned char)(i * 31 + k * 7 + 1))
            return 0;
    return 1;
}

/* Sizes that cross cells, the header's cell and the eager limit (8k). */
static const int sizes[] = {0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100, 1000, 4000, 8160, 8192};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    int rank, size, v;
    MPI_Status st;
    static unsigned char out[8192], in[8192];
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    uint64_t s0, r0, s1, r1;
    gshmem_abi_fast_counts(&s0, &r0);

    /* 1. Ping-pong over every size, many laps of the 64k ring: the
     * receiver's credit keeps the sender going. */
    if (rank < 2) {
        int peer = 1 - rank;
        for (int i = 0; i < 600; i++) {
            int n = sizes[i % NSIZES];
            if (rank == 0) {
                fill(out, n, i);
                CHECK_RC(MPI_Send(out, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD));
                memset(in, 0, sizeof in);
                CHECK_RC(MPI_Recv(in, sizeof in, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st));
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &v));
                CHECK(v == n && same(in, n, i + 1) && st.MPI_SOURCE == peer && st.MPI_TAG == 6);
            } else {
                memset(in, 0, sizeof in);
                CHECK_RC(MPI_Recv(in, sizeof in, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st));
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &v));
                CHECK(v == n && same(in, n, i) && st.MPI_SOURCE == peer && st.MPI_TAG == 5);
                fill(out, n, i + 1);
                CHECK_RC(MPI_Send(out, n, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
            }
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 2. A stream that fills the ring: the sender runs ahead (eager sends
     * return at once until the ring is full, then queue in the Go engine),
     * interleaving the fast path, Isend, Ssend and a derived datatype;
     * the receiver takes them in order with Recv, by tag or MPI_ANY_TAG. */
    if (rank < 2) {
        int peer = 1 - rank;
        MPI_Datatype two;
        CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &two));
        CHECK_RC(MPI_Type_commit(&two));
        enum { N = 400 };
        static MPI_Request reqs[N];
        static unsigned char bufs[N][1024];
        int nreq = 0;
        for (int i = 0; i < N; i++) {
            int n = sizes[i % 11] * 8 + 8; /* 8 to 808 bytes, whole instances of `two` */
            if (rank == 0) {
                fill(bufs[i], n, i);
                switch (i % 5) {
                case 0:
                case 1:
                    CHECK_RC(MPI_Send(bufs[i], n, MPI_BYTE, peer, 9, MPI_COMM_WORLD));
                    break;
                case 2:
                    CHECK_RC(MPI_Isend(bufs[i], n, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &reqs[nreq++]));
                    break;
                case 3:
                    CHECK_RC(MPI_Send(bufs[i], n / 8, two, peer, 9, MPI_COMM_WORLD));
                    break;
                default:
                    if (i % 50 == 4)
                        CHECK_RC(MPI_Ssend(bufs[i], n, MPI_BYTE, peer, 9, MPI_COMM_WORLD));
                    else
                        CHECK_RC(MPI_Send(bufs[i], n / 4, MPI_INT, peer, 9, MPI_COMM_WORLD));
                }
            } else {
                if (i == 0) { /* let the sender fill the ring first */
                    double t = MPI_Wtime();
                    while (MPI_Wtime() - t < 0.02)
                        ;
                }
                memset(in, 0, n);
                CHECK_RC(MPI_Recv(in, sizeof in, MPI_BYTE, peer, i % 3 ? 9 : MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &v));
                CHECK(v == n && same(in, n, i) && st.MPI_TAG == 9);
            }
        }
        if (rank == 0)
            CHECK_RC(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Type_free(&two));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 3. Tags that do not match the ring's head, a probe that leaves a
     * message unexpected, and a receive posted before a blocking one:
     * each must match as MPI orders it. */
    if (rank < 2) {
        int peer = 1 - rank, a = 0, b = 0, c = 0;
        if (rank == 0) {
            int x = 11, y = 22, z = 33;
            CHECK_RC(MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(&y, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(&z, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
            CHECK_RC(MPI_Recv(&a, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));
            CHECK(a == 44);
            for (int i = 0; i < 4; i++)
                CHECK_RC(MPI_Send(&i, 1, MPI_INT, peer, 20 + i % 2, MPI_COMM_WORLD));
        } else {
            CHECK_RC(MPI_Recv(&b, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &st)); /* the head is tag 1 */
            CHECK(b == 22 && st.MPI_TAG == 2);
            CHECK_RC(MPI_Probe(peer, 3, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == 3);
            CHECK_RC(MPI_Recv(&c, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(c == 11 && st.MPI_TAG == 1 && st.MPI_SOURCE == peer); /* the earliest, kept unexpected */
            CHECK_RC(MPI_Recv(&c, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(c == 33 && st.MPI_TAG == 3);
            int fortyfour = 44;
            CHECK_RC(MPI_Send(&fortyfour, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
            /* A posted receive for tag 21 matches before the blocking one
             * for any tag takes the message at the head (tag 20). */
            MPI_Request rq;
            int p = -1, q = -1;
            CHECK_RC(MPI_Irecv(&p, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &rq));
            CHECK_RC(MPI_Recv(&q, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(q == 0 && st.MPI_TAG == 20);
            CHECK_RC(MPI_Wait(&rq, &st));
            CHECK(p == 1 && st.MPI_TAG == 21);
            CHECK_RC(MPI_Recv(&q, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &st));
            CHECK(q == 2);
            CHECK_RC(MPI_Recv(&q, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &st));
            CHECK(q == 3);
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 4. Truncation: a message longer than the buffer is the Go engine's
     * MPI_ERR_TRUNCATE, and the stream goes on after it. */
    if (rank < 2) {
        int peer = 1 - rank, big[4] = {1, 2, 3, 4}, small[2] = {0, 0}, ec;
        if (rank == 0) {
            CHECK_RC(MPI_Send(big, 4, MPI_INT, peer, 8, MPI_COMM_WORLD));
            CHECK_RC(MPI_Send(big, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
        } else {
            int rc = MPI_Recv(small, 2, MPI_INT, peer, 8, MPI_COMM_WORLD, &st);
            CHECK_RC(MPI_Error_class(rc, &ec));
            CHECK(ec == MPI_ERR_TRUNCATE && small[0] == 1 && small[1] == 2);
            CHECK_RC(MPI_Recv(small, 2, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
            CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
            CHECK(v == 1 && small[0] == 1);
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 5. MPI_ANY_SOURCE: every other rank sends a numbered stream to 0;
     * each source's messages arrive in order. */
    enum { M = 200 };
    if (rank == 0) {
        int next[64] = {0};
        for (int i = 0; i < M * (size - 1); i++) {
            int msg[2];
            CHECK_RC(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size && msg[0] == st.MPI_SOURCE);
            CHECK(msg[1] == next[st.MPI_SOURCE]);
            next[st.MPI_SOURCE]++;
        }
        for (int s = 1; s < size; s++)
            CHECK(next[s] == M);
    } else {
        for (int i = 0; i < M; i++) {
            int msg[2] = {rank, i};
            CHECK_RC(MPI_Send(msg, 2, MPI_INT, 0, 30, MPI_COMM_WORLD));
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 6. A split communicator with the ranks reversed, used beside
     * MPI_COMM_WORLD with the same tags: no message crosses over. */
    MPI_Comm rev;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    int rr;
    CHECK_RC(MPI_Comm_rank(rev, &rr));
    CHECK(rr == size - 1 - rank);
    if (size >= 2) {
        int to = (rr + 1) % size, from = (rr + size - 1) % size; /* ranks in rev */
        int wto = (rank + 1) % size, wfrom = (rank + size - 1) % size;
        int a = 1000 + rank, b = 2000 + rank, x = -1, y = -1;
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, to, 40, rev));
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, wto, 40, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, wfrom, 40, MPI_COMM_WORLD, &st));
        CHECK(y == 2000 + wfrom && st.MPI_SOURCE == wfrom);
        CHECK_RC(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 40, rev, &st));
        CHECK(st.MPI_SOURCE == from && x == 1000 + (size - 1 - from));
    }
    CHECK_RC(MPI_Comm_free(&rev));

    /* 7. Self-sends and MPI_PROC_NULL. */
    {
        double d = 2.5 + rank, e = 0;
        CHECK_RC(MPI_Send(&d, 1, MPI_DOUBLE, rank, 50, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&e, 1, MPI_DOUBLE, rank, 50, MPI_COMM_WORLD, &st));
        CHECK(e == d && st.MPI_SOURCE == rank);
        CHECK_RC(MPI_Send(&d, 1, MPI_DOUBLE, MPI_PROC_NULL, 50, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&e, 1, MPI_DOUBLE, MPI_PROC_NULL, 50, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    }

    /* 8. Bad arguments still raise their classes. */
    {
        int ec, x = 0;
        CHECK_RC(MPI_Error_class(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), &ec));
        CHECK(ec == MPI_ERR_RANK);
        CHECK_RC(MPI_Error_class(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), &ec));
        CHECK(ec == MPI_ERR_TAG);
        CHECK_RC(MPI_Error_class(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), &ec));
        CHECK(ec == MPI_ERR_COUNT);
        CHECK_RC(MPI_Error_class(MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), &ec));
        CHECK(ec == MPI_ERR_COMM);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 9. A receive from one peer while another's stream fills the ring:
     * rank 2 streams 12 messages of 8k to 0 (more than its ring holds),
     * then tells rank 1, which only then sends to 0; 0 waits for rank 1
     * first, so its wait must let rank 2's stream through. */
    if (size >= 3 && rank < 3) {
        int go = 1, got = 0;
        if (rank == 2) {
            for (int i = 0; i < 12; i++) {
                fill(out, 8192, i);
                CHECK_RC(MPI_Send(out, 8192, MPI_BYTE, 0, 60, MPI_COMM_WORLD));
            }
            CHECK_RC(MPI_Send(&go, 1, MPI_INT, 1, 61, MPI_COMM_WORLD));
        } else if (rank == 1) {
            CHECK_RC(MPI_Recv(&got, 1, MPI_INT, 2, 61, MPI_COMM_WORLD, &st));
            CHECK_RC(MPI_Send(&go, 1, MPI_INT, 0, 62, MPI_COMM_WORLD));
        } else {
            CHECK_RC(MPI_Recv(&got, 1, MPI_INT, 1, 62, MPI_COMM_WORLD, &st));
            CHECK(got == 1);
            for (int i = 0; i < 12; i++) {
                CHECK_RC(MPI_Recv(in, 8192, MPI_BYTE, 2, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &v));
                CHECK(v == 8192 && st.MPI_TAG == 60 && same(in, 8192, i));
            }
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 10. MPI_Barrier, whose rounds run over the rings in C or in Go:
     * nobody leaves before everybody entered (MPI_Wtime is one clock on
     * one host), behind unreceived messages, with a posted receive (its
     * rounds then go to Go), in a loop, and on a split communicator. */
    {
        for (int k = 0; k < 3; k++) {
            double t = MPI_Wtime();
            while (MPI_Wtime() - t < 0.002 * ((rank + k) % size))
                ;
            double times[2] = {MPI_Wtime(), 0}, all[2 * 64];
            CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
            times[1] = MPI_Wtime();
            CHECK_RC(MPI_Allgather(times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD));
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size; j++)
                    CHECK(all[2 * i] <= all[2 * j + 1]); /* i entered before j left */
        }
        int x = 7, y = 0;
        if (rank == 0 && size > 1)
            for (int i = 0; i < 5; i++)
                CHECK_RC(MPI_Send(&x, 1, MPI_INT, 1, 70, MPI_COMM_WORLD));
        MPI_Request rq = MPI_REQUEST_NULL;
        if (rank == size - 1)
            CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0)
            CHECK_RC(MPI_Send(&x, 1, MPI_INT, size - 1, 71, MPI_COMM_WORLD));
        if (rank == size - 1) {
            CHECK_RC(MPI_Wait(&rq, &st));
            CHECK(y == 7 && st.MPI_SOURCE == 0);
        }
        if (rank == 1)
            for (int i = 0; i < 5; i++) {
                CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, 70, MPI_COMM_WORLD, &st));
                CHECK(y == 7);
            }
        for (int i = 0; i < 2000; i++) {
            if (i % 100 == 7 && size > 1) { /* a message between barriers */
                if (rank == 0)
                    CHECK_RC(MPI_Send(&i, 1, MPI_INT, size - 1, 72, MPI_COMM_WORLD));
                if (rank == size - 1) {
                    CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, 72, MPI_COMM_WORLD, &st));
                    CHECK(y == i);
                }
            }
            CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        }
        MPI_Comm half;
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
        for (int i = 0; i < 100; i++)
            CHECK_RC(MPI_Barrier(half));
        CHECK_RC(MPI_Comm_free(&half));
        CHECK_RC(MPI_Barrier(MPI_COMM_SELF));
        int ec;
        CHECK_RC(MPI_Error_class(MPI_Barrier(MPI_COMM_NULL), &ec));
        CHECK(ec == MPI_ERR_COMM);
    }

    /* 11. MPI_Allreduce, whose small forms run as recursive doubling
     * over the rings (C, or Go for a derived datatype or a round the fast
     * path hands over) when the size is a power of two: every type and
     * op, in place, a derived datatype of the same type signature beside
     * the predefined one, a posted receive, sizes past the limit, and
     * bitwise the same floats everywhere. */
    {
        static long long ll[512], want[512];
        MPI_Datatype types[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_UNSIGNED_CHAR, MPI_UNSIGNED,
                                MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE};
        MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
        int counts[] = {1, 3, 8, 100, 300};
        for (int ti = 0; ti < 9; ti++)
            for (int oi = 0; oi < 7; oi++)
                for (int ci = 0; ci < 5; ci++) {
                    MPI_Datatype t = types[ti];
                    int n = counts[ci], fl = ti >= 7, tsz;
                    if (fl && oi >= 4)
                        continue;
                    CHECK_RC(MPI_Type_size(t, &tsz));
                    /* Values whose sums and products every type holds. */
                    unsigned char sb[4096], rb[4096];
                    for (int i = 0; i < n; i++) {
                        long long v = (i + rank) % 3 + 1 + (oi >= 4 ? 8 * (rank + i) : 0);
                        long long w = 0; /* the expected result */
                        for (int r = 0; r < size; r++) {
                            long long x = (i + r) % 3 + 1 + (oi >= 4 ? 8 * (r + i) : 0);
                            if (r == 0) w = x;
                            else if (oi == 0) w += x;
                            else if (oi == 1) w = (w * x) % 1000003;
                            else if (oi == 2) w = x < w ? x : w;
                            else if (oi == 3) w = x > w ? x : w;
                            else if (oi == 4) w &= x;
                            else if (oi == 5) w |= x;
                            else w ^= x;
                        }
                        ll[i] = v;
                        want[i] = w;
                        switch (ti) {
                        case 0: ((signed char *)sb)[i] = (signed char)v; break;
                        case 1: ((short *)sb)[i] = (short)v; break;
                        case 2: ((int *)sb)[i] = (int)v; break;
                        case 3: ((long *)sb)[i] = (long)v; break;
                        case 4: ((unsigned char *)sb)[i] = (unsigned char)v; break;
                        case 5: ((unsigned *)sb)[i] = (unsigned)v; break;
                        case 6: ((uint64_t *)sb)[i] = (uint64_t)v; break;
                        case 7: ((float *)sb)[i] = (float)v; break;
                        default: ((double *)sb)[i] = (double)v;
                        }
                    }
                    if (oi == 1 && size > 4)
                        continue; /* products past 8 bits */
                    int inplace = (ti + oi + ci) % 3 == 0;
                    if (inplace)
                        memcpy(rb, sb, (size_t)n * tsz);
                    CHECK_RC(MPI_Allreduce(inplace ? MPI_IN_PLACE : sb, rb, n, t, ops[oi], MPI_COMM_WORLD));
                    for (int i = 0; i < n; i++) {
                        long long got;
                        switch (ti) {
                        case 0: got = ((signed char *)rb)[i]; break;
                        case 1: got = ((short *)rb)[i]; break;
                        case 2: got = ((int *)rb)[i]; break;
                        case 3: got = ((long *)rb)[i]; break;
                        case 4: got = ((unsigned char *)rb)[i]; break;
                        case 5: got = ((unsigned *)rb)[i]; break;
                        case 6: got = (long long)((uint64_t *)rb)[i]; break;
                        case 7: got = (long long)((float *)rb)[i]; break;
                        default: got = (long long)((double *)rb)[i];
                        }
                        long long w = want[i];
                        if (ti == 0) w = (signed char)w;
                        if (ti == 4) w = (unsigned char)w;
                        CHECK(got == w);
                    }
                }
        (void)ll;
        /* A derived datatype on odd ranks, MPI_INT on even ones: the same
         * type signature, the same rounds; and a posted receive on rank 0
         * that sends a round's half through Go. */
        MPI_Datatype two;
        CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &two));
        CHECK_RC(MPI_Type_commit(&two));
        int in6[6] = {rank, 1, 2, 3, 4, rank * 2}, out6[6], z = 0;
        MPI_Request rq = MPI_REQUEST_NULL;
        if (rank == 0)
            CHECK_RC(MPI_Irecv(&z, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Allreduce(in6, out6, rank % 2 ? 3 : 6, rank % 2 ? two : MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(out6[0] == size * (size - 1) / 2 && out6[1] == size && out6[4] == 4 * size && out6[5] == size * (size - 1));
        CHECK_RC(MPI_Type_free(&two));
        if (rank == size - 1)
            CHECK_RC(MPI_Send(&rank, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
        if (rank == 0) {
            CHECK_RC(MPI_Wait(&rq, &st));
            CHECK(z == size - 1);
        }
        /* Past the limit (the Go engine's allreduce), and floats that
         * round: every rank holds bitwise the same result. */
        static double big[1024], dres[1024], dall[64 * 8];
        for (int i = 0; i < 1024; i++)
            big[i] = 0.1 * (rank + 1) + 1.0 / (i + 3);
        CHECK_RC(MPI_Allreduce(big, dres, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CHECK(dres[0] > 0.1 * size * (size + 1) / 2);
        double d8[8];
        for (int i = 0; i < 8; i++)
            d8[i] = 0.1 * (rank + 1) / (i + 3) + 1e-17 * rank;
        CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, d8, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CHECK_RC(MPI_Allgather(d8, 8, MPI_DOUBLE, dall, 8, MPI_DOUBLE, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            CHECK(memcmp(&dall[8 * r], d8, sizeof d8) == 0);
        /* MIN and MAX of floats as Go's: a NaN wins, -0 is below +0. */
        double zs[2] = {rank % 2 ? 0.0 : -0.0, rank == 0 ? 0.0 / 0.0 : 1.0}, mn[2], mx[2];
        CHECK_RC(MPI_Allreduce(zs, mn, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
        CHECK_RC(MPI_Allreduce(zs, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        CHECK(mn[0] == 0 && mx[0] == 0 && mn[1] != mn[1] && mx[1] != mx[1]);
        if (size > 1)
            CHECK(signbit(mn[0]) && !signbit(mx[0]));
        int ec, one = 1;
        CHECK_RC(MPI_Error_class(MPI_Allreduce(&one, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), &ec));
        CHECK(ec == MPI_ERR_BUFFER);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* The fast path served some of it: 0's sends in part 1 and 5, and
     * the receives of the ranks that received in them. */
    gshmem_abi_fast_counts(&s1, &r1);
    CHECK(s1 > s0);
    if (rank < 2)
        CHECK(r1 > r0);
    CHECK_RC(MPI_Finalize());
    printf("p2pfast ok %d/%d\n", rank, size);
    return 0;
}
