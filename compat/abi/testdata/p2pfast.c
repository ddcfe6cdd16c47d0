/* The eager fast path of MPI_Send and MPI_Recv (p2p.c) beside the Go
 * engine: messages sent by either path, received by either, in MPI's
 * order; wildcards; tags that do not match the ring's head; probes and
 * posted receives that must match first; a full ring, its wrap-around and
 * credit; truncation; a split communicator; self-sends; a wait that
 * must let another peer's full ring drain; MPI_Barrier. The library's
 * diagnostic counters show that the fast path served part of it. */
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
