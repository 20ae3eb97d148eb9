#include "pick_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define BIG_BATCH 100000
#define BAR_WIDTH 30

double pick_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void draw(pick_progress *p, size_t done)
{
    size_t total = p->total ? p->total : 1;
    int percent = (int)(100.0 * (double)done / (double)total);
    int filled = (int)((double)BAR_WIDTH * (double)done / (double)total);
    char bar[BAR_WIDTH + 1];
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : ' ';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r%-8s %3d%% [%s] %zu/%zu", p->label, percent, bar, done, p->total);
    fflush(stderr);
    p->drawn = true;
}

void pick_progress_start(pick_progress *p, const char *label, size_t total)
{
    *p = (pick_progress){label, total, isatty(STDERR_FILENO) == 1, false, pick_now(), 0.0};
    if (p->tty && total > BIG_BATCH) {
        p->last = p->start;
        draw(p, 0);
    }
}

void pick_progress_update(pick_progress *p, size_t done)
{
    if (!p->tty)
        return;
    double t = pick_now();
    if (p->drawn ? t - p->last < 0.2 : t - p->start < 1.0)
        return;
    p->last = t;
    draw(p, done);
}

void pick_progress_end(pick_progress *p)
{
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}
