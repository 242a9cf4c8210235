/*
 * rmabench_native: native MPICH baseline of the vertx-rma OSU-style benchmark.
 *
 *   rmabench_native -b BENCH -s SYNC -z SIZES -i ITERS -w WARMUP [-j JVMS]
 *
 * Rank 0 is the origin, the last rank the target; the others only take part in
 * collectives and fences.  For every size rank 0 prints one line:
 *
 *   @row,BENCH,SYNC,RANKS,JVMS,BYTES,ITERS,MEDIAN_US,P99_US,MB_PER_S
 *
 * Every measured iteration is timed on its own at rank 0 with MPI_Wtime;
 * median = sorted[n/2], p99 = sorted[min(n-1, ceil(0.99*n)-1)].
 *
 * The Java twin performs exactly the same operations; keep them in step.
 */
#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BW_WINDOW    64                         /* ops per put-bw/get-bw iteration */
#define MAX_WIN      ((long long) 64 * 1024 * 1024)
#define MIN_WIN      64LL
#define MAX_SIZES    1024

enum bench {
    B_PUT_LAT, B_GET_LAT, B_ACC_LAT, B_GACC_LAT, B_FOP_LAT, B_CAS_LAT,
    B_PUT_BW, B_GET_BW, B_BARRIER, B_ALLREDUCE, B_FENCE, B_NET_LAT,
    B_NOTIFY_LAT, B_SIGNAL_LAT, B_COUNT
};
static const char *const bench_names[B_COUNT] = {
    "put-latency", "get-latency", "acc-latency", "get-acc-latency",
    "fop-latency", "cas-latency", "put-bw", "get-bw",
    "barrier", "allreduce", "fence", "net-latency",
    "notify-latency", "signal-latency"
};

enum sync { S_LOCKALL, S_LOCK, S_FENCE, S_PSCW, S_COUNT };
static const char *const sync_names[S_COUNT] = { "lockall", "lock", "fence", "pscw" };

static int rank, nranks;

/* Rank 0 prints the message; every rank finalizes and exits 2. */
static void usage_exit(const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "rmabench_native: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr,
                "\nusage: rmabench_native -b BENCH -s SYNC -z SIZES -i ITERS -w WARMUP [-j JVMS]\n"
                "  BENCH: put-latency get-latency acc-latency get-acc-latency fop-latency\n"
                "         cas-latency put-bw get-bw barrier allreduce fence net-latency\n"
                "         notify-latency signal-latency\n"
                "  SYNC:  lockall|lock|fence|pscw\n"
                "  SIZES: comma-separated byte counts (0 .. 67108864)\n");
        fflush(stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* Parses a whole-string decimal integer in [lo, hi]; returns 0 on failure. */
static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v;
    if (s == NULL || *s == '\0' || !(*s == '-' || (*s >= '0' && *s <= '9')))
        return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n == 0 ? 1 : n);
    if (p == NULL) {
        fprintf(stderr, "rmabench_native: rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *bench_arg = NULL, *sync_arg = NULL, *sizes_arg = NULL;
    const char *iters_arg = NULL, *warm_arg = NULL, *jvms_arg = "1";
    int bench = -1, sync = -1;
    long long sizes[MAX_SIZES];
    int nsizes = 0;
    long long v, win_bytes = MIN_WIN;
    int iters, warmup;
    int i, k;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* ---- arguments ------------------------------------------------------ */
    for (i = 1; i < argc; i++) {
        const char *f = argv[i];
        const char **dst;
        if (strcmp(f, "-b") == 0) dst = &bench_arg;
        else if (strcmp(f, "-s") == 0) dst = &sync_arg;
        else if (strcmp(f, "-z") == 0) dst = &sizes_arg;
        else if (strcmp(f, "-i") == 0) dst = &iters_arg;
        else if (strcmp(f, "-w") == 0) dst = &warm_arg;
        else if (strcmp(f, "-j") == 0) dst = &jvms_arg;
        else usage_exit("unknown argument '%s'", f);
        if (i + 1 >= argc)
            usage_exit("missing value for %s", f);
        *dst = argv[++i];
    }
    if (!bench_arg) usage_exit("missing %s", "-b BENCH");
    if (!sync_arg) usage_exit("missing %s", "-s SYNC");
    if (!sizes_arg) usage_exit("missing %s", "-z SIZES");
    if (!iters_arg) usage_exit("missing %s", "-i ITERS");
    if (!warm_arg) usage_exit("missing %s", "-w WARMUP");

    for (k = 0; k < B_COUNT; k++)
        if (strcmp(bench_arg, bench_names[k]) == 0) bench = k;
    if (bench < 0) usage_exit("unknown bench '%s'", bench_arg);
    for (k = 0; k < S_COUNT; k++)
        if (strcmp(sync_arg, sync_names[k]) == 0) sync = k;
    if (sync < 0) usage_exit("unknown sync '%s'", sync_arg);

    if (!parse_ll(iters_arg, 1, 100000000, &v)) usage_exit("bad ITERS '%s' (1 .. 100000000)", iters_arg);
    iters = (int) v;
    if (!parse_ll(warm_arg, 0, 100000000, &v)) usage_exit("bad WARMUP '%s' (0 .. 100000000)", warm_arg);
    warmup = (int) v;
    if (!parse_ll(jvms_arg, LLONG_MIN, LLONG_MAX, &v)) usage_exit("bad JVMS '%s' (integer)", jvms_arg);

    {
        const char *p = sizes_arg;
        char tok[32];
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t) (comma - p) : strlen(p);
            if (len == 0 || len >= sizeof tok || nsizes >= MAX_SIZES)
                usage_exit("bad SIZES '%s'", sizes_arg);
            memcpy(tok, p, len);
            tok[len] = '\0';
            if (!parse_ll(tok, 0, MAX_WIN, &v))
                usage_exit("bad size in SIZES '%s' (each 0 .. 67108864)", sizes_arg);
            sizes[nsizes++] = v;
            if (!comma) break;
            p = comma + 1;
        }
    }

    if (nranks < 2 && bench != B_BARRIER && bench != B_ALLREDUCE && bench != B_FENCE)
        usage_exit("bench %s needs at least 2 ranks", bench_names[bench]);

    /* The sync column and the effective sync of the run. */
    const char *sync_col;
    if (bench == B_PUT_LAT || bench == B_GET_LAT) {
        sync_col = sync_names[sync];
    } else if (bench == B_BARRIER || bench == B_ALLREDUCE || bench == B_FENCE || bench == B_NET_LAT) {
        sync_col = "-";
    } else if (bench == B_NOTIFY_LAT || bench == B_SIGNAL_LAT) {
        sync = S_LOCKALL;   /* both ends hold lock_all for the whole exchange */
        sync_col = "-";
    } else {
        sync = S_LOCKALL;
        sync_col = "lockall";
    }

    /* fop/cas run once at 8 bytes; barrier/fence once at 0 bytes. */
    long long run_sizes[MAX_SIZES];
    int nrun;
    if (bench == B_FOP_LAT || bench == B_CAS_LAT) {
        run_sizes[0] = 8; nrun = 1;
    } else if (bench == B_BARRIER || bench == B_FENCE) {
        run_sizes[0] = 0; nrun = 1;
    } else {
        memcpy(run_sizes, sizes, sizeof(long long) * (size_t) nsizes);
        nrun = nsizes;
    }

    /* W = max over the SIZES of min(64*size, 64 MiB), at least 64 bytes. */
    for (k = 0; k < nsizes; k++) {
        long long w = BW_WINDOW * sizes[k];
        if (w > MAX_WIN) w = MAX_WIN;
        if (w > win_bytes) win_bytes = w;
    }
    const MPI_Aint W = (MPI_Aint) win_bytes;

    /* ---- buffers and window ------------------------------------------- */
    unsigned char *winbuf = NULL;
    MPI_Win win;
    MPI_Win_allocate(W, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbuf, &win);
    memset(winbuf, 0, (size_t) W);

    unsigned char *origin = xmalloc((size_t) W);
    unsigned char *result = NULL;
    if (bench == B_ACC_LAT || bench == B_GACC_LAT) {
        int64_t *o64 = (int64_t *) origin;
        for (k = 0; k < (int) (W / 8); k++) o64[k] = 1;
    } else {
        for (k = 0; k < (int) W; k++) origin[k] = (unsigned char) ((k * 31 + 7) & 0xff);
    }
    if (bench == B_GACC_LAT) {
        result = xmalloc((size_t) W);
        memset(result, 0, (size_t) W);
    }

    int64_t fop_origin = 1, fop_result = 0, cas_compare = 0;

    double *ar_send = NULL, *ar_recv = NULL;
    if (bench == B_ALLREDUCE) {
        long long maxc = 1;
        for (k = 0; k < nrun; k++) {
            long long c = run_sizes[k] / 8 > 1 ? run_sizes[k] / 8 : 1;
            if (c > maxc) maxc = c;
        }
        ar_send = xmalloc(sizeof(double) * (size_t) maxc);
        ar_recv = xmalloc(sizeof(double) * (size_t) maxc);
        for (k = 0; k < (int) maxc; k++) ar_send[k] = 1.0;
    }

    MPI_Group world_grp, grp0, grp1;
    MPI_Comm_group(MPI_COMM_WORLD, &world_grp);
    {
        int r0 = 0, r1 = nranks - 1;
        MPI_Group_incl(world_grp, 1, &r0, &grp0);
        if (nranks >= 2) MPI_Group_incl(world_grp, 1, &r1, &grp1);
        else grp1 = MPI_GROUP_EMPTY;
    }

    double *samples = (rank == 0) ? xmalloc(sizeof(double) * (size_t) iters) : NULL;
    const int total = warmup + iters;
    const int tgt = nranks - 1;
    const int is_rma = bench != B_BARRIER && bench != B_ALLREDUCE && bench != B_FENCE && bench != B_NET_LAT;
    /* notify/signal ping-pong: the target puts back, so it holds lock_all too */
    const int pingpong = bench == B_NOTIFY_LAT || bench == B_SIGNAL_LAT;

    /* Make sure every rank's zeroed window is in place before any access. */
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- per-size loop ------------------------------------------------- */
    for (int si = 0; si < nrun; si++) {
        const long long size = run_sizes[si];
        const int count = (int) size;                       /* MPI_BYTE count */
        const int acount = size / 8 > 1 ? (int) (size / 8) : 1;  /* int64 / double count */
        /* bw ops: slots of `size` bytes that fit into W; equals (j*size) % W
         * whenever that stays inside the window (see report). */
        const long long slots = size > 0 ? (long long) W / size : 1;
        int it;

        MPI_Barrier(MPI_COMM_WORLD);

        if (is_rma && (rank == 0 || (pingpong && rank == tgt)) && sync == S_LOCKALL)
            MPI_Win_lock_all(0, win);
        if (is_rma && sync == S_FENCE)
            MPI_Win_fence(0, win);

        if (rank == 0) {
            for (it = 0; it < total; it++) {
                double t0 = MPI_Wtime();
                switch (bench) {
                case B_PUT_LAT:
                case B_GET_LAT:
                    switch (sync) {
                    case S_LOCKALL:
                        if (bench == B_PUT_LAT) MPI_Put(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        else MPI_Get(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        MPI_Win_flush(tgt, win);
                        break;
                    case S_LOCK:
                        MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win);
                        if (bench == B_PUT_LAT) MPI_Put(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        else MPI_Get(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        MPI_Win_unlock(tgt, win);
                        break;
                    case S_FENCE:
                        if (bench == B_PUT_LAT) MPI_Put(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        else MPI_Get(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        MPI_Win_fence(0, win);
                        break;
                    case S_PSCW:
                        MPI_Win_start(grp1, 0, win);
                        if (bench == B_PUT_LAT) MPI_Put(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        else MPI_Get(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                        MPI_Win_complete(win);
                        break;
                    }
                    break;
                case B_ACC_LAT:
                    MPI_Accumulate(origin, acount, MPI_INT64_T, tgt, 0, acount, MPI_INT64_T, MPI_SUM, win);
                    MPI_Win_flush(tgt, win);
                    break;
                case B_GACC_LAT:
                    MPI_Get_accumulate(origin, acount, MPI_INT64_T, result, acount, MPI_INT64_T,
                                       tgt, 0, acount, MPI_INT64_T, MPI_SUM, win);
                    MPI_Win_flush(tgt, win);
                    break;
                case B_FOP_LAT:
                    MPI_Fetch_and_op(&fop_origin, &fop_result, MPI_INT64_T, tgt, 0, MPI_SUM, win);
                    MPI_Win_flush(tgt, win);
                    break;
                case B_CAS_LAT:
                    MPI_Compare_and_swap(&fop_origin, &cas_compare, &fop_result, MPI_INT64_T, tgt, 0, win);
                    MPI_Win_flush(tgt, win);
                    break;
                case B_PUT_BW:
                case B_GET_BW:
                    for (int j = 0; j < BW_WINDOW; j++) {
                        MPI_Aint off = (MPI_Aint) ((j % slots) * size);
                        if (bench == B_PUT_BW)
                            MPI_Put(origin + off, count, MPI_BYTE, tgt, off, count, MPI_BYTE, win);
                        else
                            MPI_Get(origin + off, count, MPI_BYTE, tgt, off, count, MPI_BYTE, win);
                    }
                    MPI_Win_flush(tgt, win);
                    break;
                case B_BARRIER:
                    MPI_Barrier(MPI_COMM_WORLD);
                    break;
                case B_ALLREDUCE:
                    MPI_Allreduce(ar_send, ar_recv, acount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                    break;
                case B_FENCE:
                    MPI_Win_fence(0, win);
                    break;
                case B_NOTIFY_LAT:
                case B_SIGNAL_LAT:
                    /* MPICH has no notified RMA: put + flush + a zero-byte message, the
                     * target answers likewise; timed there and back (not halved) */
                    MPI_Put(origin, count, MPI_BYTE, tgt, 0, count, MPI_BYTE, win);
                    MPI_Win_flush(tgt, win);
                    MPI_Send(NULL, 0, MPI_BYTE, tgt, 2, MPI_COMM_WORLD);
                    MPI_Recv(NULL, 0, MPI_BYTE, tgt, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    break;
                case B_NET_LAT:
                    /* osu_latency's exchange, timed there and back (not halved) */
                    MPI_Send(origin, count, MPI_BYTE, tgt, 1, MPI_COMM_WORLD);
                    MPI_Recv(origin, count, MPI_BYTE, tgt, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    break;
                }
                double t1 = MPI_Wtime();
                if (it >= warmup)
                    samples[it - warmup] = (t1 - t0) * 1e6;
            }
        } else {
            /* Passive ranks: only what the spec requires of them. */
            for (it = 0; it < total; it++) {
                if (bench == B_BARRIER) MPI_Barrier(MPI_COMM_WORLD);
                else if (bench == B_ALLREDUCE)
                    MPI_Allreduce(ar_send, ar_recv, acount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                else if (bench == B_FENCE || sync == S_FENCE) MPI_Win_fence(0, win);
                else if (bench == B_NET_LAT && rank == nranks - 1) {
                    MPI_Recv(origin, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(origin, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
                else if (pingpong && rank == tgt) {
                    MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Put(origin, count, MPI_BYTE, 0, 0, count, MPI_BYTE, win);
                    MPI_Win_flush(0, win);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
                }
                else if (sync == S_PSCW && rank == nranks - 1) {
                    MPI_Win_post(grp0, 0, win);
                    MPI_Win_wait(win);
                } else break;   /* lockall / lock / pscw idle ranks */
            }
        }

        if (is_rma && (rank == 0 || (pingpong && rank == tgt)) && sync == S_LOCKALL)
            MPI_Win_unlock_all(win);

        if (rank == 0) {
            qsort(samples, (size_t) iters, sizeof(double), cmp_double);
            int p99i = (int) ceil(0.99 * iters) - 1;
            if (p99i > iters - 1) p99i = iters - 1;
            if (p99i < 0) p99i = 0;
            double median = samples[iters / 2];
            double p99 = samples[p99i];
            if (bench == B_PUT_BW || bench == B_GET_BW) {
                double mbps = (double) BW_WINDOW * (double) size / median;
                printf("@row,%s,%s,%d,%s,%lld,%d,%.3f,%.3f,%.1f\n", bench_names[bench], sync_col,
                       nranks, jvms_arg, size, iters, median, p99, mbps);
            } else {
                printf("@row,%s,%s,%d,%s,%lld,%d,%.3f,%.3f,\n", bench_names[bench], sync_col,
                       nranks, jvms_arg, size, iters, median, p99);
            }
            fflush(stdout);
        }

        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* ---- teardown ------------------------------------------------------ */
    MPI_Group_free(&grp0);
    if (grp1 != MPI_GROUP_EMPTY) MPI_Group_free(&grp1);
    MPI_Group_free(&world_grp);
    MPI_Win_free(&win);
    free(samples);
    free(origin);
    free(result);
    free(ar_send);
    free(ar_recv);
    MPI_Finalize();
    return 0;
}
