/** Durable writes as the upload baselines do them: temp name, fsync, rename; then an fsync of the folder. */
import { open, rename } from 'node:fs/promises';

export async function writeDurably(target: string, bytes: Buffer): Promise<void> {
  const temp = `${target}.tmp`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, target);
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
