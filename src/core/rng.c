/* The library's only source of randomness: xoshiro256** (Blackman and
   Vigna) seeded through splitmix64, so any 64-bit seed, 0 included, gives
   a well-mixed non-zero state. Output depends only on the seed. */
#include "core/internal.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t v, int k)
{
    return (v << k) | (v >> (64 - k));
}

void ibr__rng_seed(ibr__rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs
       cannot all be zero; keep the guard anyway for an all-zero state. */
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
}

uint64_t ibr__rng_next(ibr__rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Rejection sampling: draws below 2^64 mod n would make the low residues
   more likely, so they are drawn again. 2^64 mod n equals (-n) mod n in
   64-bit arithmetic. At most half the draws are rejected. */
uint64_t ibr__rng_below(ibr__rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t v = ibr__rng_next(r);
        if (v >= threshold)
            return v % n;
    }
}
