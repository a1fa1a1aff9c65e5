import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// This file is the same in both services.

/**
 * The process that has an embedded (PGlite) database directory open. PGlite allows one process at a
 * time, so the owner also answers admin commands for others on a local socket (admin/admin-socket.ts).
 */
export interface EmbeddedOwner {
  pid: number;
  adminSocket: string;
}

export type Claim = { claimed: true; adminSocket: string; release(): void } | { claimed: false; owner: EmbeddedOwner };

/** Where the owner of `dir` listens: short (a socket path has ~100 bytes), private to this machine. */
export function adminSocketPath(dir: string): string {
  return path.join(os.tmpdir(), `pglite-admin-${createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 16)}.sock`);
}

function lockFile(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): EmbeddedOwner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as EmbeddedOwner;
    return Number.isInteger(owner.pid) && typeof owner.adminSocket === 'string' ? owner : null;
  } catch {
    return null;
  }
}

/**
 * Claims `dir` for this process (a lock file beside it, created exclusively), or names the live
 * process that holds it. A lock left by a process that died is taken over.
 */
export function claimEmbeddedDatabase(dir: string): Claim {
  const file = lockFile(dir);
  const adminSocket = adminSocketPath(dir);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, adminSocket } satisfies EmbeddedOwner), { flag: 'wx', mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
      process.on('exit', release);
      return { claimed: true, adminSocket, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(file);
      if (owner && owner.pid !== process.pid && isAlive(owner.pid)) return { claimed: false, owner };
      // A process that died (or a torn file): the directory is free.
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not claim the embedded database ${dir}: its lock file ${file} keeps changing`);
}
