import fs from 'node:fs';
import net from 'node:net';

/**
 * Admin commands for an embedded database, run by the process that has it open (PGlite allows one
 * process at a time). One JSON request per connection: `{"argv":[...],"input":"…"}` (input: what the
 * operator piped into the command, for the commands that read stdin); the answer is JSON lines
 * `{"out":"…"}` / `{"err":"…"}` as the command prints, then `{"exit":<status>}`.
 */
export type AdminRunner = (argv: string[], print: { out(line: string): void; err(line: string): void }, input: string | undefined) => Promise<number>;

export async function serveAdminCommands(socketPath: string, run: AdminRunner): Promise<{ close(): Promise<void> }> {
  // Left by a process that died (the lock file said so before we got here).
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let request = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      request += chunk;
      const newline = request.indexOf('\n');
      if (newline === -1) return;
      socket.removeAllListeners('data');
      const send = (message: object) => socket.write(`${JSON.stringify(message)}\n`);
      let argv: string[];
      let input: string | undefined;
      try {
        ({ argv, input } = JSON.parse(request.slice(0, newline)) as { argv: string[]; input?: string });
        if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) throw new Error('argv must be a list of strings');
        if (input !== undefined && typeof input !== 'string') throw new Error('input must be a string');
      } catch (error) {
        send({ err: `error: bad admin request: ${(error as Error).message}` });
        socket.end(`${JSON.stringify({ exit: 2 })}\n`);
        return;
      }
      run(argv, { out: (line) => send({ out: line }), err: (line) => send({ err: line }) }, input).then(
        (status) => socket.end(`${JSON.stringify({ exit: status })}\n`),
        (error: unknown) => {
          send({ err: `error: ${(error as Error)?.message ?? String(error)}` });
          socket.end(`${JSON.stringify({ exit: 1 })}\n`);
        },
      );
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // Only the user running the service may send it commands.
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Sends one admin command to the process that owns the database; prints as it answers; resolves with its exit status. */
export function forwardAdminCommand(socketPath: string, argv: string[], print: { out(line: string): void; err(line: string): void }, input?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffered = '';
    let status: number | undefined;
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ argv, input })}\n`));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, newline)) as { out?: string; err?: string; exit?: number };
        buffered = buffered.slice(newline + 1);
        if (message.out !== undefined) print.out(message.out);
        if (message.err !== undefined) print.err(message.err);
        if (message.exit !== undefined) status = message.exit;
      }
    });
    socket.on('error', reject);
    socket.on('close', () => (status === undefined ? reject(new Error('the service closed the admin socket without an answer')) : resolve(status)));
  });
}
