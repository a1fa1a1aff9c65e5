import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SERVICE_DIR = path.resolve(__dirname, '..');

describe('admin CLI run through npm -w (cwd is services/tools)', () => {
  test('when DATABASE_URL is relative, then it is resolved from the directory npm was run in (INIT_CWD)', () => {
    const operatorDir = mkdtempSync(path.join(os.tmpdir(), 'tools-cli-'));
    try {
      const output = execFileSync(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'key:list'], {
        cwd: SERVICE_DIR,
        env: { PATH: process.env.PATH, INIT_CWD: operatorDir, DATABASE_URL: 'pglite:./data/tools-db', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
      expect(output.split('\n')[0]).toBe(['id', 'name', 'prefix', 'status', 'limit/h', 'used this hour', 'window resets in'].join('\t'));
      expect(existsSync(path.join(operatorDir, 'data', 'tools-db'))).toBe(true);
      expect(existsSync(path.join(SERVICE_DIR, 'data', 'tools-db'))).toBe(false);
    } finally {
      rmSync(operatorDir, { recursive: true, force: true });
    }
  });
});
