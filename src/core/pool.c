/*
 * A process-wide pool of persistent POSIX threads (see pool.h).
 *
 * One mutex guards everything: a FIFO of jobs that still have indices nobody
 * has started, and per job the next index to hand out and how many handed-out
 * indices are still running on pool threads. A pool thread takes the next
 * index of the oldest job; a caller, once its index 0 returned, takes the
 * remaining indices of its own job itself, then waits only for the indices pool
 * threads are already running. Those are running (not queued), so every wait
 * ends, whatever other callers and nested calls do: a waiting caller never
 * waits on work that needs it, and a pool thread running a nested call is
 * itself that call's caller.
 *
 * The calling thread holds the lock only to hand out indices, so an index
 * costs two lock round trips; callers give each index a large share of work
 * (chunks from an atomic counter), so this does not show.
 *
 * Waiting threads (pool threads between jobs, callers for their running
 * indices) spin for tens of microseconds before they sleep on a condition
 * variable, unless the pool has as many threads as the machine has cores:
 * waking a sleeping thread costs as much, and a build hands the pool several
 * jobs within a millisecond.
 *
 * Exit: pool threads are detached and blocked on a condition variable between
 * jobs; at exit the process ends them. Nothing is allocated (jobs live on their
 * callers' stacks, the thread table is static), so leak checkers have nothing
 * to report, and no thread is left joinable (ThreadSanitizer's "thread leak").
 * Joining them from an atexit handler instead would hang an exit() called while
 * another thread is inside a job, or from inside a worker.
 *
 * fork: the child has none of the parent's pool threads; an atfork handler
 * forgets them (and the queue), so the child's first call grows a new pool.
 */
#include "core/pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

typedef struct pool_job {
    void (*fn)(void *arg, uint32_t index);
    void *arg;
    uint32_t count;
    uint32_t next;       /* next index to hand out */
    atomic_uint running; /* indices running on pool threads (changed under the lock) */
    bool queued;         /* in the pool's FIFO (has indices left to hand out) */
    bool waiting;        /* the caller sleeps on `done` until running == 0 */
    pthread_cond_t done;
    struct pool_job *later; /* FIFO link */
} pool_job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued */
    pool_job *head, *tail;
    uint32_t threads; /* pool threads started */
    uint32_t idle;    /* pool threads waiting on `work` */
    uint32_t cores;   /* online cores (pool_init): waiting threads spin only while threads < cores */
    /* head != NULL, changed under the lock, read by spinning threads: on a
     * cache line of its own, so that their reads do not slow the lock. */
    _Alignas(64) atomic_bool has_work;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 1, false};

/* Pauses a waiting thread spins before it sleeps: tens of microseconds (a
 * pause takes 40 to 140 cycles), about what waking a sleeping thread costs,
 * more on virtual machines, whose idle cores are halted. Only while the pool
 * has fewer threads than the machine has cores: a spinning thread must not
 * take a core from one that works. */
#define MQ_POOL_SPINS 2000

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* A pool thread's spin before it sleeps: until a job is queued, or the spins run out. */
static void spin_for_work(void)
{
    for (int i = 0; i < MQ_POOL_SPINS && !atomic_load_explicit(&pool.has_work, memory_order_acquire); i++)
        cpu_pause();
}

/* A caller's spin before it sleeps: until its indices on pool threads have
 * returned, or the spins run out. */
static void spin_while_running(const atomic_uint *running)
{
    for (int i = 0; i < MQ_POOL_SPINS && atomic_load_explicit(running, memory_order_acquire) > 0; i++)
        cpu_pause();
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

uint32_t mq_thread_count(uint32_t requested)
{
    long n = requested;
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
    }
    return (uint32_t)(n > MQ_POOL_MAX_THREADS ? MQ_POOL_MAX_THREADS : n);
}

/* Removes `job` from the FIFO (lock held). */
static void dequeue(pool_job *job)
{
    pool_job **p = &pool.head, *prev = NULL;
    while (*p && *p != job) {
        prev = *p;
        p = &(*p)->later;
    }
    if (*p) {
        *p = job->later;
        if (pool.tail == job)
            pool.tail = prev;
    }
    job->queued = false;
    atomic_store_explicit(&pool.has_work, pool.head != NULL, memory_order_release);
}

/* Hands out the next index of `job` (lock held, job->next < job->count). */
static uint32_t take_index(pool_job *job)
{
    uint32_t index = job->next++;
    if (job->next == job->count && job->queued)
        dequeue(job);
    return index;
}

static void *pool_thread(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        if (!pool.head && pool.threads < pool.cores) {
            pthread_mutex_unlock(&pool.lock);
            spin_for_work();
            pthread_mutex_lock(&pool.lock);
        }
        while (!pool.head) {
            pool.idle++;
            pthread_cond_wait(&pool.work, &pool.lock);
            pool.idle--;
        }
        pool_job *job = pool.head;
        uint32_t index = take_index(job);
        atomic_fetch_add_explicit(&job->running, 1, memory_order_relaxed);
        pthread_mutex_unlock(&pool.lock);
        job->fn(job->arg, index);
        pthread_mutex_lock(&pool.lock);
        /* Signalled under the lock: the caller cannot return (and free `job`,
         * which lives on its stack) before this thread released the lock. */
        if (atomic_fetch_sub_explicit(&job->running, 1, memory_order_release) == 1 && job->waiting)
            pthread_cond_signal(&job->done);
    }
    return NULL;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&pool.lock);
}
static void fork_parent(void)
{
    pthread_mutex_unlock(&pool.lock);
}

static void fork_child(void)
{
    /* Only the forking thread exists in the child: no pool thread, and the jobs
     * queued by other threads have no caller to finish them. */
    pool.head = pool.tail = NULL;
    pool.threads = pool.idle = 0;
    atomic_store_explicit(&pool.has_work, false, memory_order_relaxed);
    pthread_mutex_unlock(&pool.lock);
}

static void pool_init(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_mutex_lock(&pool.lock);
    pool.cores = cores > 1 ? (uint32_t)cores : 1u;
    pthread_mutex_unlock(&pool.lock);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Starts pool threads until there are `want` (lock held). A thread that cannot
 * be created ends the attempt: fewer threads, same answers. */
static void grow(uint32_t want)
{
    if (want > MQ_POOL_MAX_THREADS - 1)
        want = MQ_POOL_MAX_THREADS - 1;
    if (pool.threads >= want)
        return;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Pool threads take no signals: process signals go to the program's own
     * threads, as if the library had none. The mask is inherited at creation. */
    sigset_t all, old;
    sigfillset(&all);
    bool masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
    while (pool.threads < want) {
        pthread_t id;
        if (pthread_create(&id, &attr, pool_thread, NULL) != 0)
            break;
        pool.threads++;
    }
    if (masked)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void mq_run_parallel(uint32_t count, void (*fn)(void *arg, uint32_t index), void *arg)
{
    if (count <= 1) {
        fn(arg, 0);
        return;
    }
    pthread_once(&pool_once, pool_init);
    pool_job job = {.fn = fn, .arg = arg, .count = count, .next = 1};
    atomic_init(&job.running, 0);
    pthread_cond_init(&job.done, NULL);

    pthread_mutex_lock(&pool.lock);
    grow(count - 1);
    if (pool.threads > 0) {
        job.queued = true;
        if (pool.tail)
            pool.tail->later = &job;
        else
            pool.head = &job;
        pool.tail = &job;
        atomic_store_explicit(&pool.has_work, true, memory_order_release);
        uint32_t wake = count - 1 < pool.idle ? count - 1 : pool.idle;
        for (uint32_t i = 0; i < wake; i++)
            pthread_cond_signal(&pool.work);
    }
    pthread_mutex_unlock(&pool.lock);

    fn(arg, 0);

    pthread_mutex_lock(&pool.lock);
    /* Indices no pool thread has started yet: run them here rather than wait. */
    while (job.next < job.count) {
        uint32_t index = take_index(&job);
        pthread_mutex_unlock(&pool.lock);
        fn(arg, index);
        pthread_mutex_lock(&pool.lock);
    }
    if (atomic_load_explicit(&job.running, memory_order_acquire) > 0 && pool.threads < pool.cores) {
        /* Spin a while for the running indices; then the lock, which their
         * threads hold while they last touch `job`. */
        pthread_mutex_unlock(&pool.lock);
        spin_while_running(&job.running);
        pthread_mutex_lock(&pool.lock);
    }
    job.waiting = true;
    while (atomic_load_explicit(&job.running, memory_order_relaxed) > 0)
        pthread_cond_wait(&job.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_destroy(&job.done);
}
