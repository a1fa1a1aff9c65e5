/**
 * docker-compose.yml's hardening (CI also runs `docker-compose config`): every container has CPU,
 * memory and pids limits, and Postgres gets each service role's password file for its init script,
 * whose service names are the compose services that connect as them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');

/* eslint-disable @typescript-eslint/no-explicit-any */
const compose: any = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

describe('docker-compose.yml', () => {
  test.each(Object.keys(compose.services))('%s has cpus, mem_limit and pids_limit', (name) => {
    const service = compose.services[name];
    expect({ cpus: typeof service.cpus, mem_limit: String(service.mem_limit), pids_limit: typeof service.pids_limit }).toEqual({
      cpus: 'number',
      mem_limit: expect.stringMatching(/^\d+[mg]$/),
      pids_limit: 'number',
    });
  });

  test('Postgres has each role\'s password file, and every service and migrate one-shot connects through its own URL file', () => {
    const init = readFileSync(path.join(ROOT, 'proxy', 'postgres-init', '01-databases.sh'), 'utf8');
    expect(init).toContain('${SERVICE_DATABASES:-images tools}');
    expect(compose.services.postgres.secrets).toEqual(['postgres_password', 'images_db_password', 'tools_db_password']);
    for (const service of ['images', 'tools']) {
      for (const name of [service, `${service}-migrate`]) {
        expect(compose.services[name].environment.DATABASE_URL_FILE).toBe(`/run/secrets/${service}_database_url`);
        expect(compose.services[name].secrets).toContain(`${service}_database_url`);
      }
      expect(compose.secrets[`${service}_db_password`]).toEqual({ file: `\${SECRETS_DIR:-./secrets}/${service}_db_password` });
    }
  });
});
