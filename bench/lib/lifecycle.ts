import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/**
 * Everything the bench starts or creates is registered here and undone in reverse order: on a normal
 * end, on a failure, and on Ctrl-C/SIGTERM. Processes run in their own process group, so a kill of
 * the group also ends nginx's workers and the children of tsx or npm.
 */
export interface Lifecycle {
  spawnLogged(name: string, command: string, args: string[], options: SpawnOptions & { logFile: string }): ChildProcess;
  onCleanup(what: string, undo: () => Promise<void> | void): void;
  cleanup(): Promise<void>;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroup(child, signal);
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  killGroup(child, 'SIGKILL'); // any child the leader left behind
}

export function createLifecycle(log: (line: string) => void): Lifecycle {
  const undos: { what: string; undo: () => Promise<void> | void }[] = [];
  const children = new Set<ChildProcess>();
  let cleaning: Promise<void> | undefined;

  const cleanup = (): Promise<void> => {
    cleaning ??= (async () => {
      for (const { what, undo } of undos.splice(0).reverse()) {
        try {
          await undo();
        } catch (error) {
          log(`cleanup of ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return cleaning;
  };

  // Last resort when the harness exits without cleanup (an exception out of everything): the
  // process groups still die. Databases and files are dropped only by the async cleanup.
  process.on('exit', () => {
    for (const child of children) killGroup(child, 'SIGKILL');
  });
  // Every signal is caught, not only the first: Ctrl-C reaches the whole foreground group, and tsx (or
  // npm) passes its own SIGINT on to this process too, so a second one arrives while the cleanup runs.
  // Left to its default, that one would end the process with the cleanup half done: a service still
  // running, its database not dropped.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (cleaning) {
        log(`${signal}: still stopping everything the bench started...`);
        return;
      }
      log(`\n${signal}: stopping everything the bench started...`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  return {
    spawnLogged(name, command, args, options) {
      const fd = openSync(options.logFile, 'a');
      const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', fd, fd] });
      closeSync(fd);
      children.add(child);
      child.once('exit', () => children.delete(child));
      undos.push({ what: name, undo: () => stopGroup(child) });
      return child;
    },
    onCleanup(what, undo) {
      undos.push({ what, undo });
    },
    cleanup,
  };
}
