import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The e2e suite run on the built service images instead of each service's dist/: CI builds the
 * images, then sets TEST_IMAGES_IMAGE and TEST_TOOLS_IMAGE. Each replica is a container with the
 * image's own command, on the host's network (it listens on the loopback port nginx is given), with
 * the storage folder mounted at the same path (nginx serves /i/ from it); the admin CLI runs in a
 * container of the same image.
 */
export interface ServiceImages {
  images: string;
  tools: string;
}

export function e2eServiceImages(): ServiceImages | null {
  const images = process.env.TEST_IMAGES_IMAGE;
  const tools = process.env.TEST_TOOLS_IMAGE;
  if (!images && !tools) return null;
  if (!images || !tools) throw new Error('TEST_IMAGES_IMAGE and TEST_TOOLS_IMAGE are set together (the two service images)');
  return { images, tools };
}

/** The image's user (node, 1000) owns the storage folder, as a fresh named volume takes the image folder's owner. */
const IMAGE_USER = 1000;

function chownTree(dir: string): void {
  chownSync(dir, IMAGE_USER, IMAGE_USER);
  for (const entry of readdirSync(dir)) {
    const child = path.join(dir, entry);
    if (statSync(child).isDirectory()) chownTree(child);
    else chownSync(child, IMAGE_USER, IMAGE_USER);
  }
}

/**
 * `docker run` arguments for `env`: each variable by name only (its value travels in the docker
 * CLI's environment, not on its command line); STORAGE_DIR mounted at its own path. The host's PATH
 * stays out: the image has its own.
 */
function runArgs(env: NodeJS.ProcessEnv): { args: string[]; envArgs: string[]; cliEnv: NodeJS.ProcessEnv } {
  const names = Object.keys(env).filter((name) => name !== 'PATH' && env[name] !== undefined);
  const envArgs = names.flatMap((name) => ['-e', name]);
  const args = ['--network', 'host', ...envArgs];
  const storageDir = env.STORAGE_DIR;
  if (storageDir) {
    // Root runs CI: give the folder to the image's user. Anyone else runs the container as themselves.
    if (process.getuid?.() === 0) chownTree(storageDir);
    else args.push('--user', `${process.getuid?.()}:${process.getgid?.()}`);
    args.push('-v', `${storageDir}:${storageDir}`);
  }
  const cliEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DOCKER_HOST: process.env.DOCKER_HOST };
  for (const name of names) cliEnv[name] = env[name];
  return { args, envArgs, cliEnv };
}

/**
 * Starts a replica as a container named `name`, running the image's command. The returned process
 * is the attached `docker run`: its output is the container's, signals it can catch go on to the
 * container (SIGTERM: the service's drain), and when it ends however it ends (SIGKILL included, which
 * would otherwise leave the container running) the container is killed before anyone else hears of
 * the exit, so a killed replica's port is closed.
 */
export function spawnContainer(image: string, name: string, env: NodeJS.ProcessEnv): ChildProcess {
  const { args, cliEnv } = runArgs(env);
  // Each start its own name: the daemon removes a killed container (--rm) after its kill returns,
  // and on vfs that takes seconds a restart need not wait for.
  const container = `${name}-${++starts}`;
  const child = spawn('docker', ['run', '--rm', '--name', container, ...args, image], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.set(container, image);
  child.on('exit', () => {
    running.delete(container);
    killContainer(container);
  });
  return child;
}
let starts = 0;
/** Replica containers still running, by name, with their image. */
const running = new Map<string, string>();

function killContainer(name: string): void {
  try {
    execFileSync('docker', ['kill', name], { stdio: 'ignore' });
  } catch {
    // Already stopped (its process ended, and with it the docker CLI).
  }
}

/**
 * Runs `command` in a container of `image` and returns its stdout: in a running replica of it, as
 * `docker compose exec` would (a new container costs a copy of the image's files on vfs, tens of
 * seconds on a busy machine), else in a throw-away one, as `docker compose run` would.
 */
export function runInContainer(image: string, env: NodeJS.ProcessEnv, command: string[], stdin?: string): string {
  const { args, envArgs, cliEnv } = runArgs(env);
  const replica = [...running].find(([, of]) => of === image)?.[0];
  const docker = replica
    ? ['exec', '-i', ...envArgs, replica, ...command]
    : ['run', '--rm', '-i', ...args, image, ...command];
  return execFileSync('docker', docker, { env: cliEnv, encoding: 'utf8', input: stdin ?? '' });
}
