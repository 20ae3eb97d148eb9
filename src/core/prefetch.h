/*
 * A prefetch the compiler keeps. GCC 12 drops __builtin_prefetch calls at
 * -O2 when they sit in an inlined function behind a selected address (the
 * top-level walk's prefetches vanished that way, silently); a volatile asm
 * statement is never removed. Elsewhere the builtin, as it is.
 */
#ifndef MQ_CORE_PREFETCH_H
#define MQ_CORE_PREFETCH_H

static inline void mq_prefetch(const void *p)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p);
#endif
}

/* A prefetch for writing (prefetchw on x86-64: the line arrives owned). */
static inline void mq_prefetch_write(const void *p)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1);
#endif
}

#endif
