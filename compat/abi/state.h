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

/* compat's point-to-point engine as it publishes it
 * (compat/internal/p2pstate: Engine, then one Peer per PE), for the eager
 * fast path of p2p.c. compat's ring format: a ring is ring_cells cells of
 * ABI_P2P_CELL bytes; a message is a header (the stamp, its absolute cell
 * position plus one, stored last; kind | length << 8; tag | context << 32;
 * a word for control messages) and its payload, rounded up to whole cells,
 * wrapping at the ring's end. */
enum {
    ABI_P2P_CELL = 64,
    ABI_P2P_HDR = 32,
    ABI_P2P_EAGER = 1,       /* the kind of an eager message */
    ABI_P2P_CREDIT_BASE = 8, /* control word BASE+p: cells of our ring at p that p consumed */
    ABI_P2P_TAG_BARRIER = 1  /* the tag of MPI_Barrier's messages, in the collective context */
};

/* The bit that makes a communicator's context its collective context. */
#define ABI_P2P_COLL_BIT 0x80000000u

/* The tag of the small MPI_Allreduce's messages (p2p.c), in the
 * collective context. */
#define ABI_P2P_TAG_ALLREDUCE 16

/* The element types the small MPI_Allreduce folds (abi_type_red). */
enum {
    ABI_RED_NONE = 0,
    ABI_RED_I8, ABI_RED_I16, ABI_RED_I32, ABI_RED_I64,
    ABI_RED_U8, ABI_RED_U16, ABI_RED_U32, ABI_RED_U64,
    ABI_RED_F32, ABI_RED_F64
};

typedef struct abi_p2p {
    uint64_t posted;        /* receives posted in Go and not matched */
    uint64_t unexpected;    /* arrived messages not matched */
    uint64_t queued;        /* messages waiting for ring space */
    uint64_t ring_cells;    /* a power of two */
    uint64_t eager_limit;
    uint8_t *ring_mine;     /* this PE's inbound rings, PE p's at p * ring bytes */
    uint64_t *ctrl_mine;    /* this PE's control words */
    uint64_t taken;         /* messages taken here under lock (MULTIPLE) */
    uint32_t lock;          /* the engine's lock: 0 free, 1 held */
    uint32_t spare;
    int32_t me;
    int32_t n;
} abi_p2p;

typedef struct abi_p2p_peer {
    uint64_t wpos;          /* cells written into our ring at the peer */
    uint64_t credit;        /* cells of it the peer consumed, as last read */
    uint64_t rpos;          /* cells read from the peer's ring here */
    uint64_t returned;      /* rpos as last returned to the peer */
    uint64_t queued;        /* messages waiting for room in the peer's ring */
    uint8_t *ring_out;      /* our ring in the peer's heap, mapped, or NULL */
    uint64_t *ctrl_peer;    /* the peer's control words, mapped, or NULL */
    uint32_t *heap_peer;    /* the peer's heap: its doorbell (seq, user waiters, ...) */
} abi_p2p_peer;

/* The predefined datatypes the fast path sends: abi_type_size[h] is the
 * size of predefined datatype h when its instances are contiguous, 0 for
 * any other handle below ABI_TYPE_TABLE (Go fills it at load). */
#define ABI_TYPE_TABLE 0x400
extern int32_t abi_type_size[ABI_TYPE_TABLE];

/* abi_type_red[h] is the ABI_RED_ element type of predefined datatype h,
 * or ABI_RED_NONE (Go fills it at load). */
extern uint8_t abi_type_red[ABI_TYPE_TABLE];

/* The largest MPI_Allreduce, in bytes, that runs as p2p.c's recursive
 * doubling (with the eager limit, when that is smaller). */
#define ABI_ALLREDUCE_MAX 2048

/* out = lower op upper, elementwise over n elements of ABI_RED_ type t,
 * for the predefined op; returns 0 when p2p.c does not fold that pair. */
int abi_fold(int t, uintptr_t op, void *out, const void *lower, const void *upper, int n);

/* A committed derived datatype as the C fast path of MPI_Send and
 * MPI_Recv packs it (p2p.c): nruns runs (offset from the true lower
 * bound, length) make a tile, reps tiles rstride bytes apart an instance,
 * instances extent bytes apart from the buffer's pointer plus tlb (as
 * mpitype.Map). nruns is 0 for a type that Go left unpublished (more
 * runs, overlapping or descending layouts, an uncommitted type): its
 * messages take the Go path. */
enum { ABI_DT_RUNS = 8 };

typedef struct abi_dtype {
    abi_obj hdr;
    int64_t size;           /* data bytes of one instance */
    int64_t extent;
    int64_t tlb;
    int64_t rstride;
    int32_t reps;
    int32_t nruns;
    int64_t run[ABI_DT_RUNS][2];
} abi_dtype;

/* A communicator. */
typedef struct abi_comm {
    abi_obj hdr;
    int32_t rank;           /* MPI_Comm_rank */
    int32_t size;           /* MPI_Comm_size */
    uintptr_t errhandler;   /* the MPI_Errhandler attached */
    abi_p2p *p2p;           /* the engine's state, or NULL: no fast path */
    const int32_t *pes;     /* the world PE of each rank */
    const int32_t *ranks;   /* the rank of each world PE, -1 for non-members */
    uint32_t ctx;           /* the context id of its point-to-point messages */
    int32_t pad;
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
    /* A dynamic window (windows.Target.Table): the rank's region table,
     * and the region rma.c found last in it, valid while the table's
     * generation is dgen (data then points at its address 0). */
    uint8_t *table;
    uint64_t dgen, dlo, dn;
} abi_target;

/* A dynamic window's region table (windows.DynHeader, ...):
 * TestEpochConstants checks them. */
enum {
    ABI_DYN_HEADER = 64,
    ABI_DYN_SLOTS = 1 << 14,
    ABI_DYN_SLOT = 32,
    ABI_DYN_TABLE = ABI_DYN_HEADER + ABI_DYN_SLOTS * ABI_DYN_SLOT,
    ABI_DYN_POOL = 1
};

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
    ABI_ACC_OPENING = 5,    /* lock_all: a thread is taking t's shared lock */
    ABI_LOCK_EXCLUSIVE = 1, /* locks[t] values */
    ABI_LOCK_SHARED = 2,
    ABI_LOCK_NOCHECK = 0x80,
    ABI_LOCK_TAKING = 0x40, /* a thread is taking or releasing t's lock (windows' lock.go) */
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
    const uint32_t *down;   /* nonzero once a peer is lost or finalized (shmem.World.DownWord) */
} abi_state;

extern abi_state abi_global;

/* abi_never_down is what abi_global.down points at where no peer can be
 * lost, and before MPI_Init. */
extern const uint32_t abi_never_down;

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
    int64_t spin;           /* polls of a wait in C before it is left to Go's (the World's spin, bounded) */
    int64_t *sync;          /* ABI_SHM_SYNC_WORDS words of the heap for the world's barrier in C, or NULL (Go's) */
} abi_shmem;

/* The words of abi_shmem.sync: one per round of a dissemination barrier
 * over up to 2^31 PEs. */
#define ABI_SHM_SYNC_WORDS 32

extern abi_shmem abi_shm;

/* MPI_Status's private words (MPI_internal[]): the byte count, split in
 * two ints, and the cancelled flag. */
enum {
    ABI_STATUS_COUNT_LO = 0,
    ABI_STATUS_COUNT_HI = 1,
    ABI_STATUS_CANCELLED = 2
};

#endif
