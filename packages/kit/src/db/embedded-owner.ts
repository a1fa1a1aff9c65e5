import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The process that has an embedded (PGlite) database directory open. PGlite allows one process at a
 * time, so the owner also answers admin commands for others on a local socket (admin/admin-socket.ts).
 */
export interface EmbeddedOwner {
  pid: number;
  adminSocket: string;
}

export type Claim = { claimed: true; adminSocket: string; release(): void } | { claimed: false; owner: EmbeddedOwner };

/** The longest path a Unix socket may have: sun_path holds 108 bytes on Linux (104 elsewhere), its closing NUL included. */
const SOCKET_PATH_MAX = process.platform === 'linux' ? 107 : 103;

const PRIVATE_DIR_PREFIX = 'pglite-admin-';

/**
 * Where the owner of `dir` listens: beside the database (in its data folder, where only that folder's
 * owner can create anything) when the path fits a socket; else in a new folder of its own with a random
 * name, owner-only, in the system temp folder. Either way no other local user can take the path first,
 * as one could a fixed name in /tmp. The lock file records the path for the admin CLI.
 */
function chooseAdminSocket(dir: string): { adminSocket: string; privateDir: string | null } {
  const beside = `${path.resolve(dir)}.admin.sock`;
  if (Buffer.byteLength(beside) <= SOCKET_PATH_MAX) return { adminSocket: beside, privateDir: null };
  const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), PRIVATE_DIR_PREFIX));
  return { adminSocket: path.join(privateDir, 'admin.sock'), privateDir };
}

/** The private folder a dead owner's socket was in, if it had one (only ever one of ours in the temp folder). */
function removeDeadOwnersFolder(owner: EmbeddedOwner | null): void {
  const folder = owner ? path.dirname(owner.adminSocket) : '';
  if (path.dirname(folder) === os.tmpdir() && path.basename(folder).startsWith(PRIVATE_DIR_PREFIX)) fs.rmSync(folder, { recursive: true, force: true });
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
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const { adminSocket, privateDir } = chooseAdminSocket(dir);
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, adminSocket } satisfies EmbeddedOwner), { flag: 'wx', mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        if (privateDir) fs.rmSync(privateDir, { recursive: true, force: true });
        if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
      process.on('exit', release);
      return { claimed: true, adminSocket, release };
    } catch (error) {
      if (privateDir) fs.rmSync(privateDir, { recursive: true, force: true });
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(file);
      if (owner && owner.pid !== process.pid && isAlive(owner.pid)) return { claimed: false, owner };
      // A process that died (or a torn file): the directory is free.
      removeDeadOwnersFolder(owner);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not claim the embedded database ${dir}: its lock file ${file} keeps changing`);
}
