// Deterministic pseudo-random numbers for sample data and fault decisions. Every value the
// emulator invents derives from a seed and a few integers or names, so the same seed always
// yields the same data, the same object bytes and the same fault sequence.

/** FNV-1a over a string, as an unsigned 32-bit integer. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes any number of integers into one unsigned 32-bit hash (murmur3 finaliser per step). */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    let k = Math.imul((part | 0) ^ Math.floor(part / 0x100000000), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) derived from the given integers. */
export function unitFrom(...parts: number[]): number {
  return mix(...parts) / 0x100000000;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A small, fast generator (mulberry32) with helpers for picking sample values. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static from(...parts: number[]): Prng {
    return new Prng(mix(...parts));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x100000000;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Lower-case hex digits. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) {
      const n = Math.floor(this.next() * 0x100000000);
      out += HEX_BYTES[n >>> 24] + HEX_BYTES[(n >>> 16) & 255] + HEX_BYTES[(n >>> 8) & 255] + HEX_BYTES[n & 255];
    }
    return out.length === length ? out : out.slice(0, length);
  }

  /** A version-4 shaped UUID. */
  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[Math.floor(this.next() * 4)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
