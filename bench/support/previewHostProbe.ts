// Run as a child process: the extension host's side of a preview, alone in a process so that
// its peak memory can be measured. The engine client, as the preview panel uses it, opens a
// result, takes the first window of rows and the row count, waits for the engine's copy of the
// result, then reads windows spread over the whole result as a webview asks for them while a
// person scrolls, then the same sorted by a column. The engine runs in a process of its own and
// is not counted here. Prints the rows and the windows read.
//   node previewHostProbe.js <dist/engineHost.js> <temp folder> <ResultSource as JSON>

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../src/core/logger';
import { EngineClient } from '../../src/engine/engineClient';
import type { ResultSource, View } from '../../src/engine/engineProtocol';
import { WINDOW_ROWS } from '../../src/webview/previewProtocol';

/** windows read in each pass, spread evenly over the result */
const WINDOWS = 60;
const SORT: View = { sort: [{ column: 'value.duration_ms', descending: true }] };

async function main(): Promise<void> {
  const [hostScript, tempDir, sourceJson] = process.argv.slice(2);
  const source = JSON.parse(sourceJson) as ResultSource;
  const lines: string[] = [];
  const note = (line: string): void => void lines.push(line);
  const logger: Logger = { trace: note, debug: note, info: note, warn: note, error: note };
  const engine = new EngineClient({ hostScript, tempDir, logger });
  try {
    const { handle } = await engine.open(source);
    await engine.page(handle, {}, 0, WINDOW_ROWS);
    const rows = await engine.count(handle, {});
    const copied = new RegExp(`result ${handle}: \\d+ rows copied`);
    while (!lines.some((l) => copied.test(l))) {
      const failed = lines.find((l) => l.includes(`result ${handle} stays read from its files`));
      if (failed) throw new Error(failed);
      await sleep(50);
    }
    let windows = 0;
    for (const view of [{}, SORT]) {
      for (let i = 0; i < WINDOWS; i++) {
        const page = await engine.page(handle, view, Math.floor((rows * i) / WINDOWS), WINDOW_ROWS);
        if (page.rows.length === 0) throw new Error(`an empty window at ${i}/${WINDOWS}`);
        windows++;
      }
    }
    await engine.closeHandle(handle);
    process.stdout.write(`${JSON.stringify({ rows, windows })}\n`);
  } finally {
    await engine.dispose();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`previewHostProbe: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
