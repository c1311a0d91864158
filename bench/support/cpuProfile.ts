// Reads the newest V8 CPU profile (node --cpu-prof) in a folder and lists where the time
// went: self time per function, largest first.

import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export async function summarizeCpuProfile(dir: string, top = 15): Promise<string> {
  const file = await newestProfile(dir);
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const selfUs = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id);
    const where = frame?.url ? `${basename(frame.url)}:${frame.lineNumber + 1}` : '';
    const key = `${frame?.functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(key, (selfUs.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = profile.endTime - profile.startTime;
  const lines = [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => `  ${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  return [`  ${(totalUs / 1000).toFixed(0)} ms profiled (${basename(file)}); self time:`, ...lines].join('\n');
}

async function newestProfile(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
  const stamped = await Promise.all(files.map(async (f) => ({ f, t: (await stat(f)).mtimeMs })));
  const newest = stamped.sort((a, b) => b.t - a.t)[0];
  if (!newest) throw new Error(`no CPU profile was written to ${dir}`);
  return newest.f;
}
