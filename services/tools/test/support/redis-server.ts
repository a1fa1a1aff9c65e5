import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves when the server says it accepts connections (its log goes to stdout); fails if it exits first. */
export function whenReady(child: ChildProcess, readyLine = /Ready to accept connections/): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!readyLine.test(output)) return;
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      child.stdout!.resume();
      resolve();
    };
    const onExit = () => reject(new Error(`redis-server exited before it was ready:\n${output}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** A private redis-server on a random port that a test may stop and start (never the machine's shared Redis). */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A hung Redis: the connection stays up, nothing answers. */
  pause(): void;
  resume(): void;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', ''], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await whenReady(child);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGCONT');
      running.kill('SIGTERM');
    });
    // Exited: its listening socket is closed.
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}
