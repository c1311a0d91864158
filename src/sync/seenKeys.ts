// Which keys a snapshot's records have shown so far, as a Bloom filter of fixed size: asked of
// each record's key (the bytes of its key values), it answers "seen before" for every key it
// was given before, and, rarely, for one it was not. So a snapshot loaded straight into its
// table learns early, for the price of a hash, that it holds a key twice and must be loaded
// the way that keeps each key's last record, rather than at the end when the primary key
// refuses it. Its memory is fixed (8 MiB); past 500,000 keys it stops answering (a false
// "seen" would grow likely), and the primary key is the last word as ever.

/** 2^26 bits */
const BITS_LOG2 = 26;
const WORDS = 1 << (BITS_LOG2 - 5);
const MASK = (1 << BITS_LOG2) - 1;
/** probes per key: with 500,000 keys in 2^26 bits, a false "seen" in all of them is about 1 in 1,700 */
const PROBES = 6;
export const SEEN_KEYS_CAPACITY = 500_000;

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
    // two FNV-1a hashes of different seeds; probe i at h1 + i * h2
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let p = 0; p < parts; p++) {
      for (let i = from[p]; i < to[p]; i++) {
        h1 = Math.imul(h1 ^ b[i], 0x01000193);
        h2 = Math.imul(h2 ^ b[i], 0x5bd1e995);
      }
      h1 = Math.imul(h1 ^ 0xff, 0x01000193); // between parts: ("ab", "c") is not ("a", "bc")
      h2 = Math.imul(h2 ^ 0xff, 0x5bd1e995);
    }
    h2 |= 1;
    const bits = this.bits;
    let seen = true;
    for (let k = 0; k < PROBES; k++) {
      const bit = (h1 + Math.imul(k, h2)) & MASK;
      const word = bit >>> 5;
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
