// Which keys a snapshot's records have shown so far, as a Bloom filter of fixed size: asked of
// each record's key (the bytes of its key values), it answers "seen before" for every key it
// was given before, and, rarely, for one it was not. So a snapshot loaded straight into its
// table learns early, for the price of a hash, that it holds a key twice and must be loaded
// the way that keeps each key's last record, rather than at the end when the primary key
// refuses it. Its memory is fixed (16 MiB); past 500,000 keys it stops answering (a false
// "seen" would grow likely), and the primary key is the last word as ever. The filter is
// blocked: the probes of one key fall in one 64-byte block, so a key costs one cache miss (the
// most of its price: about a tenth of a second in a 500,000-row load).

/** 2^18 blocks of 16 words (512 bits): 16 MiB */
const BLOCKS_LOG2 = 18;
const WORDS = 1 << (BLOCKS_LOG2 + 4);
/** probes per key, 9 bits each: over 500,000 distinct keys, about one load in a thousand takes one falsely for seen */
const PROBES = 5;
export const SEEN_KEYS_CAPACITY = 500_000;

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
   * Adds the key made of the bytes b[from[i], to[i]) for each i (its values as the record writes
   * them); true when it was (probably) added before. Always false once the filter is full.
   */
  seenBefore(b: Buffer, from: ArrayLike<number>, to: ArrayLike<number>, parts: number): boolean {
    if (this.count >= SEEN_KEYS_CAPACITY) return false;
    this.bits ??= new Int32Array(WORDS);
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
    h2 = mix(h2 ^ h1);
    const bits = this.bits;
    const block = (h1 >>> (32 - BLOCKS_LOG2)) << 4;
    // 45 bits for the probes: 32 from h2, 13 from h1 (of the 14 below the block's)
    let seen = true;
    for (let k = 0; k < PROBES; k++) {
      const bit = k < 3 ? (h2 >>> (k * 9)) & 511 : k === 3 ? ((h1 & 0xf) << 5) | (h2 >>> 27) : (h1 >>> 4) & 511;
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
