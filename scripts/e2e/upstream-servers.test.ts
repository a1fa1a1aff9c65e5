/**
 * The upstream `server` lines reach nginx two ways: upstreamServers() builds them for the e2e
 * platform and check-nginx, and docker-compose.yml writes them out for production. Both must carry
 * the same failure accounting.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UPSTREAM_FAILURE_ACCOUNTING, upstreamServers } from '../lib/nginx-template';

const COMPOSE_FILE = path.resolve(__dirname, '..', '..', 'docker-compose.yml');

/** The value of `NAME: "..."` in the compose file (the proxy's environment). */
function composeValue(compose: string, name: string): string {
  const match = new RegExp(`^\\s*${name}:\\s*"([^"]*)"\\s*$`, 'm').exec(compose);
  if (!match) throw new Error(`${name} not found in docker-compose.yml`);
  return match[1]!;
}

describe('upstream server lines', () => {
  test('when the helper builds loopback servers, then every line carries max_fails=1 fail_timeout=1s', () => {
    expect(UPSTREAM_FAILURE_ACCOUNTING).toBe('max_fails=1 fail_timeout=1s');
    expect(upstreamServers(['127.0.0.1:3001', '127.0.0.1:3011'])).toBe(
      'server 127.0.0.1:3001 max_fails=1 fail_timeout=1s; server 127.0.0.1:3011 max_fails=1 fail_timeout=1s;',
    );
  });

  test('when docker-compose.yml names the upstream servers, then they are the lines the helper builds', () => {
    const compose = readFileSync(COMPOSE_FILE, 'utf8');
    expect({
      images: composeValue(compose, 'IMAGES_UPSTREAM_SERVERS'),
      tools: composeValue(compose, 'TOOLS_UPSTREAM_SERVERS'),
    }).toEqual({
      images: upstreamServers(['images:3001'], { resolve: true }),
      tools: upstreamServers(['tools:3002'], { resolve: true }),
    });
  });
});
