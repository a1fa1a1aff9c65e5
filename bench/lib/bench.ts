/**
 * What bench/run.ts hands its scenarios (the ones in run.ts and those in lib/): the mode, the running
 * stack with its seeded credentials, the load helpers and the report being built.
 */
import type { Side } from './alternate';
import type { Lifecycle } from './lifecycle';
import type { LoadOptions } from './load';
import type { ProcessGroup } from './proc';
import type { Measured, Role, Row, TargetCheck } from './report';
import type { PostgresAdmin, Service } from './stack';

/** How big and how long the run is (full or smoke). */
export interface Mode {
  smoke: boolean;
  durationSec: number;
  /** Each comparison's seconds are cut into this many rounds of one slice of each side. */
  rounds: number;
  warmupSec: number;
  connections: number;
  smallImages: number;
  largeImages: number;
  uploadConnections: number;
  uploadSec: number;
  rssUploads: number;
  rssUploadBytes: number;
  /** The search scenario's directory size and how many times each query is timed. */
  searchTools: number;
  searchSamples: number;
}

/** What every scenario needs: the running stack, the seeded credentials, the load helpers and the report being built. */
export interface Bench {
  mode: Mode;
  lifecycle: Lifecycle;
  workDir: string;
  storageDir: string;
  postgres: PostgresAdmin;
  imagesDatabaseUrl: string;
  /** The environment each service was started with (the images one with its PUBLIC_BASE_URL): more replicas start with it. */
  imagesEnv: NodeJS.ProcessEnv;
  toolsEnv: NodeJS.ProcessEnv;
  tools: Service;
  images: Service;
  /** The project's nginx in front of both services. */
  front: string;
  roles: Record<string, Role>;
  nginxGroup: ProcessGroup;
  toolsGroups: ProcessGroup[];
  imagesGroups: ProcessGroup[];
  apiKey: string;
  smallToken: string;
  largeToken: string;
  /** A user with a tenth of largeImages (the keyword-search scenario's). */
  mediumToken: string;
  uploadToken: string;
  rows: Row[];
  checks: TargetCheck[];
  /** Tables of their own that scenarios add below the targets. */
  sections: string[];
  /** Load on `groups`: a warm-up (not measured), then slices of `options` (for the given seconds, or its `amount` each). */
  loadSide(groups: ProcessGroup[], options: LoadOptions, rssGroup?: string): Side;
  /** Runs of a script of bench/baselines/ that prints its operations, seconds, CPU and latencies (no warm-up: the script warms itself if it needs to). */
  scriptSide(name: string, script: string, env: (seconds: number) => NodeJS.ProcessEnv): Side;
  /** Adds a baseline's row and its subject's, with the ratio of their req/s. */
  pair(baselineName: string, baseline: Measured, name: string, subject: Measured): Row;
  /** A baseline and its subject in alternating slices, `seconds` each in all. */
  compare(baselineName: string, baseline: Side, name: string, subject: Side, seconds: number): Promise<Row>;
}

/** The photos and helpers the upload scenarios share (and `/i/`, which needs one stored file). */
export interface Uploads {
  sizes: { label: string; width: number; height: number }[];
  photos: Map<string, Buffer>;
  url: string;
  /** The stored count once no upload is in flight. */
  storedCount(): Promise<number>;
  uploadOnce(file: Buffer, name: string): Promise<{ url: string }>;
}
