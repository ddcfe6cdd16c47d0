/* Small derived datatypes through MPI_Send and MPI_Recv (the C fast path
 * packs and scatters them, p2p.c) against MPI_Pack and MPI_Unpack with a
 * contiguous message, over random types of every constructor: rank 0
 * sends each type's buffer as the type (MPI_Send, or MPI_Isend through
 * Go) and as the packed bytes; rank 1 receives the first as the type
 * (MPI_Recv, or MPI_Irecv through Go, or a receive of more instances)
 * and unpacks the second, and the two receive buffers, their gaps
 * included, and counts must agree. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

void gshmem_abi_fast_counts(uint64_t *sends, uint64_t *recvs);

static unsigned seed;
static int rnd(int n) { seed = seed * 1103515245u + 12345u; return (int)((seed >> 8) % (unsigned)n); }

static MPI_Datatype basic(void) {
    MPI_Datatype b[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_FLOAT, MPI_LONG_LONG};
    return b[rnd(6)];
}

/* A random committed type of nesting depth at most d. */
static MPI_Datatype make(int d) {
    MPI_Datatype old = d > 0 && rnd(3) == 0 ? make(d - 1) : basic(), t;
    int n = 1 + rnd(6), bl[6], di[6];
    MPI_Aint ad[6];
    MPI_Datatype ty[6];
    MPI_Aint lb, ext;
    MPI_Type_get_extent(old, &lb, &ext);
    switch (rnd(7)) {
    case 0: MPI_Type_contiguous(n, old, &t); break;
    case 1: MPI_Type_vector(n, 1 + rnd(3), 3 + rnd(3), old, &t); break;
    case 2: MPI_Type_create_hvector(n, 1 + rnd(2), (MPI_Aint)(ext * (2 + rnd(3)) + rnd(2)), old, &t); break;
    case 3: {
        int at = 0;
        for (int i = 0; i < n; i++) { bl[i] = 1 + rnd(3); di[i] = at + rnd(3); at = di[i] + bl[i]; }
        MPI_Type_indexed(n, bl, di, old, &t);
        break;
    }
    case 4: {
        MPI_Aint at = rnd(8);
        for (int i = 0; i < n; i++) {
            ty[i] = basic();
            bl[i] = 1 + rnd(3);
            MPI_Aint l2, e2;
            MPI_Type_get_extent(ty[i], &l2, &e2);
            ad[i] = (at + e2 - 1) / e2 * e2;
            at = ad[i] + bl[i] * e2 + rnd(4);
        }
        MPI_Type_create_struct(n, bl, ad, ty, &t);
        break;
    }
    case 5: {
        MPI_Datatype v;
        MPI_Type_vector(2, 1, 2, old, &v);
        MPI_Type_create_resized(v, 0, 4 * ext + rnd(3), &t);
        MPI_Type_free(&v);
        break;
    }
    default: MPI_Type_dup(old, &t);
    }
    if (old != MPI_CHAR && old != MPI_SHORT && old != MPI_INT && old != MPI_DOUBLE && old != MPI_FLOAT &&
        old != MPI_LONG_LONG)
        MPI_Type_free(&old);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, fail = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { BUF = 1 << 20 };
    unsigned char *a = malloc(BUF), *b = malloc(BUF), *pk = malloc(BUF);
    for (int it = 0; it < 400 && !fail; it++) {
        seed = 7919u * (unsigned)it + 1;
        MPI_Datatype t = make(2);
        MPI_Aint lb, ext, tlb, text;
        int size;
        MPI_Type_get_extent(t, &lb, &ext);
        MPI_Type_get_true_extent(t, &tlb, &text);
        MPI_Type_size(t, &size);
        int count = size == 0 ? 1 : 1 + rnd(8192 / size + 1);
        if ((long)(count - 1) * ext + text + 64 > BUF / 2)
            count = 1;
        int mode = rnd(4), extra = rnd(2);
        unsigned char *base = a + 64 - (tlb < 0 ? tlb : 0), *bb = b + 64 - (tlb < 0 ? tlb : 0);
        if (rank == 0) {
            for (int i = 0; i < BUF; i++) a[i] = (unsigned char)(i * 31 + it);
            int pos = 0;
            MPI_Pack(base, count, t, pk, BUF, &pos, MPI_COMM_WORLD);
            if (mode == 1) {
                MPI_Request r;
                MPI_Isend(base, count, t, 1, it, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else
                MPI_Send(base, count, t, 1, it, MPI_COMM_WORLD);
            MPI_Send(pk, pos, MPI_PACKED, 1, it, MPI_COMM_WORLD);
        } else {
            MPI_Status s1, s2;
            memset(a, 0xa5, BUF);
            memset(b, 0xa5, BUF);
            if (mode == 2) {
                MPI_Request r;
                MPI_Irecv(base, count + extra, t, 0, it, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, &s1);
            } else
                MPI_Recv(base, count + extra, t, 0, mode == 3 ? MPI_ANY_TAG : it, MPI_COMM_WORLD, &s1);
            MPI_Recv(pk, BUF, MPI_PACKED, 0, it, MPI_COMM_WORLD, &s2);
            int n1, n2, pos = 0;
            MPI_Get_count(&s1, t, &n1);
            MPI_Get_count(&s2, MPI_PACKED, &n2);
            MPI_Unpack(pk, n2, &pos, bb, count, t, MPI_COMM_WORLD);
            if (n1 != count || memcmp(a, b, BUF) != 0 || s1.MPI_TAG != it) {
                printf("iteration %d mode %d: count %d of %d, bytes %d, buffers %s\n", it, mode, n1, count, n2,
                       memcmp(a, b, BUF) ? "differ" : "agree");
                fail = 1;
            }
        }
        MPI_Bcast(&fail, 1, MPI_INT, 1, MPI_COMM_WORLD);
        MPI_Type_free(&t);
    }
    /* The C path serves a small vector's send (its receive, too, when
     * the message comes within the receive's spin). */
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    double d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t s0, r0, s1, r1;
    MPI_Barrier(MPI_COMM_WORLD);
    gshmem_abi_fast_counts(&s0, &r0);
    if (rank == 0)
        MPI_Send(d, 1, v, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(d + 1, 1, v, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    gshmem_abi_fast_counts(&s1, &r1);
    if (!fail && ((rank == 0 && s1 - s0 != 1) || (rank == 1 && (d[1] != 1 || d[3] != 3 || d[7] != 7)))) {
        printf("rank %d: the vector took the Go path or arrived wrong\n", rank);
        fail = 1;
    }
    MPI_Type_free(&v);
    if (!fail)
        printf("p2pdtype ok\n");
    free(a), free(b), free(pk);
    MPI_Finalize();
    return fail;
}
