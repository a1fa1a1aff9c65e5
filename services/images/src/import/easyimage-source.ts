import fs from 'node:fs/promises';
import path from 'node:path';
import { readPhpAssignment, type PhpValue } from './php-array-file';
import { wallClockToDate } from './zoned-time';

/** One image file of an EasyImage install, as its directory tree and upload log describe it. */
export interface EasyImageFile {
  /** The path EasyImage served it at, `/i/2024/01/02/65a1b2c3.png` (also its id in the import records). */
  oldPath: string;
  file: string;
  /** The name it was uploaded with (from the upload log), else its stored name. */
  originalName: string;
  uploadedAt: Date;
}

export interface EasyImageToken {
  token: string;
  id: number;
  expiresAt: Date;
}

export interface EasyImageInstall {
  /** The install's `path` setting: where uploads are kept under the install dir (`/i/`). */
  uploadPath: string;
  timeZone: string;
  tokens: EasyImageToken[];
  files: EasyImageFile[];
}

const asObject = (value: PhpValue | undefined): Record<string, PhpValue> => (value !== null && typeof value === 'object' ? value : {});

/** EasyImage keeps the uploader's file name through htmlspecialchars: undo it. */
function decodeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#0?39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[name] ?? "'");
}

async function listDir(dir: string) {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Upload log entries by the path they name: `admin/logs/upload/YYYY-MM.php`, written only while the
 * install's `upload_logs` setting was on. Each holds the original name and the upload time.
 */
async function readUploadLogs(installDir: string): Promise<Map<string, { source?: string; date?: string }>> {
  const byPath = new Map<string, { source?: string; date?: string }>();
  const logDir = path.join(installDir, 'admin', 'logs', 'upload');
  for (const entry of (await listDir(logDir)).filter((candidate) => candidate.isFile() && candidate.name.endsWith('.php')).sort((a, b) => a.name.localeCompare(b.name))) {
    const logs = asObject(await readPhpAssignment(path.join(logDir, entry.name), 'logs'));
    for (const record of Object.values(logs)) {
      const fields = asObject(record);
      if (typeof fields.path !== 'string') continue;
      byPath.set(fields.path, { source: typeof fields.source === 'string' ? decodeHtml(fields.source) : undefined, date: typeof fields.date === 'string' ? fields.date : undefined });
    }
  }
  return byPath;
}

/**
 * Files under the upload path whose directories end in YYYY/MM/DD (EasyImage's `storage_path`,
 * possibly below an admin, guest or token folder). `cache/` (thumbnails, the recycle bin) and
 * `suspic/` (held by the content check) are not uploads and are passed over.
 */
async function findImageFiles(root: string, relative: string[] = []): Promise<string[][]> {
  const found: string[][] = [];
  for (const entry of (await listDir(path.join(root, ...relative))).sort((a, b) => a.name.localeCompare(b.name))) {
    if (relative.length === 0 && (entry.name === 'cache' || entry.name === 'suspic')) continue;
    const parts = [...relative, entry.name];
    if (entry.isDirectory()) found.push(...(await findImageFiles(root, parts)));
    else if (entry.isFile() && parts.length >= 4 && /^\d{4}$/.test(parts.at(-4)!) && /^\d{2}$/.test(parts.at(-3)!) && /^\d{2}$/.test(parts.at(-2)!)) found.push(parts);
  }
  return found;
}

/** Reads what an import needs from an EasyImage 2.x install: its config, API tokens, upload log and upload tree. */
export async function readEasyImageInstall(installDir: string): Promise<EasyImageInstall> {
  const configFile = path.join(installDir, 'config', 'config.php');
  const config = asObject(await readPhpAssignment(configFile, 'config').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new Error(`${installDir} is not an EasyImage install: there is no config/config.php`);
    throw error;
  }));
  const uploadPath = typeof config.path === 'string' && config.path.trim() !== '' ? config.path : '/i/';
  const timeZone = typeof config.timezone === 'string' && config.timezone !== '' ? config.timezone : 'Asia/Shanghai';
  const tokenFile = path.join(installDir, 'config', 'api_key.php');
  const tokenList = asObject(await readPhpAssignment(tokenFile, 'tokenList').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error))));
  const tokens = Object.entries(tokenList).map(([token, fields]) => {
    const { id, expired } = asObject(fields);
    return { token, id: Number(id ?? 0), expiresAt: new Date(Number(expired ?? 0) * 1000) };
  });
  const logs = await readUploadLogs(installDir);
  const uploadDir = path.join(installDir, ...uploadPath.split('/').filter(Boolean));
  const prefix = `/${uploadPath.split('/').filter(Boolean).join('/')}`;
  const files = (await findImageFiles(uploadDir)).map((parts) => {
    const oldPath = `${prefix}/${parts.join('/')}`;
    const logged = logs.get(oldPath);
    const [year, month, day] = parts.slice(-4, -1);
    const uploadedAt = (logged?.date ? wallClockToDate(logged.date, timeZone) : null) ?? wallClockToDate(`${year}-${month}-${day} 00:00:00`, timeZone)!;
    return { oldPath, file: path.join(uploadDir, ...parts), originalName: logged?.source || parts.at(-1)!, uploadedAt };
  });
  return { uploadPath, timeZone, tokens, files };
}
