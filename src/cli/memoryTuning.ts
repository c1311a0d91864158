// How the dq process keeps its memory small. main.ts calls tuneMemory() once, first thing:
// only the process that owns V8 may change its flags (the client library and the extension
// never do), and commands run in-process by tests get no tuning.
// - undici parses HTTP with WebAssembly, which V8 compiles with its optimizing tier at the
//   first request: about 35 MB for a moment, more than the rest of a small command. The
//   baseline tier (Liftoff) costs a few MB and is fast enough: a response body is passed
//   through by length, not parsed byte by byte.
// - Every network read is a new 64 KiB buffer. V8 collects the young generation only when
//   32 MB of such buffers are waiting (a fixed multiple of its default semi-space), so a fast
//   download always carries some 32 MB of dead buffers. A young-generation collection after
//   every 4 MiB downloaded frees them early: about 0.3 ms each (130 for 512 MiB).
// - Buffers that waited for the disk long enough to reach the old generation are freed only
//   by a full collection, which V8 starts late: one after every 256 MiB keeps them from
//   piling up over a long download (some 15 ms each, 8 for 2 GiB).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes downloaded between two collections of the young generation. */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;
/** Bytes downloaded between two full collections. */
const FULL_COLLECTION_EVERY_BYTES = 256 * 1024 * 1024;

/** V8's gc(): a full collection, or with { type: 'minor' } the young generation only */
type Collect = (options?: { type: 'minor' }) => void;
let collect: Collect | undefined;

/** Sets V8 up for dq; call once at the start of the process. */
export function tuneMemory(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as Collect; // a context made while the flag is on has gc()
  setFlagsFromString('--no-expose-gc');
}

/**
 * A download progress listener that collects the young generation every 4 MiB and everything
 * every 256 MiB; does nothing without tuneMemory().
 */
export function downloadCollector(): (allBytes: number) => void {
  let collectedAt = 0;
  let fullAt = 0;
  return (allBytes) => {
    if (!collect || allBytes - collectedAt < COLLECT_EVERY_BYTES) return;
    collectedAt = allBytes;
    if (allBytes - fullAt >= FULL_COLLECTION_EVERY_BYTES) {
      fullAt = allBytes;
      collect();
    } else {
      collect({ type: 'minor' });
    }
  };
}
