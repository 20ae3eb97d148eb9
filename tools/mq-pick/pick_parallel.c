/*
 * Formatting many hits as text on several threads, and writing it meanwhile.
 *
 * Turning a million hits into JSON costs about as much as tracing them, so the
 * text is made in parallel: the rays are cut into chunks, each thread formats
 * the next chunk into the memory buffer of the chunk's slot, and the thread
 * that completes the chunk next in ray order writes it out, with every
 * completed chunk after it. It writes outside the lock, so the other threads
 * keep formatting while the kernel copies: the output does not wait for all
 * the formatting, nor the formatting for the output. SLOTS_PER_THREAD chunks
 * per thread bound the memory (about 2 MB of JSON per chunk).
 */
#include "pick_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define RAYS_PER_CHUNK 8192
#define SLOTS_PER_THREAD 2
#define MAX_FORMAT_THREADS 64

typedef struct slot {
    mqt_textbuf *text; /* in memory; its allocation is reused chunk after chunk */
    bool done;         /* formatted, not yet written */
} slot;

typedef struct pipeline {
    pthread_mutex_t lock;
    pthread_cond_t written; /* a chunk was written out (a slot is free), or a failure */
    const pick_writer *proto;
    const pick_source_text *texts;
    const mq_hit *hits;
    const uint32_t *instances;
    size_t n, chunks;
    size_t next_chunk; /* the next chunk to format */
    size_t next_write; /* the next chunk to write; those before it are written */
    bool writing;      /* a thread is writing chunks out (outside the lock) */
    bool ok;           /* no write or memory failure so far */
    size_t slot_count;
    slot *slots; /* chunk c uses slots[c % slot_count] */
} pipeline;

static void format_chunk(const pipeline *p, size_t c, mqt_textbuf *text)
{
    size_t first = c * RAYS_PER_CHUNK;
    size_t count = p->n - first < RAYS_PER_CHUNK ? p->n - first : RAYS_PER_CHUNK;
    pick_writer w = *p->proto;
    w.text = text;
    w.wrote_header = w.wrote_header || first > 0; /* only the first chunk may write a CSV header */
    mqt_tb_init(text, NULL);
    pick_write_hit_records(&w, p->texts, p->hits, p->instances, first, count);
    mqt_tb_flush(text);
}

/* With the lock held, after a chunk was completed: unless another thread is at it, writes out
 * the completed chunks from next_write on, unlocking around each fwrite. */
static void write_ready(pipeline *p)
{
    if (p->writing)
        return; /* that thread looks for this chunk before it stops */
    p->writing = true;
    while (p->ok && p->next_write < p->chunks && p->slots[p->next_write % p->slot_count].done) {
        slot *s = &p->slots[p->next_write % p->slot_count];
        const mqt_textbuf *text = s->text;
        pthread_mutex_unlock(&p->lock);
        bool ok = !text->failed &&
                  (text->mem_len == 0 || fwrite(text->mem, 1, text->mem_len, p->proto->out) == text->mem_len);
        pthread_mutex_lock(&p->lock);
        s->done = false;
        p->ok = p->ok && ok;
        p->next_write++;
        pthread_cond_broadcast(&p->written);
    }
    p->writing = false;
}

/* Formats chunks, in order of taking, until none is left (or something failed). */
static void *run_worker(void *arg)
{
    pipeline *p = arg;
    pthread_mutex_lock(&p->lock);
    while (p->ok && p->next_chunk < p->chunks) {
        if (p->next_chunk >= p->next_write + p->slot_count) { /* every slot holds text not yet written */
            pthread_cond_wait(&p->written, &p->lock);
            continue;
        }
        size_t c = p->next_chunk++;
        slot *s = &p->slots[c % p->slot_count];
        pthread_mutex_unlock(&p->lock);
        format_chunk(p, c, s->text);
        pthread_mutex_lock(&p->lock);
        s->done = true;
        write_ready(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Runs the pipeline on this thread and threads - 1 more. */
static bool run_pipeline(pipeline *p, uint32_t threads)
{
    pthread_t ids[MAX_FORMAT_THREADS];
    uint32_t started = 0;
    while (started + 1 < threads && pthread_create(&ids[started], NULL, run_worker, p) == 0)
        started++;
    run_worker(p); /* (with no thread started, all of it here) */
    for (uint32_t t = 0; t < started; t++)
        pthread_join(ids[t], NULL);
    return p->ok && p->next_write == p->chunks;
}

static bool write_in_parallel(pick_writer *w, const pick_source_text *texts, const mq_hit *hits,
                              const uint32_t *instances, size_t n, uint32_t threads)
{
    size_t chunks = (n + RAYS_PER_CHUNK - 1) / RAYS_PER_CHUNK; /* more than one */
    if (threads > chunks)
        threads = (uint32_t)chunks;
    pipeline p = {.proto = w,
                  .texts = texts,
                  .hits = hits,
                  .instances = instances,
                  .n = n,
                  .chunks = chunks,
                  .ok = true,
                  .slot_count = (size_t)threads * SLOTS_PER_THREAD};
    p.slots = calloc(p.slot_count, sizeof *p.slots);
    bool ok = p.slots != NULL;
    for (size_t i = 0; i < p.slot_count && ok; i++)
        ok = (p.slots[i].text = calloc(1, sizeof *p.slots[i].text)) != NULL;
    if (ok) {
        pthread_mutex_init(&p.lock, NULL);
        pthread_cond_init(&p.written, NULL);
        ok = run_pipeline(&p, threads);
        pthread_cond_destroy(&p.written);
        pthread_mutex_destroy(&p.lock);
    }
    for (size_t i = 0; p.slots && i < p.slot_count; i++)
        if (p.slots[i].text) {
            mqt_tb_free_memory(p.slots[i].text);
            free(p.slots[i].text);
        }
    free(p.slots);
    return ok;
}

/* One more than the largest instance hit: the sources whose text is needed. */
static uint32_t source_count(const uint32_t *instances, size_t n)
{
    uint32_t count = 1;
    for (size_t i = 0; instances && i < n; i++)
        if (instances[i] >= count)
            count = instances[i] + 1;
    return count;
}

/* JSON or CSV: the text of each source made once, then the records on this thread or in parallel. */
static bool write_text(pick_writer *w, const mq_hit *hits, const uint32_t *instances, size_t n, uint32_t threads)
{
    uint32_t sources = source_count(instances, n);
    pick_source_text *texts = pick_source_texts_new(w, sources);
    bool ok = texts && pick_writer_flush(w);
    if (ok && (threads <= 1 || n <= RAYS_PER_CHUNK)) {
        pick_write_hit_records(w, texts, hits, instances, 0, n);
        ok = !w->text->failed;
    } else if (ok) {
        ok = write_in_parallel(w, texts, hits, instances, n, threads);
        if (n > 0)
            w->wrote_header = true;
    }
    pick_source_texts_free(texts, sources);
    return ok;
}

bool pick_write_closest_hits(pick_writer *w, const mq_hit *hits, const uint32_t *instances, size_t n, uint32_t threads)
{
    if (threads == 0) { /* all online cores, as for tracing */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (uint32_t)cores : 1;
    }
    if (threads > MAX_FORMAT_THREADS)
        threads = MAX_FORMAT_THREADS;
    if (w->format == PICK_JSON || w->format == PICK_CSV)
        return write_text(w, hits, instances, n, threads);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok =
            pick_write_hit(w, i, 0, hits[i].triangle != MQ_NO_TRIANGLE ? &hits[i] : NULL, instances ? instances[i] : 0);
    return ok;
}
