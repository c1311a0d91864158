// Whether a process still runs, by its id: how a new engine or sync finds the work folders of
// processes that died and can be removed. A process of another user counts as running.

export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
