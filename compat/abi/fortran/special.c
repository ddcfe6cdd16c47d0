/* special.c: the Fortran bindings no rule of the generator covers (MPI_Init
 * without argv, the functions MPI_Wtime/MPI_Wtick/MPI_Aint_add; attributes
 * are attr.c's, user callbacks callbacks.c's), the
 * special addresses' common blocks and the helpers of fbind.h. */
#include "fbind.h"

/* The common blocks of mpif.h / use mpi, sized as the Fortran declares them. */
/* gfortran aligns a common block to up to 32 bytes; so do these. */
#define FB_COMMON __attribute__((aligned(32)))
FB_COMMON int mpifcb_bottom_[1], mpifcb_in_place_[1], mpifcb_buffer_automatic_[1];
FB_COMMON int mpifcb_status_ignore_[8], mpifcb_statuses_ignore_[8];
FB_COMMON int mpifcb_errcodes_ignore_[1], mpifcb_unweighted_[1], mpifcb_weights_empty_[1];
FB_COMMON char mpifcb_argv_null_[1], mpifcb_argvs_null_[1];

/* gfortran's LOGICAL(4): .TRUE. is 1, .FALSE. is 0. */
int fb_true = 1, fb_false = 0;

/* fb_tell_abi tells the C library the Fortran compiler's LOGICAL values
 * and type sizes (MPI-5.0 ABI: MPI_Abi_set_fortran_booleans/_info), so
 * that logical reductions over MPI_LOGICAL use them. A library that was
 * told already (another binding in the process) keeps its values. The
 * sized types a gfortran has but the C library has no type for (REAL*2,
 * REAL*16, INTEGER*16, COMPLEX*4, COMPLEX*32) are "false". */
__attribute__((constructor)) static void fb_tell_abi(void)
{
    int t = fb_true, f = fb_false;
    (void)MPI_Abi_set_fortran_booleans((int)sizeof(int), &t, &f);
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS) return;
    static const char *kv[][2] = {
        {"mpi_logical_size", "4"}, {"mpi_integer_size", "4"}, {"mpi_real_size", "4"},
        {"mpi_double_precision_size", "8"},
        {"mpi_logical1_supported", "true"}, {"mpi_logical2_supported", "true"},
        {"mpi_logical4_supported", "true"}, {"mpi_logical8_supported", "true"},
        {"mpi_logical16_supported", "false"},
        {"mpi_integer1_supported", "true"}, {"mpi_integer2_supported", "true"},
        {"mpi_integer4_supported", "true"}, {"mpi_integer8_supported", "true"},
        {"mpi_integer16_supported", "false"},
        {"mpi_real2_supported", "false"}, {"mpi_real4_supported", "true"},
        {"mpi_real8_supported", "true"}, {"mpi_real16_supported", "false"},
        {"mpi_complex4_supported", "false"}, {"mpi_complex8_supported", "true"},
        {"mpi_complex16_supported", "true"}, {"mpi_complex32_supported", "false"},
        {"mpi_double_complex_supported", "true"},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        MPI_Info_set(info, kv[i][0], kv[i][1]);
    (void)MPI_Abi_set_fortran_info(info);
    MPI_Info_free(&info);
}

void pmpi_init_(int *ierror) { fb_ret(ierror, MPI_Init(NULL, NULL)); }
FB_ALIAS(mpi_init_, pmpi_init_)

void pmpi_init_thread_(const int *required, int *provided, int *ierror)
{
    fb_ret(ierror, MPI_Init_thread(NULL, NULL, *required, provided));
}
FB_ALIAS(mpi_init_thread_, pmpi_init_thread_)

double pmpi_wtime_(void) { return MPI_Wtime(); }
FB_ALIAS(mpi_wtime_, pmpi_wtime_)
double pmpi_wtick_(void) { return MPI_Wtick(); }
FB_ALIAS(mpi_wtick_, pmpi_wtick_)

void pmpi_pcontrol_(const int *level) { (void)MPI_Pcontrol(*level); }
FB_ALIAS(mpi_pcontrol_, pmpi_pcontrol_)

MPI_Aint pmpi_aint_add_(const MPI_Aint *base, const MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
FB_ALIAS(mpi_aint_add_, pmpi_aint_add_)
MPI_Aint pmpi_aint_diff_(const MPI_Aint *a, const MPI_Aint *b) { return MPI_Aint_diff(*a, *b); }
FB_ALIAS(mpi_aint_diff_, pmpi_aint_diff_)

/* fb_comm_count: the length of MPI_Alltoallw's type arrays. */
int fb_comm_count(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter ? MPI_Comm_remote_size(comm, &n) : MPI_Comm_size(comm, &n)) return 0;
    return n;
}

/* fb_nbr_count: the length of MPI_Neighbor_alltoallw's send (out) or
 * receive type array. */
int fb_nbr_count(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, n = 0, rank = 0, in = 0, o = 0, w = 0;
    if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS) return 0;
    switch (topo) {
    case MPI_CART:
        if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
        return 2 * n;
    case MPI_GRAPH:
        if (MPI_Comm_rank(comm, &rank) || MPI_Graph_neighbors_count(comm, rank, &n)) return 0;
        return n;
    case MPI_DIST_GRAPH:
        if (MPI_Dist_graph_neighbors_count(comm, &in, &o, &w) != MPI_SUCCESS) return 0;
        return out ? o : in;
    }
    return 0;
}

/* fb_raise raises rc as the call itself would: on its comm, window or
 * file, else on MPI_COMM_SELF. */
static void fb_raise(int on, int handle, int rc)
{
    switch (on) {
    case FB_ON_COMM: (void)MPI_Comm_call_errhandler(FB_FROM(Comm, handle), rc); break;
    case FB_ON_WIN: (void)MPI_Win_call_errhandler(FB_FROM(Win, handle), rc); break;
    case FB_ON_FILE: (void)MPI_File_call_errhandler(FB_FROM(File, handle), rc); break;
    default: (void)MPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
    }
}

/* fb_cfi is the address of an mpi_f08 choice buffer. Blocking calls'
 * buffers are CONTIGUOUS in the interface (the compiler copies a section
 * in and out); a buffer that outlives the call cannot be a copy, so a
 * noncontiguous one is refused with MPI_ERR_BUFFER rather than lost. */
void *fb_cfi(CFI_cdesc_t *d, int noblock, int *ierror, int on, int handle)
{
    if (noblock && !CFI_is_contiguous(d)) {
        fb_raise(on, handle, MPI_ERR_BUFFER);
        fb_ret(ierror, MPI_ERR_BUFFER);
        return FB_BAD;
    }
    return d->base_addr;
}

/* fb_section_type is a datatype of count elements of the predefined dt,
 * each elem bytes, laid where the section d keeps its elements (in array
 * element order, displacements from d->base_addr), or MPI_ERR_BUFFER where
 * the section cannot be so described: dt not a predefined type of the
 * elements' size, or count beyond the section's elements. */
static int fb_section_type(CFI_cdesc_t *d, MPI_Count count, MPI_Datatype dt, MPI_Datatype *out)
{
    int ni = 0, na = 0, nd = 0, comb = 0, size = 0;
    if (MPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb != MPI_COMBINER_NAMED ||
        MPI_Type_size(dt, &size) != MPI_SUCCESS || (size_t)size != d->elem_len)
        return MPI_ERR_BUFFER;
    MPI_Count n = 1;
    for (int k = 0; k < d->rank; k++) n *= d->dim[k].extent;
    if (count < 0 || count > n) return MPI_ERR_BUFFER;
    MPI_Datatype t = dt, t2;
    int rc = MPI_SUCCESS;
    if (count == n) {
        /* The whole section: one hvector per dimension, the first innermost. */
        for (int k = 0; k < d->rank && rc == MPI_SUCCESS; k++) {
            rc = MPI_Type_create_hvector_c(d->dim[k].extent, 1, d->dim[k].sm, t, &t2);
            if (t != dt) MPI_Type_free(&t);
            t = t2;
        }
    } else {
        /* Its first count elements, each at its own displacement. */
        MPI_Aint *disp = fb_alloc((int)count, sizeof *disp);
        CFI_index_t idx[CFI_MAX_RANK] = {0};
        if (!disp) return MPI_ERR_NO_MEM;
        for (MPI_Count e = 0; e < count; e++) {
            MPI_Aint off = 0;
            for (int k = 0; k < d->rank; k++) off += (MPI_Aint)idx[k] * d->dim[k].sm;
            disp[e] = off;
            for (int k = 0; k < d->rank && ++idx[k] == d->dim[k].extent; k++) idx[k] = 0;
        }
        rc = MPI_Type_create_hindexed_block((int)count, 1, disp, dt, &t);
        free(disp);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
        if (t != dt) MPI_Type_free(&t);
        return rc;
    }
    *out = t;
    return MPI_SUCCESS;
}

/* fb_cfi_sec is fb_cfi for a nonblocking call's (buffer, count, datatype):
 * a noncontiguous section of count elements of a predefined datatype is
 * not refused but described by a datatype of its own (*sect, 1 of it
 * replacing count and datatype; the caller frees it once the call has
 * started), so that the operation reaches the array's own elements. *sect
 * is MPI_DATATYPE_NULL's integer where no such type is needed. */
void *fb_cfi_sec(CFI_cdesc_t *d, MPI_Count count, int datatype, int *sect, int *ierror, int on, int handle)
{
    *sect = FB_TO(Datatype, MPI_DATATYPE_NULL);
    if (CFI_is_contiguous(d) || count == 0) return d->base_addr;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = fb_section_type(d, count, FB_FROM(Datatype, datatype), &t);
    if (rc == MPI_SUCCESS) {
        *sect = FB_TO(Datatype, t);
        return d->base_addr;
    }
    fb_raise(on, handle, rc);
    fb_ret(ierror, rc);
    return FB_BAD;
}

/* MPI_F_SYNC_REG(BUF): does nothing, out of the compiler's sight, so that
 * BUF is stored before and reloaded after (MPI-4.1 section 19.1.17). */
void pmpi_f_sync_reg_(void *buf) { (void)buf; }
FB_ALIAS(mpi_f_sync_reg_, pmpi_f_sync_reg_)
