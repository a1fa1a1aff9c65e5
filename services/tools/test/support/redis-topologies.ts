import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, whenReady } from './redis-server';

/** Private Redis processes for one test file, in their own temp folder; `close()` stops them all. */
class Processes {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-redis-'));
  private readonly children: ChildProcess[] = [];

  async start(args: string[], readyLine?: RegExp): Promise<void> {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'ignore'], cwd: this.dir });
    this.children.push(child);
    await whenReady(child, readyLine);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

const common = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', ''];

/** Polls a condition every 50 ms (a Redis topology has no event to wait on from outside) until it holds. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ask<T>(port: number, command: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    return await command(client);
  } finally {
    client.disconnect();
  }
}

export interface LocalCluster {
  /** `redis+cluster://` naming one node only: the client discovers the others. */
  url: string;
  ports: number[];
  close(): Promise<void>;
}

/** Three masters (no replicas), slots split by `redis-cli --cluster create`, ready when every node says `cluster_state:ok`. */
export async function startLocalCluster(): Promise<LocalCluster> {
  const processes = new Processes();
  const ports: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push(port);
      await processes.start([...common(port), '--cluster-enabled', 'yes', '--cluster-port', String(busPort), '--cluster-config-file', `nodes-${port}.conf`]);
    }
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    for (const port of ports) await until(`node ${port} to see the cluster ok`, () => ask(port, async (client) => (await client.cluster('INFO')).includes('cluster_state:ok')));
    return { url: `redis+cluster://127.0.0.1:${ports[0]}`, ports, close: () => processes.close() };
  } catch (error) {
    await processes.close();
    throw error;
  }
}

export interface LocalSentinelSet {
  url: string;
  masterName: string;
  masterPort: number;
  replicaPort: number;
  /** Where the Sentinels say the master is now. */
  currentMasterPort(): Promise<number>;
  /** Resolves once the replica has every write the master took (`WAIT 1`); replication is asynchronous. */
  replicated(): Promise<void>;
  /** `SENTINEL FAILOVER`: the replica becomes master; resolves once the Sentinels name it. */
  failover(): Promise<void>;
  close(): Promise<void>;
}

/** A master, one replica and three Sentinels (quorum 2), ready once every Sentinel knows the replica. */
export async function startLocalSentinelSet(): Promise<LocalSentinelSet> {
  const processes = new Processes();
  const masterName = 'toolsmaster';
  try {
    const [masterPort, replicaPort] = [await freePort(), await freePort()];
    await processes.start(common(masterPort));
    await processes.start([...common(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)]);
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      sentinelPorts.push(port);
      // A Sentinel rewrites its own config file: one per Sentinel, in the temp folder.
      const config = path.join(processes.dir, `sentinel-${port}.conf`);
      fs.writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${masterName} 2000`,
          `sentinel failover-timeout ${masterName} 10000`,
          '',
        ].join('\n'),
      );
      // A Sentinel logs no "Ready to accept connections": it is listening once it monitors the master.
      await processes.start([config, '--sentinel', '--logfile', ''], /\+monitor master/);
    }
    const masterOf = (sentinelPort: number) => ask(sentinelPort, async (client) => Number(((await client.call('SENTINEL', 'get-master-addr-by-name', masterName)) as string[])[1]));
    for (const port of sentinelPorts) {
      await until(`sentinel ${port} to know the replica`, () =>
        ask(port, async (client) => ((await client.call('SENTINEL', 'replicas', masterName)) as string[][]).some((fields) => fields.includes(String(replicaPort)) && fields.includes('slave'))),
      );
    }
    return {
      url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${masterName}`,
      masterName,
      masterPort,
      replicaPort,
      async replicated() {
        const acknowledged = await ask(masterPort, (client) => client.call('WAIT', 1, 10_000));
        if (acknowledged !== 1) throw new Error('the replica did not acknowledge the writes');
      },
      currentMasterPort: () => masterOf(sentinelPorts[0]!),
      async failover() {
        await ask(sentinelPorts[0]!, (client) => client.call('SENTINEL', 'failover', masterName));
        for (const port of sentinelPorts) await until(`sentinel ${port} to name the new master`, async () => (await masterOf(port)) === replicaPort);
        await until('the new master to accept writes', () => ask(replicaPort, async (client) => (await client.role())[0] === 'master'));
      },
      close: () => processes.close(),
    };
  } catch (error) {
    await processes.close();
    throw error;
  }
}
