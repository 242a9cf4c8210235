/*
 * barrier_floor: what the cheapest barrier of P processes costs on this machine, the floor under
 * any barrier of P ranks that cannot all spin on a core of their own. Processes meet in a shared
 * counter and a generation word (one anonymous shared page); the last to arrive bumps the
 * generation and wakes the others with one FUTEX_WAKE, the others spin SPIN times and then sleep
 * in FUTEX_WAIT. With no more processes than cores and SPIN large, it is a spinning barrier (what
 * MPICH does over shared memory); with more processes than cores, every barrier needs the kernel
 * to switch them in, and no library can do better than this.
 *
 * usage: barrier_floor P [ROUNDS [SPIN]]   (defaults: 2000 warm-up rounds, then ROUNDS = 50000 and SPIN = 0)
 * prints: P processes, SPIN spins: T us per barrier (mean of the measured rounds, at process 0)
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 2000

struct meeting {
    _Atomic int count;
    _Atomic int generation;
};

static long futex(_Atomic int *word, int op, int value)
{
    return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void run(struct meeting *m, int p, int rounds, long spin, int me)
{
    double start = 0;
    for (int i = 0; i < WARMUP + rounds; i++) {
        if (i == WARMUP) {
            start = now_us();
        }
        int generation = atomic_load(&m->generation);
        if (atomic_fetch_add(&m->count, 1) == p - 1) {
            atomic_store(&m->count, 0);
            atomic_fetch_add(&m->generation, 1);
            futex(&m->generation, FUTEX_WAKE, INT_MAX);
        } else {
            for (long s = 0; atomic_load(&m->generation) == generation; s++) {
                if (s >= spin) {
                    futex(&m->generation, FUTEX_WAIT, generation);
                }
            }
        }
    }
    if (me == 0) {
        printf("%d processes, %ld spins: %.2f us per barrier\n", p, spin, (now_us() - start) / rounds);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: barrier_floor P [ROUNDS [SPIN]]\n");
        return 2;
    }
    int p = atoi(argv[1]);
    int rounds = argc > 2 ? atoi(argv[2]) : 50000;
    long spin = argc > 3 ? atol(argv[3]) : 0;
    if (p < 1 || rounds < 1 || spin < 0) {
        fprintf(stderr, "barrier_floor: P and ROUNDS must be positive, SPIN not negative\n");
        return 2;
    }
    struct meeting *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("barrier_floor: mmap");
        return 1;
    }
    for (int i = 0; i < p; i++) {
        pid_t child = fork();
        if (child < 0) {
            perror("barrier_floor: fork");
            return 1;
        }
        if (child == 0) {
            run(m, p, rounds, spin, i);
            return 0;
        }
    }
    int failed = 0;
    for (int i = 0; i < p; i++) {
        int status;
        if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            failed = 1;
        }
    }
    return failed;
}
