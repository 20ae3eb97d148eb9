/*
 * The saved-file checksum: 4 independent lanes, each folding one 8-byte word
 * of every 32-byte block with xor, multiply by an odd constant and xorshift.
 * Every step is a bijection of the lane's state for a given word, so changing
 * any single word (any single byte) always changes that lane's final state,
 * and the finaliser folds the lanes with bijective steps too: a corrupted
 * byte is always detected. The four lanes' multiplies overlap, so it runs at
 * several bytes per cycle, around memory speed (CRC32 byte by byte would make
 * loading several times slower).
 */
#include <string.h>

#include "io/saved_format.h"

#define MQ_H_P1 0x9E3779B97F4A7C15ull
#define MQ_H_P2 0xC2B2AE3D27D4EB4Full
#define MQ_H_P3 0x165667B19E3779F9ull

void mq_saved_hash_init(mq_saved_hash *h)
{
    for (int i = 0; i < 4; i++)
        h->lane[i] = MQ_H_P3 * (uint64_t)(i + 1) ^ MQ_H_P2;
    h->bytes = 0;
}

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static inline uint64_t step(uint64_t s, uint64_t w)
{
    s = (s ^ w) * MQ_H_P1;
    return s ^ (s >> 31);
}

void mq_saved_hash_blocks(mq_saved_hash *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t a = h->lane[0], b = h->lane[1], c = h->lane[2], d = h->lane[3];
    for (size_t i = 0; i + 32 <= n; i += 32) {
        a = step(a, load64(p + i));
        b = step(b, load64(p + i + 8));
        c = step(c, load64(p + i + 16));
        d = step(d, load64(p + i + 24));
    }
    h->lane[0] = a, h->lane[1] = b, h->lane[2] = c, h->lane[3] = d;
    h->bytes += n;
}

uint64_t mq_saved_hash_final(const mq_saved_hash *h)
{
    uint64_t x = h->bytes * MQ_H_P2 + MQ_H_P3;
    for (int i = 0; i < 4; i++) {
        uint64_t l = h->lane[i] * MQ_H_P2;
        x = (x ^ (l ^ (l >> 29))) * MQ_H_P1;
        x ^= x >> 32;
    }
    return x;
}

uint64_t mq_saved_hash_padded(const void *data, size_t size)
{
    mq_saved_hash h;
    mq_saved_hash_init(&h);
    size_t whole = size & ~(size_t)31;
    mq_saved_hash_blocks(&h, data, whole);
    /* The tail (size % 32 bytes) and the zero padding up to 64: at most 94 bytes. */
    unsigned char tail[96];
    size_t rest = (size_t)(mq_saved_align(size) - whole);
    memset(tail, 0, sizeof tail);
    if (size > whole)
        memcpy(tail, (const unsigned char *)data + whole, size - whole);
    mq_saved_hash_blocks(&h, tail, rest);
    return mq_saved_hash_final(&h);
}

bool mq_saved_fix_checksums(void *data, size_t size)
{
    unsigned char *p = data;
    mq_saved_header h;
    if (size < sizeof h)
        return false;
    memcpy(&h, p, sizeof h);
    if (h.section_count == 0 || h.section_count > MQ_SAVED_MAX_SECTIONS)
        return false;
    uint64_t table_end = mq_saved_align(MQ_SAVED_HEADER_SIZE + (uint64_t)MQ_SAVED_ENTRY_SIZE * h.section_count);
    if (table_end > size)
        return false;
    for (uint32_t i = 0; i < h.section_count; i++) {
        unsigned char *ep = p + MQ_SAVED_HEADER_SIZE + (size_t)i * MQ_SAVED_ENTRY_SIZE;
        mq_saved_entry e;
        memcpy(&e, ep, sizeof e);
        if (e.offset > size || e.size > size || mq_saved_align(e.size) > size - e.offset)
            continue;
        mq_saved_hash s;
        mq_saved_hash_init(&s);
        mq_saved_hash_blocks(&s, p + e.offset, (size_t)mq_saved_align(e.size));
        e.checksum = mq_saved_hash_final(&s);
        memcpy(ep, &e, sizeof e);
    }
    h.checksum = 0;
    memcpy(p, &h, sizeof h);
    mq_saved_hash s;
    mq_saved_hash_init(&s);
    mq_saved_hash_blocks(&s, p, (size_t)table_end);
    h.checksum = mq_saved_hash_final(&s);
    memcpy(p, &h, sizeof h);
    return true;
}
