import { parseRedisTarget } from '../src/ratelimit/redis-target';
import { testConfig } from './support/harness';

describe('REDIS_URL forms', () => {
  it('when it is redis:// or rediss://, then it names one server, passed to ioredis as written', () => {
    expect(parseRedisTarget('redis://:secret@redis:6379/2')).toEqual({ kind: 'server', url: 'redis://:secret@redis:6379/2' });
    expect(parseRedisTarget('rediss://cache.example:6380')).toEqual({ kind: 'server', url: 'rediss://cache.example:6380' });
  });

  it('when it is redis+sentinel://, then it lists the Sentinels, the master name, the database and both passwords', () => {
    expect(parseRedisTarget('redis+sentinel://app:p%40ss@s1:26379,s2:26380,[::1]:26381/mymaster?db=3&sentinel_password=sp')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      masterName: 'mymaster',
      db: 3,
      username: 'app',
      password: 'p@ss',
      sentinelPassword: 'sp',
    });
  });

  it('when it is redis+cluster://, then it lists the seed nodes and the password', () => {
    expect(parseRedisTarget('redis+cluster://:pw@n1:7000,n2:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      username: undefined,
      password: 'pw',
    });
  });

  it.each([
    ['http://redis:6379', 'must be redis://…, rediss://…, redis+sentinel://host:port,…/<master name> or redis+cluster://host:port,…'],
    ['redis+sentinel://s1:26379', 'redis+sentinel:// needs the master name as its path: redis+sentinel://host:26379,…/mymaster'],
    ['redis+sentinel://s1:26379/m?db=x', 'redis+sentinel:// db must be a database number (0-15)'],
    ['redis+cluster://n1', '"n1" is not host:port'],
    ['redis+cluster://n1:7000,n2:99999', '"n2:99999" is not host:port'],
    ['redis+cluster://n1:7000/2', 'redis+cluster:// takes no path (a Cluster has one database)'],
  ])('when it is %s, then it is refused with a message saying what is wrong', (url, message) => {
    expect(() => parseRedisTarget(url)).toThrow(message);
  });

  it('when the service starts with a bad REDIS_URL, then the config refusal names the variable and the reason', () => {
    expect(() => testConfig({ REDIS_URL: 'redis+sentinel://s1:26379' })).toThrow(/REDIS_URL.*needs the master name/);
  });
});
