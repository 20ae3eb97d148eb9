/*
 * A progress bar on standard error for long batches, e.g.
 *   tracing  42% [########            ] 420000/1000000
 * drawn only when standard error is a terminal, from the start for batches of
 * more than 100000 items, else once the batch has taken a second; redrawn at
 * most five times a second and erased at the end. Never in pipes or logs.
 */
#ifndef MQ_PICK_PROGRESS_H
#define MQ_PICK_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pick_progress {
    const char *label;
    size_t total;
    bool tty, drawn;
    double start, last;
} pick_progress;

/* Starts a batch of `total` items. */
void pick_progress_start(pick_progress *p, const char *label, size_t total);

/* `done` items of the batch are finished. Cheap when nothing is to be drawn. */
void pick_progress_update(pick_progress *p, size_t done);

/* Erases the bar, if one was drawn. */
void pick_progress_end(pick_progress *p);

/* Monotonic seconds. */
double pick_now(void);

#endif
