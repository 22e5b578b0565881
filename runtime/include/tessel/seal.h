/*===- tessel/seal.h - The artifact's seal: size and checksum -----*- C -*-===*
 *
 * `tessel-compile` appends a 32-byte seal to every shared object it links:
 *
 *   offset  size  field
 *   0       8     magic "TSLSEAL1"
 *   8       4     seal version (1), little-endian
 *   12      4     reserved, 0
 *   16      8     image size: the bytes before the seal, little-endian
 *   24      8     XXH64 (seed 0) of those bytes, little-endian
 *
 * The dynamic loader ignores bytes past the ELF image, so a sealed artifact
 * still loads as an ordinary shared object. Before it calls `dlopen`, the
 * runtime checks that the file ends in a seal whose size is the file's size
 * less the seal and whose checksum matches: a truncated, bit-flipped or
 * foreign file is refused before the loader (which trusts its input) maps it.
 *
 * The checksum is XXH64 (https://github.com/Cyan4973/xxHash, its
 * specification), so `xxh64sum` of `head -c -32 model.so` reproduces it.
 * It detects corruption; it is not a signature.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_SEAL_H
#define TESSEL_SEAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_SEAL_MAGIC "TSLSEAL1"
#define TESSEL_SEAL_VERSION 1u
#define TESSEL_SEAL_SIZE 32u

/* Little-endian loads and stores, byte by byte: no alignment assumed. */
static inline uint64_t tessel_seal_load64(const unsigned char *p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | p[i];
  return value;
}

static inline uint32_t tessel_seal_load32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static inline void tessel_seal_store64(unsigned char *p, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    p[i] = (unsigned char)(value >> (8 * i));
}

static inline uint64_t tessel_xxh64_rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

#define TESSEL_XXH_P1 UINT64_C(11400714785074694791)
#define TESSEL_XXH_P2 UINT64_C(14029467366897019727)
#define TESSEL_XXH_P3 UINT64_C(1609587929392839161)
#define TESSEL_XXH_P4 UINT64_C(9650029242287828579)
#define TESSEL_XXH_P5 UINT64_C(2870177450012600261)

static inline uint64_t tessel_xxh64_round(uint64_t acc, uint64_t input) {
  acc += input * TESSEL_XXH_P2;
  acc = tessel_xxh64_rotl(acc, 31);
  return acc * TESSEL_XXH_P1;
}

static inline uint64_t tessel_xxh64_merge(uint64_t acc, uint64_t value) {
  acc ^= tessel_xxh64_round(0, value);
  return acc * TESSEL_XXH_P1 + TESSEL_XXH_P4;
}

/* XXH64 of `size` bytes at `data`, seed 0. */
static inline uint64_t tessel_xxh64(const void *data, size_t size) {
  const unsigned char *p = (const unsigned char *)data;
  const unsigned char *end = p + size;
  uint64_t h;
  if (size >= 32) {
    uint64_t v1 = TESSEL_XXH_P1 + TESSEL_XXH_P2, v2 = TESSEL_XXH_P2, v3 = 0,
             v4 = (uint64_t)0 - TESSEL_XXH_P1;
    const unsigned char *limit = end - 32;
    do {
      /* memcpy compiles to plain loads; the byte loops above are for the
       * seal's fields, where speed does not matter. */
      uint64_t w[4];
      memcpy(w, p, 32);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      for (int i = 0; i < 4; ++i)
        w[i] = tessel_seal_load64(p + 8 * i);
#endif
      v1 = tessel_xxh64_round(v1, w[0]);
      v2 = tessel_xxh64_round(v2, w[1]);
      v3 = tessel_xxh64_round(v3, w[2]);
      v4 = tessel_xxh64_round(v4, w[3]);
      p += 32;
    } while (p <= limit);
    h = tessel_xxh64_rotl(v1, 1) + tessel_xxh64_rotl(v2, 7) +
        tessel_xxh64_rotl(v3, 12) + tessel_xxh64_rotl(v4, 18);
    h = tessel_xxh64_merge(h, v1);
    h = tessel_xxh64_merge(h, v2);
    h = tessel_xxh64_merge(h, v3);
    h = tessel_xxh64_merge(h, v4);
  } else {
    h = TESSEL_XXH_P5;
  }
  h += (uint64_t)size;
  while (end - p >= 8) {
    h ^= tessel_xxh64_round(0, tessel_seal_load64(p));
    h = tessel_xxh64_rotl(h, 27) * TESSEL_XXH_P1 + TESSEL_XXH_P4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= (uint64_t)tessel_seal_load32(p) * TESSEL_XXH_P1;
    h = tessel_xxh64_rotl(h, 23) * TESSEL_XXH_P2 + TESSEL_XXH_P3;
    p += 4;
  }
  while (p < end) {
    h ^= (uint64_t)(*p) * TESSEL_XXH_P5;
    h = tessel_xxh64_rotl(h, 11) * TESSEL_XXH_P1;
    ++p;
  }
  h ^= h >> 33;
  h *= TESSEL_XXH_P2;
  h ^= h >> 29;
  h *= TESSEL_XXH_P3;
  h ^= h >> 32;
  return h;
}

/* Writes into `seal` (TESSEL_SEAL_SIZE bytes) the seal of the `size` bytes at
 * `image`. */
static inline void tessel_seal_make(const void *image, size_t size,
                                    unsigned char *seal) {
  memset(seal, 0, TESSEL_SEAL_SIZE);
  memcpy(seal, TESSEL_SEAL_MAGIC, 8);
  seal[8] = (unsigned char)TESSEL_SEAL_VERSION;
  tessel_seal_store64(seal + 16, (uint64_t)size);
  tessel_seal_store64(seal + 24, tessel_xxh64(image, size));
}

/* A weights file's checksum (abi.h, ABI 1.3): the XXH64 of the sequence of
 * the XXH64s of its 1 MiB chunks (the last one shorter), each stored as 8
 * little-endian bytes. Chunked so that the compiler computes it while it
 * streams the file out, and so that a reader needs no whole-file buffer. */
#define TESSEL_WEIGHTS_CHUNK ((size_t)1 << 20)

/* Stores a chunk's XXH64 as the checksum reads it: 8 little-endian bytes. */
static inline void tessel_weights_chunk_hash(const void *chunk, size_t size,
                                             uint64_t *slot) {
  tessel_seal_store64((unsigned char *)slot, tessel_xxh64(chunk, size));
}

/* The checksum of `size` bytes at `data` as a weights file. `scratch` holds
 * one uint64_t per chunk: (size + TESSEL_WEIGHTS_CHUNK - 1) /
 * TESSEL_WEIGHTS_CHUNK of them. */
static inline uint64_t tessel_weights_checksum(const void *data, size_t size,
                                               uint64_t *scratch) {
  size_t count = 0, at;
  for (at = 0; at < size; at += TESSEL_WEIGHTS_CHUNK) {
    size_t n = size - at < TESSEL_WEIGHTS_CHUNK ? size - at : TESSEL_WEIGHTS_CHUNK;
    tessel_weights_chunk_hash((const unsigned char *)data + at, n, &scratch[count++]);
  }
  return tessel_xxh64(scratch, count * sizeof(uint64_t));
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_SEAL_H */
