/*
 * The saved-file checksums: 4 (or 8) independent lanes, each folding one
 * 8-byte word of every 32-byte (64-byte) group with xor, multiply by an odd
 * constant and xorshift.
 * Every step is a bijection of the lane's state for a given word, so changing
 * any single word (any single byte) always changes that lane's final state,
 * and the finaliser folds the lanes with bijective steps too: a corrupted
 * byte is always detected. The four lanes' multiplies overlap, so it runs at
 * several bytes per cycle, around memory speed (CRC32 byte by byte would make
 * loading several times slower). Version 2 sections are checksummed in blocks
 * (saved_format.h), each with the 8-lane hash, combined through a bijection
 * of each block's hash, so a corrupted byte is still always detected.
 */
#include <string.h>

#include "saved/saved_format.h"

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

/* ------------------------------------------------------------------------- */
/* 8 lanes (version 2 section blocks)                                        */
/* ------------------------------------------------------------------------- */

void mq_saved_hash8_init(mq_saved_hash8 *h)
{
    for (int i = 0; i < 8; i++)
        h->lane[i] = MQ_H_P3 * (uint64_t)(i + 1) ^ MQ_H_P2;
    h->bytes = 0;
}

void mq_saved_hash8_blocks(mq_saved_hash8 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t a = h->lane[0], b = h->lane[1], c = h->lane[2], d = h->lane[3];
    uint64_t e = h->lane[4], f = h->lane[5], g = h->lane[6], k = h->lane[7];
    for (size_t i = 0; i + 64 <= n; i += 64) {
        a = step(a, load64(p + i));
        b = step(b, load64(p + i + 8));
        c = step(c, load64(p + i + 16));
        d = step(d, load64(p + i + 24));
        e = step(e, load64(p + i + 32));
        f = step(f, load64(p + i + 40));
        g = step(g, load64(p + i + 48));
        k = step(k, load64(p + i + 56));
    }
    h->lane[0] = a, h->lane[1] = b, h->lane[2] = c, h->lane[3] = d;
    h->lane[4] = e, h->lane[5] = f, h->lane[6] = g, h->lane[7] = k;
    h->bytes += n;
}

uint64_t mq_saved_hash8_final(const mq_saved_hash8 *h)
{
    uint64_t x = h->bytes * MQ_H_P2 + MQ_H_P1;
    for (int i = 0; i < 8; i++) {
        uint64_t l = h->lane[i] * MQ_H_P2;
        x = (x ^ (l ^ (l >> 29))) * MQ_H_P1;
        x ^= x >> 32;
    }
    return x;
}

/* A bijection of 64-bit words (the splitmix64 finaliser). */
static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t mq_saved_block_term(uint64_t block_hash, uint64_t index)
{
    return mix(block_hash ^ (index + 1) * MQ_H_P1);
}

uint64_t mq_saved_sechash_combine(uint64_t sum, uint64_t blocks)
{
    return mix(sum ^ mix(blocks * MQ_H_P2 + MQ_H_P3));
}

void mq_saved_sechash_init(mq_saved_sechash *s, uint64_t block_size)
{
    mq_saved_hash8_init(&s->block);
    s->block_size = block_size;
    s->in_block = s->index = s->sum = 0;
}

static void close_block(mq_saved_sechash *s)
{
    s->sum += mq_saved_block_term(mq_saved_hash8_final(&s->block), s->index++);
    mq_saved_hash8_init(&s->block);
    s->in_block = 0;
}

void mq_saved_sechash_feed(mq_saved_sechash *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        size_t take = s->block_size - s->in_block < n ? (size_t)(s->block_size - s->in_block) : n;
        mq_saved_hash8_blocks(&s->block, p, take);
        s->in_block += take;
        if (s->in_block == s->block_size)
            close_block(s);
        p += take;
        n -= take;
    }
}

uint64_t mq_saved_sechash_final(mq_saved_sechash *s)
{
    if (s->in_block)
        close_block(s);
    return mq_saved_sechash_combine(s->sum, s->index);
}

uint64_t mq_saved_section_checksum(uint32_t version, uint32_t block_log2, const void *data, size_t size)
{
    /* The whole 64-byte groups, then the tail (size % 64 bytes) and its zero
     * padding: exactly 64 bytes, or none. */
    size_t whole = size & ~(size_t)63;
    unsigned char tail[64];
    size_t rest = (size_t)(mq_saved_align(size) - whole);
    memset(tail, 0, sizeof tail);
    if (size > whole)
        memcpy(tail, (const unsigned char *)data + whole, size - whole);
    if (version == 1) {
        mq_saved_hash h;
        mq_saved_hash_init(&h);
        mq_saved_hash_blocks(&h, data, whole);
        mq_saved_hash_blocks(&h, tail, rest);
        return mq_saved_hash_final(&h);
    }
    mq_saved_sechash s;
    mq_saved_sechash_init(&s, (uint64_t)1 << block_log2);
    mq_saved_sechash_feed(&s, data, whole);
    mq_saved_sechash_feed(&s, tail, rest);
    return mq_saved_sechash_final(&s);
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
    /* Sections in the format of a version this library reads; others keep theirs. */
    bool v2 = h.version == 2 && h.block_log2 >= MQ_SAVED_BLOCK_LOG2_MIN && h.block_log2 <= MQ_SAVED_BLOCK_LOG2_MAX;
    for (uint32_t i = 0; i < h.section_count && (h.version == 1 || v2); i++) {
        unsigned char *ep = p + MQ_SAVED_HEADER_SIZE + (size_t)i * MQ_SAVED_ENTRY_SIZE;
        mq_saved_entry e;
        memcpy(&e, ep, sizeof e);
        if (e.offset > size || e.size > size || mq_saved_align(e.size) > size - e.offset)
            continue;
        /* The bytes as they are, padding included (not assumed zero). */
        size_t padded = (size_t)mq_saved_align(e.size);
        if (h.version == 1) {
            mq_saved_hash s;
            mq_saved_hash_init(&s);
            mq_saved_hash_blocks(&s, p + e.offset, padded);
            e.checksum = mq_saved_hash_final(&s);
        } else {
            mq_saved_sechash s;
            mq_saved_sechash_init(&s, (uint64_t)1 << h.block_log2);
            mq_saved_sechash_feed(&s, p + e.offset, padded);
            e.checksum = mq_saved_sechash_final(&s);
        }
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
