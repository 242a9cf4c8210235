/*
 * copy_ceiling: the memory-copy bandwidth of this machine, the ceiling of put-bw and get-bw in
 * one JVM (and of MPICH's over shared memory). A round copies 64 blocks of SIZE bytes from one
 * buffer into another, block j at slot j mod (W / SIZE) of buffers of W = min(64 x SIZE, 64 MiB)
 * bytes: the very pattern of rmabench's put-bw. Measured with one thread (what one origin's put
 * does, in vertx-rma as in MPICH), then with two threads that each copy half of every block (a
 * round ends when both are done): no copy can beat the second figure on this machine.
 *
 * usage: copy_ceiling [SIZE [ROUNDS]]   (defaults 4194304 and 200)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCKS 64
#define MAX_W ((size_t) 64 << 20)

static unsigned char *src, *dst;
static size_t size, slots;
static int rounds;
static atomic_int go, done;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Copies part `part` of `parts` of every block of one round. */
static void copy_round(int part, int parts)
{
    size_t share = size / (size_t) parts;
    size_t from = share * (size_t) part;
    size_t len = part == parts - 1 ? size - from : share;
    for (size_t j = 0; j < BLOCKS; j++) {
        size_t at = (j % slots) * size + from;
        memcpy(dst + at, src + at, len);
    }
}

/* The second thread: copies its half of each round when the first says go. */
static void *helper(void *arg)
{
    (void) arg;
    for (int r = 1; r <= rounds; r++) {
        while (atomic_load_explicit(&go, memory_order_acquire) < r) {
            /* spin: a sleeping thread would time its wake-up, not the copy */
        }
        copy_round(1, 2);
        atomic_store_explicit(&done, r, memory_order_release);
    }
    return NULL;
}

/* Median MB/s of `rounds` rounds (after as many unmeasured ones), with 1 or 2 threads. */
static double measure(int threads)
{
    double *mbps = malloc(sizeof(double) * (size_t) rounds);
    pthread_t t;
    for (int pass = 0; pass < 2; pass++) {
        atomic_store(&go, 0);
        atomic_store(&done, 0);
        if (threads == 2) pthread_create(&t, NULL, helper, NULL);
        for (int r = 1; r <= rounds; r++) {
            double t0 = now();
            if (threads == 2) atomic_store_explicit(&go, r, memory_order_release);
            copy_round(0, threads);
            if (threads == 2)
                while (atomic_load_explicit(&done, memory_order_acquire) < r) {
                }
            mbps[r - 1] = (double) BLOCKS * (double) size / (now() - t0) / 1e6;
        }
        if (threads == 2) pthread_join(t, NULL);
    }
    qsort(mbps, (size_t) rounds, sizeof(double), cmp_double);
    double median = mbps[rounds / 2];
    free(mbps);
    return median;
}

int main(int argc, char **argv)
{
    size = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t) 4 << 20;
    rounds = argc > 2 ? atoi(argv[2]) : 200;
    if (size < 64 || size > MAX_W || rounds < 1) {
        fprintf(stderr, "usage: copy_ceiling [SIZE (64 .. 67108864) [ROUNDS]]\n");
        return 2;
    }
    size_t w = (size_t) BLOCKS * size < MAX_W ? (size_t) BLOCKS * size : MAX_W;
    slots = w / size;
    src = aligned_alloc(4096, (w + 4095) / 4096 * 4096);
    dst = aligned_alloc(4096, (w + 4095) / 4096 * 4096);
    if (!src || !dst) {
        fprintf(stderr, "copy_ceiling: out of memory\n");
        return 1;
    }
    for (size_t k = 0; k < w; k++) src[k] = (unsigned char) (k * 31 + 7);
    memset(dst, 0, w);
    double one = measure(1), two = measure(2);
    printf("copy of %zu-byte blocks, 64 per round: 1 thread %.0f MB/s, 2 threads %.0f MB/s (%.2fx)\n",
           size, one, two, two / one);
    return 0;
}
