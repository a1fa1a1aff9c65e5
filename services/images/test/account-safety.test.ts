import { createCipheriv, randomBytes, scryptSync } from 'node:crypto';
import pino from 'pino';
import request from 'supertest';
import { runAdminCommand } from '../src/admin/commands';
import { createApp } from '../src/app';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import { createTestUser, useTestService, userAdminFor } from './support/harness';

// The security review's account findings: each reproduced as it was reported, and what happens now.

const API = '/api/image.php';
const FAILURES_PER_ACCOUNT = 3;
const svc = useTestService({ SIGN_IN_FAILURES_PER_ACCOUNT: String(FAILURES_PER_ACCOUNT), REGISTRATION_ENABLED: 'true' });

const read = (action: string, token: string) => request(svc.app).get(`${API}?action=${action}`).set('X-API-Token', token);
const write = (action: string, token?: string) => {
  const req = request(svc.app).post(`${API}?action=${action}`);
  return token ? req.set('X-API-Token', token) : req;
};
const login = (username: string, password: string) => write('login').send({ username, password });
const THROTTLED = { code: 1, msg: '登录尝试过于频繁，请稍后再试' };

async function userWithPassword(name: string, options: { isAdmin?: boolean } = {}) {
  return createTestUser(svc.db, name, undefined, { password: 'password-123', isAdmin: options.isAdmin });
}

async function signedIn(name: string, password = 'password-123'): Promise<string> {
  const res = await login(name, password);
  expect(res.body).toMatchObject({ code: 0, msg: '登录成功' });
  return res.body.data.token as string;
}

async function works(token: string, app = svc.app): Promise<boolean> {
  const res = await request(app).get(`${API}?action=list`).set('X-API-Token', token);
  if (res.body.code !== 0) expect(res.body).toEqual({ code: 1, msg: '请先登录' });
  return res.body.code === 0;
}

/** A second replica: its own app (and its own memory of looked-up tokens) on the same database. */
function otherReplica() {
  return createApp({ config: svc.config, db: svc.db, storage: svc.storage, media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });
}

describe('the per-account sign-in limit', () => {
  test('when eleven wrong passwords and the right one arrive at the same moment, then no more than the limit are checked', async () => {
    await userWithPassword('alice');
    const attempts = [...Array.from({ length: 11 }, () => 'wrong-password'), 'password-123'].map((password) => login('alice', password));
    const answers = (await Promise.all(attempts)).map((res) => res.body.msg as string);
    const checked = answers.filter((msg) => msg !== THROTTLED.msg);
    expect(checked).toHaveLength(FAILURES_PER_ACCOUNT);
    expect(checked.every((msg) => msg === '用户名或密码错误' || msg === '登录成功')).toBe(true);
  });

  test('when names differ only in case, spaces or Unicode form, then they are one account: one counter, one name', async () => {
    const alice = await userWithPassword('alice');
    for (const lookAlike of ['ALICE', ' Alice ', 'ａｌｉｃｅ']) {
      await expect(userAdminFor(svc.db).createUser({ name: lookAlike, password: 'password-123' })).rejects.toThrow(`user ${lookAlike.trim()} already exists`);
      expect((await write('register').send({ username: lookAlike, password: 'password-456' })).body).toEqual({ code: 1, msg: '用户名已被使用' });
    }
    expect((await svc.db('users').select('name')).map((row) => row.name)).toEqual(['alice']);

    // Signing in as ALICE is signing in as alice, and her failures are counted whatever the spelling.
    expect((await login('ALICE', 'password-123')).body).toMatchObject({ code: 0, data: { user: { id: alice.id, username: 'alice' } } });
    for (const spelling of ['ALICE', 'Alice', 'ａｌｉｃｅ']) expect((await login(spelling, 'wrong-password')).body.msg).toBe('用户名或密码错误');
    expect((await login('alice', 'password-123')).body).toEqual(THROTTLED);
    expect((await login('ALICE', 'password-123')).body).toEqual(THROTTLED);
  });

  test("when a session holder guesses the current password in change_password, then the guesses are limited like sign-ins and the password stays", async () => {
    await userWithPassword('alice');
    const session = await signedIn('alice');
    const change = (password: string) => write('change_password', session).send({ password, new_password: 'taken-over-1' });
    for (let i = 0; i < FAILURES_PER_ACCOUNT; i += 1) expect((await change(`guess-${i}-abc`)).body).toEqual({ code: 1, msg: '当前密码不正确' });
    const refused = await change('password-123');
    expect(refused.body).toEqual(THROTTLED);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The same counter as sign-in: the account is locked there too, and the password is unchanged.
    expect((await login('alice', 'password-123')).body).toEqual(THROTTLED);
    await svc.db('sign_in_limits').update({ expire: Date.now() - 1 });
    expect((await login('alice', 'password-123')).body.code).toBe(0);
    expect((await login('alice', 'taken-over-1')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
  });
});

describe('registration', () => {
  test('when one address registers more than REGISTRATIONS_PER_ADDRESS times in an hour, then it is refused, taken names counted too, and nothing more is made', async () => {
    await userWithPassword('alice');
    for (let i = 0; i < 4; i += 1) expect((await write('register').send({ username: `new${i}`, password: 'password-123' })).body.code).toBe(0);
    expect((await write('register').send({ username: 'alice', password: 'password-123' })).body).toEqual({ code: 1, msg: '用户名已被使用' });
    const refused = await write('register').send({ username: 'bob', password: 'password-123' });
    expect(refused.body).toEqual(THROTTLED);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(15 * 60);
    expect(await svc.db('users').where({ name: 'bob' })).toEqual([]);
  });
});

describe('passwords set for a user', () => {
  test("when an admin sets a user's password through the API, then every session of that user ends on every replica; tokens and the admin's session stay", async () => {
    await userWithPassword('root', { isAdmin: true });
    const alice = await userWithPassword('alice');
    const admin = await signedIn('root');
    const sessions = [await signedIn('alice'), await signedIn('alice')];
    const replica = otherReplica();
    for (const session of sessions) expect(await works(session, replica)).toBe(true);

    expect((await write('admin_update_user', admin).send({ id: alice.id, password: 'set-by-admin-1' })).body).toMatchObject({ code: 0, msg: '用户已更新' });
    for (const session of sessions) {
      expect(await works(session)).toBe(false);
      expect(await works(session, replica)).toBe(false);
      expect((await write('create_token', session).send({ name: 'after' })).body).toEqual({ code: 1, msg: '请先登录' });
    }
    expect(await works(alice.token)).toBe(true);
    expect(await works(admin)).toBe(true);
    expect((await login('alice', 'set-by-admin-1')).body.code).toBe(0);
  });

  test("when an admin sets their own password through the API, then their other sessions end and the one that set it stays", async () => {
    const root = await userWithPassword('root', { isAdmin: true });
    const [setting, other] = [await signedIn('root'), await signedIn('root')];
    expect((await write('admin_update_user', setting).send({ id: root.id, password: 'new-root-pass' })).body.code).toBe(0);
    expect(await works(setting)).toBe(true);
    expect(await works(other)).toBe(false);
  });

  test('when the CLI sets a password (set-password), then every session of that user ends', async () => {
    await userWithPassword('alice');
    const session = await signedIn('alice');
    const out: string[] = [];
    const code = await runAdminCommand(['set-password', 'alice'], { db: svc.db, config: svc.config, out: (line) => out.push(line), err: (line) => out.push(line), input: 'from-the-cli-1\n' });
    expect([code, out]).toEqual([0, ['password of alice set']]);
    expect(await works(session)).toBe(false);
  });

  test('when a password hash was made at an older scrypt cost, then sign-in still works and stores it again at today\'s cost', async () => {
    const alice = await userWithPassword('alice');
    const salt = randomBytes(16);
    const old = scryptSync('password-123', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    await svc.db('users').where({ id: alice.id }).update({ password_hash: `scrypt$15$8$1$${salt.toString('base64url')}$${old.toString('base64url')}` });
    await signedIn('alice');
    const { password_hash: stored } = await svc.db('users').where({ id: alice.id }).first('password_hash');
    expect(stored).toMatch(/^scrypt\$15\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    expect((await login('alice', 'password-123')).body.code).toBe(0);
  });
});

describe('admins and tokens under concurrency', () => {
  test('when two admins disable each other at the same moment, then one succeeds and one admin stays active', async () => {
    const [first, second] = [await userWithPassword('root1', { isAdmin: true }), await userWithPassword('root2', { isAdmin: true })];
    const [s1, s2] = [await signedIn('root1'), await signedIn('root2')];
    const answers = await Promise.all([
      write('admin_update_user', s1).send({ id: second.id, disabled: true }),
      write('admin_update_user', s2).send({ id: first.id, disabled: true }),
    ]);
    // The loser is refused as the last admin, or, if the winner disabled it first, its session is gone.
    const messages = answers.map((res) => res.body.msg as string);
    expect(messages.filter((msg) => msg === '用户已更新')).toHaveLength(1);
    expect(messages.filter((msg) => msg !== '用户已更新')).toEqual([expect.stringMatching(/^(至少要保留一名可用的管理员|请先登录)$/)]);
    const active = await svc.db('users').where({ is_admin: true }).whereNull('disabled_at').select('name');
    expect(active).toHaveLength(1);
  });

  test('when six resets of the account token arrive at once, then each succeeds, one account token remains, and it is the one the account area shows', async () => {
    await userWithPassword('alice');
    const session = await signedIn('alice');
    const answers = await Promise.all(Array.from({ length: 6 }, () => write('reset_token', session)));
    expect(answers.map((res) => [res.status, res.body.code, res.body.msg])).toEqual(Array.from({ length: 6 }, () => [200, 0, '令牌已重置']));
    const tokens = answers.map((res) => res.body.data.token as string);
    const live = [];
    for (const token of tokens) if (await works(token)) live.push(token);
    expect(live).toEqual([(await read('token', session)).body.data.token]);
    expect(await svc.db('credentials').where({ kind: 'account' }).select('id')).toHaveLength(1);
  });

  test('when 60 named tokens are asked for at once, then exactly 50 are made and the rest are refused', async () => {
    await userWithPassword('alice');
    const session = await signedIn('alice');
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => write('create_token', session).send({ name: `t${i}` })));
    const messages = answers.map((res) => res.body.msg as string);
    expect(messages.filter((msg) => msg === '令牌已创建')).toHaveLength(50);
    expect(messages.filter((msg) => msg === '令牌数量已达上限')).toHaveLength(10);
    expect(await svc.db('credentials').where({ kind: 'named' }).select('id')).toHaveLength(50);
  });
});

describe('the sealed account token', () => {
  /** A `v1` seal, as made before seals were bound to a user: AES-256-GCM without associated data. */
  function sealV1(token: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', svc.config.tokenEncryptionKey, iv);
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  test("when a sealed token is copied into another user's row, then the account area there shows no token (null), never the other user's", async () => {
    const alice = await userWithPassword('alice');
    await userWithPassword('bob');
    const bobSession = await signedIn('bob');
    const { token_ciphertext: alices } = await svc.db('credentials').where({ user_id: alice.id, kind: 'account' }).first('token_ciphertext');
    expect(alices).toMatch(/^v2\./);
    await svc.db('credentials').where({ kind: 'account' }).whereNot({ user_id: alice.id }).update({ token_ciphertext: alices });
    expect((await read('token', bobSession)).body).toEqual({ code: 0, msg: '成功', data: { token: null, create_time: expect.any(String) } });

    // A seal from before user binding opens only on the row whose digest is its token's.
    const v1 = sealV1(alice.token);
    await svc.db('credentials').where({ kind: 'account' }).update({ token_ciphertext: v1 });
    expect((await read('token', bobSession)).body.data.token).toBeNull();
    expect((await read('token', await signedIn('alice'))).body.data.token).toBe(alice.token);
  });
});
