import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAdminCommand } from '../../src/admin/commands';
import { openTestService, type TestService } from './harness';

/**
 * What the importer suites share: one service for the file, reset before each test, a fresh folder
 * for the peer's install (named `prefix…`, removed after each test), and the admin CLI run in-process.
 */
export function useImportRun(prefix: string) {
  let svc: TestService;
  let dir: string;
  beforeAll(async () => {
    svc = await openTestService();
  });
  afterAll(async () => svc?.close());
  beforeEach(async () => {
    await svc.reset();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  return {
    get svc(): TestService {
      return svc;
    },
    get dir(): string {
      return dir;
    },
    /** Runs an admin command as the CLI does; `out`/`err` are its lines. `out` may stand in for a process that dies mid-run. */
    async admin(argv: string[], out: (line: string) => void = () => {}) {
      const lines = { out: [] as string[], err: [] as string[] };
      const code = await runAdminCommand(argv, {
        db: svc.db,
        config: svc.config,
        out: (line) => {
          lines.out.push(line);
          out(line);
        },
        err: (line) => lines.err.push(line),
      });
      return { code, ...lines };
    },
  };
}

/** The per-row report's rows (`imported|skipped|failed`, what, where), without their reasons. */
export const reportRows = (out: string[]) =>
  out.filter((line) => /^(imported|skipped|failed)\t/.test(line)).map((line) => line.split('\t').slice(0, 3).join(' '));
