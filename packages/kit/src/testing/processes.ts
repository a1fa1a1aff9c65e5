import { execFile, spawn, type ChildProcess } from 'node:child_process';

export interface MainProcess {
  child: ChildProcess;
  /** The port it listens on, once it says so. */
  port: Promise<number>;
  exit: Promise<{ code: number | null; stderr: string }>;
  /** Resolves with the first match of `pattern` in stdout; fails if the process exits first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
  output(): string;
}

/** Stops a started main process (SIGKILL) and waits for it. */
export async function stopMain(main: MainProcess): Promise<void> {
  main.child.kill('SIGKILL');
  await main.exit;
}

/** A service's own processes (`serviceRoot` is its folder), as an operator starts them. */
export function serviceProcesses(serviceRoot: string): {
  startMain(env: Record<string, string>): MainProcess;
  runCli(args: string[], env: Record<string, string>, input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
} {
  return { startMain, runCli };

  /** `src/main.ts` under node itself (not the tsx wrapper, so that a signal reaches the server). */
  function startMain(env: Record<string, string>): MainProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: serviceRoot,
      env: { ...process.env, NODE_OPTIONS: '', INIT_CWD: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const waiters: Array<() => void> = [];
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      for (const check of [...waiters]) check();
    });
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
    const printed = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return;
          waiters.splice(waiters.indexOf(check), 1);
          resolve(match);
        };
        waiters.push(check);
        check();
        void exit.then(() => reject(new Error(`exited before printing ${pattern}:\n${stdout}${stderr}`)));
      });
    const port = printed(/"port":(\d+).*service listening/).then((match) => Number(match[1]));
    port.catch(() => undefined);
    return { child, port, exit, printed, output: () => stdout };
  }

  /** The admin CLI as a process, with `input` piped into it; resolves with its exit status and output, whatever the status. */
  function runCli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'src/admin/cli.ts', ...args],
        { cwd: serviceRoot, env: { ...process.env, NODE_OPTIONS: '', INIT_CWD: '', ...env }, encoding: 'utf8' },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin!.end(input);
    });
  }
}
