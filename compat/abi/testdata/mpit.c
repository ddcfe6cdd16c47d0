/* mpit.c: the MPI tools interface as a tool sees it. Before MPI_Init:
 * every call before MPI_T_init_thread is MPI_T_ERR_NOT_INITIALIZED,
 * init is reference counted, every control variable is enumerated, read
 * (its text is the environment's, its choice one of its enumeration's
 * items) and refused writing, categories cover every variable once,
 * there are no events, and one source. After MPI_Init, performance
 * variables count the messages, bytes and RMA operations this program
 * causes, exactly, per handle with start, stop, read, readreset, reset
 * and write, and every misuse gets its MPI_T error code. Runs on 2. */
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "check.h"

#define EXPECT(call, code) CHECK((call) == (code))

static int rank;

static void before_init(void)
{
    int n;
    MPI_T_pvar_session s;
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    int prov = -1;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    CHECK(prov == MPI_THREAD_SINGLE);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov));
    CHECK(prov == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_T_finalize()); /* one reference left */
    CHECK_RC(MPI_T_cvar_get_num(&n));
}

static void cvars(void)
{
    int num, seen_choice = 0, seen_text = 0;
    CHECK_RC(MPI_T_cvar_get_num(&num));
    CHECK(num > 20);
    for (int i = 0; i < num; i++) {
        char name[256], desc[2048];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope, idx, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        CHECK_RC(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &et, desc, &dlen, &bind, &scope));
        CHECK(nlen == (int)strlen(name) + 1 && dlen == (int)strlen(desc) + 1 && dlen > 1);
        CHECK(bind == MPI_T_BIND_NO_OBJECT);
        CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY);
        CHECK(strncmp(name, "GSHMEM_", 7) == 0);
        CHECK_RC(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i);
        int need = 0;
        CHECK_RC(MPI_T_cvar_get_info(i, NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(need == nlen);
        char shortname[4];
        int slen = sizeof shortname;
        CHECK_RC(MPI_T_cvar_get_info(i, shortname, &slen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(slen == 4 && strcmp(shortname, "GSH") == 0);
        MPI_T_cvar_handle h;
        CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        if (dt == MPI_INT) {
            int v, items;
            char ename[256], iname[256];
            int elen = sizeof ename, ilen = sizeof iname;
            CHECK(et != MPI_T_ENUM_NULL && count == 1);
            CHECK_RC(MPI_T_cvar_read(h, &v));
            CHECK_RC(MPI_T_enum_get_info(et, &items, ename, &elen));
            CHECK(items >= 2 && v >= 0 && v < items && strcmp(ename, name) == 0);
            EXPECT(MPI_T_enum_get_item(et, items, &v, iname, &ilen), MPI_T_ERR_INVALID_ITEM);
            int iv;
            CHECK_RC(MPI_T_enum_get_item(et, v, &iv, iname, &ilen));
            CHECK(iv == v);
            const char *env = getenv(name);
            if (env != NULL && *env != '\0')
                CHECK(strcasecmp(env, iname) == 0);
            if (strcmp(name, "GSHMEM_REMOTE_TRANSPORT") == 0 && (env == NULL || *env == '\0'))
                CHECK(strcmp(iname, "tcp") == 0); /* the default */
            if (rank == 0)
                printf("cvar %s = %s\n", name, iname);
            seen_choice++;
        } else {
            CHECK(dt == MPI_CHAR && et == MPI_T_ENUM_NULL && count >= 1);
            char *v = malloc((size_t)count);
            CHECK_RC(MPI_T_cvar_read(h, v));
            const char *env = getenv(name);
            CHECK(strcmp(v, env ? env : "") == 0);
            if (strcmp(name, "GSHMEM_TCP_ADDR") == 0)
                CHECK(strcmp(v, "127.0.0.1") == 0);
            if (strcmp(name, "GSHMEM_RANK") == 0)
                CHECK(scope == MPI_T_SCOPE_CONSTANT && atoi(v) == rank);
            if (rank == 0)
                printf("cvar %s = \"%s\"\n", name, v);
            free(v);
            seen_text++;
        }
        int zero = 0;
        EXPECT(MPI_T_cvar_write(h, &zero), MPI_T_ERR_CVAR_SET_NEVER);
        CHECK_RC(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL);
        EXPECT(MPI_T_cvar_read(h, name), MPI_T_ERR_INVALID_HANDLE);
    }
    CHECK(seen_choice >= 3 && seen_text >= 10);
    int idx;
    EXPECT(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_index("GSHMEM_NO_SUCH", &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_cvar_get_index("GSHMEM_JOB_SECRET", &idx), MPI_T_ERR_INVALID_NAME); /* never shown */
    MPI_T_cvar_handle h;
    int count;
    EXPECT(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    int items;
    EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &items, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
}

static void categories(void)
{
    int num, ncv, npv;
    CHECK_RC(MPI_T_category_get_num(&num));
    CHECK_RC(MPI_T_cvar_get_num(&ncv));
    CHECK_RC(MPI_T_pvar_get_num(&npv));
    CHECK(num >= 2);
    int cvseen[256] = {0}, pvseen[256] = {0};
    CHECK(ncv < 256 && npv < 256);
    for (int i = 0; i < num; i++) {
        char name[256];
        int nlen = sizeof name, cv, pv, cats, idx, nev;
        CHECK_RC(MPI_T_category_get_info(i, name, &nlen, NULL, NULL, &cv, &pv, &cats));
        CHECK_RC(MPI_T_category_get_index(name, &idx));
        CHECK(idx == i);
        int buf[256];
        CHECK(cv < 256 && pv < 256 && cats < 256);
        CHECK_RC(MPI_T_category_get_cvars(i, cv, buf));
        for (int k = 0; k < cv; k++)
            cvseen[buf[k]]++;
        CHECK_RC(MPI_T_category_get_pvars(i, pv, buf));
        for (int k = 0; k < pv; k++)
            pvseen[buf[k]]++;
        CHECK_RC(MPI_T_category_get_categories(i, cats, buf));
        for (int k = 0; k < cats; k++)
            CHECK(buf[k] > i && buf[k] < num); /* no cycles */
        CHECK_RC(MPI_T_category_get_num_events(i, &nev));
        CHECK(nev == 0);
        CHECK_RC(MPI_T_category_get_events(i, 0, buf));
        if (rank == 0)
            printf("category %s: %d cvars, %d pvars, %d categories\n", name, cv, pv, cats);
    }
    for (int k = 0; k < ncv; k++)
        CHECK(cvseen[k] == 1);
    for (int k = 0; k < npv; k++)
        CHECK(pvseen[k] == 1);
    int u1, u2, idx;
    CHECK_RC(MPI_T_category_changed(&u1));
    CHECK_RC(MPI_T_category_changed(&u2));
    CHECK(u1 == u2);
    EXPECT(MPI_T_category_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_category_get_index("nope", &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
}

static void events_and_sources(void)
{
    int n, idx;
    CHECK_RC(MPI_T_event_get_num(&n));
    CHECK(n == 0);
    EXPECT(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_event_get_index("x", &idx), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_event_handle_free((MPI_T_event_registration)0, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    MPI_Count ts;
    EXPECT(MPI_T_event_get_timestamp((MPI_T_event_instance)0, &ts), MPI_T_ERR_INVALID_HANDLE);
    int src;
    EXPECT(MPI_T_event_get_source((MPI_T_event_instance)0, &src), MPI_T_ERR_INVALID_HANDLE);

    CHECK_RC(MPI_T_source_get_num(&n));
    CHECK(n == 1);
    char name[64];
    int nlen = sizeof name;
    MPI_T_source_order ord;
    MPI_Count tps, maxt, t1, t2;
    MPI_Info info;
    CHECK_RC(MPI_T_source_get_info(0, name, &nlen, NULL, NULL, &ord, &tps, &maxt, &info));
    CHECK(ord == MPI_T_SOURCE_ORDERED && tps == 1000000000 && maxt > 0);
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_T_source_get_timestamp(0, &t1));
    usleep(2000);
    CHECK_RC(MPI_T_source_get_timestamp(0, &t2));
    CHECK(t2 > t1);
    EXPECT(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
}

enum { SENT, SBYTES, RECVD, RBYTES, RMA, WAIT, UNEXP, NPV };
static const char *pvname[NPV] = {"gshmem_messages_sent", "gshmem_bytes_sent", "gshmem_messages_received",
                                  "gshmem_bytes_received", "gshmem_rma_operations", "gshmem_wait_time",
                                  "gshmem_unexpected_messages"};
static const int pvclass[NPV] = {MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER,
                                 MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_TIMER,
                                 MPI_T_PVAR_CLASS_LEVEL};

static unsigned long long rd(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    CHECK_RC(MPI_T_pvar_read(s, h, &v));
    return v;
}

static void pvars(void)
{
    int num;
    CHECK_RC(MPI_T_pvar_get_num(&num));
    CHECK(num >= NPV);
    for (int i = 0; i < num; i++) {
        char name[256];
        int nlen = sizeof name, verb, cls, bind, ro, cont, at;
        MPI_Datatype dt;
        MPI_T_enum et;
        CHECK_RC(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &et, NULL, NULL, &bind, &ro, &cont, &at));
        int idx;
        CHECK_RC(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i);
        EXPECT(MPI_T_pvar_get_index(name, cls == MPI_T_PVAR_CLASS_STATE ? 2 : MPI_T_PVAR_CLASS_STATE, &idx), MPI_T_ERR_INVALID_NAME);
        if (cls == MPI_T_PVAR_CLASS_COUNTER)
            CHECK(dt == MPI_UNSIGNED_LONG_LONG && !ro && !cont);
        if (cls == MPI_T_PVAR_CLASS_TIMER)
            CHECK(dt == MPI_DOUBLE);
        if (cls == MPI_T_PVAR_CLASS_LEVEL)
            CHECK(ro && cont);
        if (rank == 0)
            printf("pvar %s class %d readonly %d continuous %d\n", name, cls, ro, cont);
    }
    EXPECT(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);

    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h[NPV], other;
    CHECK_RC(MPI_T_pvar_session_create(&s));
    CHECK_RC(MPI_T_pvar_session_create(&s2));
    for (int k = 0; k < NPV; k++) {
        int idx, count;
        CHECK_RC(MPI_T_pvar_get_index(pvname[k], pvclass[k], &idx));
        CHECK_RC(MPI_T_pvar_handle_alloc(s, idx, NULL, &h[k], &count));
        CHECK(count == 1);
        if (k == SENT)
            CHECK_RC(MPI_T_pvar_handle_alloc(s2, idx, NULL, &other, &count));
    }
    EXPECT(MPI_T_pvar_read(s, other, NULL), MPI_T_ERR_INVALID_HANDLE); /* s2's handle */
    EXPECT(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h[0], NULL), MPI_T_ERR_INVALID_SESSION);
    unsigned long long v;
    EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_start(s, h[UNEXP]), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_write(s, h[UNEXP], &v), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_reset(s, h[UNEXP]), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_readreset(s, h[UNEXP], &v), MPI_T_ERR_PVAR_NO_WRITE);
    (void)rd(s, h[UNEXP]);

    /* Stopped handles read 0 and stay there. */
    for (int k = 0; k < RMA; k++)
        CHECK(rd(s, h[k]) == 0);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* 10 eager messages of 400 bytes and one of 100000 (a rendezvous). */
    static int big[25000];
    int small[100];
    for (int i = 0; i < 100; i++)
        small[i] = i;
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    if (rank == 0) {
        for (int i = 0; i < 10; i++)
            CHECK_RC(MPI_Send(small, 100, MPI_INT, 1, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(big, 25000, MPI_INT, 1, 8, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (int i = 0; i < 10; i++)
            CHECK_RC(MPI_Recv(small, 100, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(big, 25000, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    unsigned long long want_sent = rank == 0 ? 11 : 0, want_recvd = rank == 1 ? 11 : 0;
    CHECK(rd(s, h[SENT]) == want_sent);
    CHECK(rd(s, h[SBYTES]) == want_sent / 11 * 104000);
    CHECK(rd(s, h[RECVD]) == want_recvd);
    CHECK(rd(s, h[RBYTES]) == want_recvd / 11 * 104000);
    CHECK(rd(s2, other) == 0); /* never started */
    double wt;
    CHECK_RC(MPI_T_pvar_read(s, h[WAIT], &wt));
    CHECK(wt >= 0);

    /* Stopped: the barrier's messages are not counted. */
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(rd(s, h[SENT]) == want_sent);
    /* readreset, write, reset. */
    CHECK_RC(MPI_T_pvar_readreset(s, h[SENT], &v));
    CHECK(v == want_sent && rd(s, h[SENT]) == 0);
    v = 5;
    CHECK_RC(MPI_T_pvar_write(s, h[RECVD], &v));
    CHECK(rd(s, h[RECVD]) == 5);
    CHECK_RC(MPI_T_pvar_reset(s, h[RECVD]));
    CHECK(rd(s, h[RECVD]) == 0);

    /* RMA: 3 puts, a get and an accumulate from rank 0 to rank 1. */
    int *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_T_pvar_start(s, h[RMA]));
    if (rank == 0) {
        int one = 1, got;
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Put(&one, 1, MPI_INT, 1, i, 1, MPI_INT, win));
        CHECK_RC(MPI_Get(&got, 1, MPI_INT, 1, 3, 1, MPI_INT, win));
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win));
    }
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(rd(s, h[RMA]) == (rank == 0 ? 5u : 0u));
    CHECK_RC(MPI_T_pvar_stop(s, h[RMA]));
    CHECK_RC(MPI_Win_free(&win));

    CHECK_RC(MPI_T_pvar_handle_free(s, &h[SENT]));
    CHECK(h[SENT] == MPI_T_PVAR_HANDLE_NULL);
    CHECK_RC(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
    EXPECT(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);
    CHECK_RC(MPI_T_pvar_session_free(&s2));
}

int main(int argc, char **argv)
{
    rank = atoi(getenv("GSHMEM_RANK") ? getenv("GSHMEM_RANK") : "0");
    before_init();
    cvars();
    events_and_sources();
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    categories();
    pvars();
    CHECK_RC(MPI_Finalize());
    CHECK_RC(MPI_T_finalize());
    int n;
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    printf("mpit ok %d\n", rank);
    return 0;
}
