/*
 * Formatting many hits as text on several threads.
 *
 * Turning a million hits into JSON costs more than tracing them, so the text
 * is made in parallel: rays are taken in blocks, each block split into one
 * slice per thread, each slice formatted into its own memory stream, and the
 * slices written out in ray order. Blocks bound the memory (about 20 MB).
 */
#include "pick_parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define RAYS_PER_THREAD_BLOCK 16384
#define MAX_FORMAT_THREADS 64

typedef struct slice {
    const pick_writer *proto;
    const mq_hit *hits;
    const uint32_t *instances;
    size_t first, count;
    mqt_textbuf *text; /* in memory; its allocation is reused block after block */
    bool ok;
} slice;

static void *format_slice(void *arg)
{
    slice *s = arg;
    mqt_tb_init(s->text, NULL);
    /* Only the first slice of the whole output may write a CSV header. */
    pick_writer w = *s->proto;
    w.text = s->text;
    w.wrote_header = w.wrote_header || s->first > 0;
    s->ok = true;
    for (size_t i = s->first; i < s->first + s->count && s->ok; i++)
        s->ok = pick_write_hit(&w, i, 0, s->hits[i].triangle != MQ_NO_TRIANGLE ? &s->hits[i] : NULL,
                               s->instances ? s->instances[i] : 0);
    s->ok = mqt_tb_flush(s->text) && s->ok;
    return NULL;
}

/* Formats one block [first, first + count) in one slice per thread and writes it out. */
static bool write_block(pick_writer *w, const mq_hit *hits, const uint32_t *instances, size_t first, size_t count,
                        uint32_t threads, mqt_textbuf **texts)
{
    slice slices[MAX_FORMAT_THREADS];
    pthread_t ids[MAX_FORMAT_THREADS];
    bool started[MAX_FORMAT_THREADS] = {false};
    size_t per = (count + threads - 1) / threads;
    for (uint32_t t = 0; t < threads; t++) {
        size_t lo = first + (size_t)t * per;
        size_t hi = lo + per < first + count ? lo + per : first + count;
        slices[t] = (slice){w, hits, instances, lo, lo < hi ? hi - lo : 0, texts[t], false};
        if (t > 0)
            started[t] = pthread_create(&ids[t], NULL, format_slice, &slices[t]) == 0;
    }
    format_slice(&slices[0]);
    bool ok = true;
    for (uint32_t t = 0; t < threads; t++) {
        if (t > 0) {
            if (started[t])
                pthread_join(ids[t], NULL);
            else
                format_slice(&slices[t]); /* no thread: do it here */
        }
        const mqt_textbuf *text = slices[t].text;
        ok = ok && slices[t].ok && (text->mem_len == 0 || fwrite(text->mem, 1, text->mem_len, w->out) == text->mem_len);
    }
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
    if (threads <= 1 || (w->format != PICK_JSON && w->format != PICK_CSV)) {
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++)
            ok = pick_write_hit(w, i, 0, hits[i].triangle != MQ_NO_TRIANGLE ? &hits[i] : NULL,
                                instances ? instances[i] : 0);
        return ok;
    }
    mqt_textbuf *texts[MAX_FORMAT_THREADS] = {NULL};
    bool ok = pick_writer_flush(w);
    for (uint32_t t = 0; t < threads && ok; t++)
        ok = (texts[t] = calloc(1, sizeof *texts[t])) != NULL;
    size_t block = (size_t)RAYS_PER_THREAD_BLOCK * threads;
    for (size_t first = 0; first < n && ok; first += block)
        ok = write_block(w, hits, instances, first, n - first < block ? n - first : block, threads, texts);
    for (uint32_t t = 0; t < threads; t++)
        if (texts[t]) {
            mqt_tb_free_memory(texts[t]);
            free(texts[t]);
        }
    if (n > 0)
        w->wrote_header = true;
    return ok;
}
