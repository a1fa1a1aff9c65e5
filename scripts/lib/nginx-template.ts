import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const NGINX_TEMPLATE_FILE = path.resolve(__dirname, '..', '..', 'proxy', 'nginx.conf.template');
export const PROXY_DIR = path.resolve(__dirname, '..', '..', 'proxy');

export interface NginxTemplateValues {
  LISTEN_PORT: string;
  IMAGES_UPSTREAM_SERVERS: string;
  TOOLS_UPSTREAM_SERVERS: string;
  RESOLVER_DIRECTIVE: string;
  IMAGES_PUBLIC_DIR: string;
  /** The image web app's build folder (index.html, assets/), with a trailing slash. */
  WEB_APP_DIR: string;
  /** The bucket's public/ area (trailing slash), or '' when images are only on the volume. */
  IMAGES_BUCKET_URL: string;
  PROXY_DIR: string;
  CLIENT_MAX_BODY_SIZE: string;
  SITE_CACHE_DIR: string;
}

/**
 * Failure accounting of every upstream server: one failed attempt takes the replica out of rotation
 * for 1 s (nginx counts whole seconds, so 1-2 s), after which the next request tries it again.
 * nginx's default, fail_timeout=10s, answered 502 for up to 11 s after all replicas were back.
 */
export const UPSTREAM_FAILURE_ACCOUNTING = 'max_fails=1 fail_timeout=1s';

/**
 * The `server ...;` lines of an upstream block (IMAGES_UPSTREAM_SERVERS, TOOLS_UPSTREAM_SERVERS):
 * one per address, each with the failure accounting. `resolve` re-resolves a service name, as the
 * compose file does for scaled replicas.
 */
export function upstreamServers(addresses: string[], options: { resolve?: boolean } = {}): string {
  if (addresses.length === 0) throw new Error('an upstream needs at least one server');
  return addresses.map((address) => ['server', address, ...(options.resolve ? ['resolve'] : []), UPSTREAM_FAILURE_ACCOUNTING].join(' ') + ';').join(' ');
}

/** Derives the bucket upstream's placeholders from IMAGES_BUCKET_URL (the nginx image sources it too). */
export const BUCKET_UPSTREAM_SCRIPT = path.join(PROXY_DIR, 'bucket-upstream.envsh');
const BUCKET_PLACEHOLDERS = ['IMAGES_BUCKET_SERVER', 'IMAGES_BUCKET_SCHEME', 'IMAGES_BUCKET_AUTHORITY', 'IMAGES_BUCKET_HOST', 'IMAGES_BUCKET_PATH'] as const;

/** What proxy/bucket-upstream.envsh exports for a bucket URL ('' = no bucket); throws its message on a bad URL. */
export function bucketUpstreamValues(bucketUrl: string): Record<(typeof BUCKET_PLACEHOLDERS)[number], string> {
  const printed = execFileSync('sh', ['-c', `. "$0" && printf '%s\\n' ${BUCKET_PLACEHOLDERS.map((name) => `"$${name}"`).join(' ')}`, BUCKET_UPSTREAM_SCRIPT], {
    env: { PATH: process.env.PATH, IMAGES_BUCKET_URL: bucketUrl },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).split('\n');
  return Object.fromEntries(BUCKET_PLACEHOLDERS.map((name, i) => [name, printed[i]!])) as Record<(typeof BUCKET_PLACEHOLDERS)[number], string>;
}

/**
 * Renders the template the way the nginx image's entrypoint does: the bucket's placeholders derived
 * from IMAGES_BUCKET_URL (proxy/bucket-upstream.envsh), then envsubst, which replaces only the named
 * placeholders, so nginx's own $variables are left alone.
 */
export function renderNginxTemplate(values: NginxTemplateValues, template = readFileSync(NGINX_TEMPLATE_FILE, 'utf8')): string {
  let rendered = template;
  for (const [name, value] of Object.entries({ ...values, ...bucketUpstreamValues(values.IMAGES_BUCKET_URL) })) {
    rendered = rendered.split('${' + name + '}').join(value);
  }
  const leftover = /\$\{[A-Z_]+\}/.exec(rendered);
  if (leftover) throw new Error(`nginx template placeholder without a value: ${leftover[0]}`);
  return rendered;
}

/**
 * A complete nginx.conf around the rendered server config, for running nginx outside Docker.
 * Its main error log is the nginx image's (notice, to /var/log/nginx/error.log, which the image
 * links to /dev/stderr): run nginx with `-e stderr` too, so that nothing goes to the compiled-in
 * log file before this configuration is read.
 */
export function standaloneNginxConf(serverConfig: string, prefixDir: string): string {
  return [
    'worker_processes 1;',
    // Tests run as root and read files the services wrote; workers keep that user.
    'user root;',
    `pid ${prefixDir}/nginx.pid;`,
    'error_log stderr notice;',
    'events { worker_connections 512; }',
    'http {',
    '  include /etc/nginx/mime.types;',
    '  default_type application/octet-stream;',
    `  client_body_temp_path ${prefixDir}/client_body;`,
    `  proxy_temp_path ${prefixDir}/proxy;`,
    `  fastcgi_temp_path ${prefixDir}/fastcgi;`,
    `  uwsgi_temp_path ${prefixDir}/uwsgi;`,
    `  scgi_temp_path ${prefixDir}/scgi;`,
    serverConfig,
    '}',
    '',
  ].join('\n');
}
