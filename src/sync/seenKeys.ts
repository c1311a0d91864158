// Which keys a snapshot's records have shown so far, so that a snapshot loaded straight into
// its table learns early that it holds a key twice (and must be loaded the way that keeps each
// key's last record), rather than at the end when the primary key refuses it.
//
// One key in eight (by its hash) is kept, in a Bloom filter of 2 MiB: a key repeated, when it
// is one of those kept, is seen the second time; a key not given before is almost never taken
// for seen (a false "seen" only costs a slower load). Keys come twice in bunches (a batch
// delivered again), so the first few repeats give the snapshot away. Keeping one in eight is
// what keeps the filter small enough to stay in the processor's cache: a probe costs no trip
// to memory. Past 62,500 kept keys (about 500,000 records) it stops answering, and the primary
// key, which refuses any key twice, is the last word as ever.

/** 2^15 blocks of 16 words (512 bits): 2 MiB; the probes of one key fall in one block */
const BLOCKS_LOG2 = 15;
const WORDS = 1 << (BLOCKS_LOG2 + 4);
/** probes per key, 9 bits each: over 62,500 distinct kept keys, a false "seen" is about one load in a thousand */
const PROBES = 5;
/** the keys kept: those whose hash has these three bits clear */
const SAMPLE_MASK = 7;
export const SEEN_KEYS_CAPACITY = 62_500;

/** murmur3's finalizer: every bit of the input moves every bit of the output */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class SeenKeys {
  private bits: Int32Array | undefined;
  private count = 0;

  /**
   * The key made of the bytes b[from[i], to[i]) for each i (its values as the record writes
   * them): true when it is a kept key that was (probably) given before. Always false once the
   * filter is full.
   */
  seenBefore(b: Buffer, from: ArrayLike<number>, to: ArrayLike<number>, parts: number): boolean {
    if (this.count >= SEEN_KEYS_CAPACITY) return false;
    // two hashes in one pass: FNV-1a, and a multiply-by-31 sum
    let h1 = 0x811c9dc5;
    let h2 = 17;
    for (let p = 0; p < parts; p++) {
      const end = to[p];
      for (let i = from[p]; i < end; i++) {
        const c = b[i];
        h1 = Math.imul(h1 ^ c, 0x01000193);
        h2 = ((h2 << 5) - h2 + c) | 0;
      }
      // between parts: ("ab", "c") is not ("a", "bc")
      h1 = Math.imul(h1 ^ 0xff, 0x01000193);
      h2 = ((h2 << 5) - h2 + 0xff) | 0;
    }
    h1 = mix(h1);
    if ((h1 & SAMPLE_MASK) !== 0) return false;
    h2 = mix(h2 ^ h1);
    this.bits ??= new Int32Array(WORDS);
    const bits = this.bits;
    const block = (h1 >>> (32 - BLOCKS_LOG2)) << 4;
    // 45 bits for the probes: 32 from h2, 13 from h1 (between the sampling bits and the block's)
    let seen = true;
    for (let k = 0; k < PROBES; k++) {
      const bit = k < 3 ? (h2 >>> (k * 9)) & 511 : k === 3 ? (((h1 >>> 3) & 0xf) << 5) | (h2 >>> 27) : (h1 >>> 7) & 511;
      const word = block + (bit >>> 5);
      const flag = 1 << (bit & 31);
      if ((bits[word] & flag) === 0) {
        seen = false;
        bits[word] |= flag;
      }
    }
    this.count++;
    return seen;
  }
}
