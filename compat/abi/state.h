/* state.h: the one layout Go and C share in libmpi_abi.so.1.
 *
 * Go sets objects up (MPI_Init, MPI_Comm_split, MPI_Win_allocate, ...) and
 * publishes what the C hot paths need here; C reads it without crossing
 * into Go (a C->Go call costs about 50 ns, more than a whole 8-byte put
 * into a mapped peer). state.go mirrors every struct field by field and
 * TestStateLayout checks the two agree (offset and size of each field).
 *
 * A user handle (one MPI_Comm_split returns, say) is the address of one of
 * these structs, allocated with malloc by Go: it can never collide with
 * the ABI's predefined handles, which are all below 0x400. Predefined
 * handles are the ABI's constants; the objects behind MPI_COMM_WORLD and
 * MPI_COMM_SELF are abi_global.comm_world and abi_global.comm_self.
 *
 * Where the hot paths go (the "Speed" section), each reads only
 * what is here: Comm_rank/size (abi_comm.rank/size, done), Wtime (done, in
 * env.c), and next RMA into mapped peers (an abi_win with each peer's
 * mapped base, the displacement units and the lock words), flush and
 * lock/unlock, and the eager send into a mapped peer's ring (an abi_comm
 * with the ring addresses and credits). Add fields at the end of a struct,
 * mirror them in state.go, and TestStateLayout keeps the two honest.
 */
#ifndef GSHMEM_ABI_STATE_H
#define GSHMEM_ABI_STATE_H

#include <stdint.h>

/* What a handle's object is (abi_obj.kind). */
enum {
    ABI_KIND_NONE = 0,
    ABI_KIND_COMM = 1,
    ABI_KIND_WIN = 2,
    ABI_KIND_FILE = 3,
    ABI_KIND_SESSION = 4,
    ABI_KIND_DATATYPE = 5,
    ABI_KIND_OP = 6,
    ABI_KIND_GROUP = 7,
    ABI_KIND_REQUEST = 8,
    ABI_KIND_INFO = 9,
    ABI_KIND_ERRHANDLER = 10,
    ABI_KIND_MESSAGE = 11
};

/* abi_obj.magic of a live object; a freed one reads 0. */
#define ABI_MAGIC 0x4d504921u

/* The _toint value of user handle i is ABI_ID_BASE + i, above every
 * predefined value. */
#define ABI_ID_BASE 0x1000

/* The head of every user handle's object. */
typedef struct abi_obj {
    uint32_t magic;
    uint32_t kind;
    int32_t id;  /* MPI_X_toint of the handle */
    int32_t pad;
} abi_obj;

/* A communicator. */
typedef struct abi_comm {
    abi_obj hdr;
    int32_t rank;           /* MPI_Comm_rank */
    int32_t size;           /* MPI_Comm_size */
    uintptr_t errhandler;   /* the MPI_Errhandler attached */
} abi_comm;

/* A window. The attribute values live here because MPI_Win_get_attr
 * returns pointers to them (MPI_WIN_SIZE is an MPI_Aint *). The RMA hot
 * paths will add each target's mapped base and the lock words after
 * these fields. */
typedef struct abi_win {
    abi_obj hdr;
    uintptr_t errhandler;   /* the MPI_Errhandler attached */
    void *base;             /* MPI_WIN_BASE */
    intptr_t size;          /* MPI_WIN_SIZE */
    int32_t disp_unit;      /* MPI_WIN_DISP_UNIT */
    int32_t flavor;         /* MPI_WIN_CREATE_FLAVOR */
    int32_t model;          /* MPI_WIN_MODEL */
    int32_t pad;
} abi_win;

/* The process's MPI state. */
typedef struct abi_state {
    int32_t initialized;    /* MPI_Init has returned */
    int32_t finalized;      /* MPI_Finalize has returned */
    int32_t thread_level;   /* the level MPI_Init_thread provided */
    int32_t last_used_code; /* the MPI_LASTUSEDCODE attribute */
    abi_comm *comm_world;   /* the object behind MPI_COMM_WORLD */
    abi_comm *comm_self;    /* the object behind MPI_COMM_SELF */
} abi_state;

extern abi_state abi_global;

/* MPI_Status's private words (MPI_internal[]): the byte count, split in
 * two ints, and the cancelled flag. */
enum {
    ABI_STATUS_COUNT_LO = 0,
    ABI_STATUS_COUNT_HI = 1,
    ABI_STATUS_CANCELLED = 2
};

#endif
