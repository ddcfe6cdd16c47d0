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
 * The hot paths read only what is here: Comm_rank/size (abi_comm), Wtime
 * (env.c), and RMA into mapped ranks, flush and shared locks (abi_win with
 * each rank's mapped memory and lock words, and windows' own epoch state:
 * rma.c), and the symmetric heap's host API (abi_shmem: gshmem.c). Add
 * fields at the end of a struct, mirror them in state.go, and
 * TestStateLayout keeps the two honest.
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

/* One rank of a window as this process reaches it by load and store
 * (windows.Target): data is NULL when the rank's memory is not mapped here
 * (or is empty) and the Go path serves it. */
typedef struct abi_target {
    uint8_t *data;          /* the rank's window memory */
    int64_t size;           /* its bytes */
    int64_t unit;           /* its displacement unit */
    uint32_t *lock;         /* reader ins, reader outs, writer tickets, served */
    uint32_t *bell;         /* the doorbell of the heap: seq, user, ctrl */
    int64_t mapped;         /* 1: lock and bell are valid */
} abi_target;

/* abi_win.fast: which hot paths of rma.c may run on the window. */
enum {
    ABI_WIN_FAST_RMA = 1,       /* put, get, accumulate to mapped ranks */
    ABI_WIN_FAST_LOCK = 2,      /* shared locks, lock_all, flush */
    ABI_WIN_FAST_ALLMAPPED = 4  /* every rank is mapped: flush_all, unlock_all */
};

/* The epoch state windows keeps in abi_win.epoch (windows.Win.Bind): a
 * header, then access[n] and locks[n]. TestEpochConstants checks these
 * values against package windows. */
typedef struct abi_epoch {
    uint8_t lock_all;       /* ABI_LOCK_SHARED | ABI_LOCK_NOCHECK while lock_all is held */
    uint8_t fence;          /* ABI_FENCE_NONE outside a fence epoch */
    uint8_t in_start;       /* inside an access epoch of MPI_Win_start */
    uint8_t pad;
    int32_t nlocks;         /* ranks locked by MPI_Win_lock */
} abi_epoch;

enum {
    ABI_ACC_NONE = 0,       /* access[t]: no epoch open to t */
    ABI_ACC_OPEN = 1,       /* an epoch is open: operations may go to t */
    ABI_ACC_LOCKALL = 4,    /* lock_all: t's shared lock is taken on first use */
    ABI_LOCK_EXCLUSIVE = 1, /* locks[t] values */
    ABI_LOCK_SHARED = 2,
    ABI_LOCK_NOCHECK = 0x80,
    ABI_FENCE_NONE = 0,
    ABI_LOCK_READER = 0x100, /* a reader's increment of the lock words */
    ABI_LOCK_WRITER = 0x3    /* writer bits in the reader ins */
};

/* A window. The attribute values live here because MPI_Win_get_attr
 * returns pointers to them (MPI_WIN_SIZE is an MPI_Aint *); the rest is
 * what rma.c's hot paths read, published by Go when fast is set. */
typedef struct abi_win {
    abi_obj hdr;
    uintptr_t errhandler;   /* the MPI_Errhandler attached */
    void *base;             /* MPI_WIN_BASE */
    intptr_t size;          /* MPI_WIN_SIZE */
    int32_t disp_unit;      /* MPI_WIN_DISP_UNIT */
    int32_t flavor;         /* MPI_WIN_CREATE_FLAVOR */
    int32_t model;          /* MPI_WIN_MODEL */
    int32_t pad;
    int32_t n;              /* ranks */
    int32_t me;             /* this process's rank */
    int64_t fast;           /* ABI_WIN_FAST_* bits; 0: every call goes to Go */
    abi_epoch *epoch;       /* windows' epoch state, then access[n], locks[n] */
    abi_target *targets;    /* n ranks */
    uint8_t *dirty;         /* n: 1 where puts went since the rank's doorbell rang */
} abi_win;

/* The process's MPI state. */
typedef struct abi_state {
    int32_t initialized;    /* MPI_Init has returned */
    int32_t finalized;      /* MPI_Finalize has returned */
    int32_t thread_level;   /* the level MPI_Init_thread provided */
    int32_t last_used_code; /* the MPI_LASTUSEDCODE attribute */
    abi_comm *comm_world;   /* the object behind MPI_COMM_WORLD */
    abi_comm *comm_self;    /* the object behind MPI_COMM_SELF */
    int32_t aborted;        /* the job is ending (the World's context is done) */
    int32_t pad;
} abi_state;

extern abi_state abi_global;

/* One object of gshmem_malloc: its heap offset and bytes (abi_shmem.objs). */
typedef struct abi_shm_obj {
    uint64_t off;
    uint64_t size;
} abi_shm_obj;

/* The symmetric heap's C host API (gshmem.h, shm.h, gshmem.c): what its
 * hot paths read to put, get and update a PE's heap directly when this
 * process maps it. objs lists the live objects of gshmem_malloc by offset,
 * the only memory the calls accept; Go rewrites it under seq, a seqlock
 * (odd while a rewrite is under way), and never frees an array a reader
 * may still hold before gshmem_finalize. */
typedef struct abi_shmem {
    int32_t initialized;    /* gshmem_init has returned and gshmem_finalize not */
    int32_t my_pe;
    int32_t n_pes;
    int32_t aborted;        /* the job is ending: every call goes to Go, which reports it */
    uint8_t *base;          /* this PE's heap */
    uint8_t **peers;        /* [n_pes]: each PE's heap as mapped here, NULL where not */
    uint32_t **bells;       /* [n_pes]: the doorbell of each mapped heap */
    uint64_t seq;           /* objs's seqlock */
    abi_shm_obj *objs;      /* [nobjs], by offset */
    int64_t nobjs;
    int64_t pending;        /* an operation went through Go since the last quiet */
} abi_shmem;

extern abi_shmem abi_shm;

/* MPI_Status's private words (MPI_internal[]): the byte count, split in
 * two ints, and the cancelled flag. */
enum {
    ABI_STATUS_COUNT_LO = 0,
    ABI_STATUS_COUNT_HI = 1,
    ABI_STATUS_CANCELLED = 2
};

#endif
