import request from 'supertest';
import { editorNameKey } from '../src/editors/editor-name';
import { addEditor, adminCommand, csrfIn, signedIn } from './support/editors';
import { openHarness, type Harness } from './support/harness';

// Editors' accounts (the admin CLI) and signing in to the web admin at /admin/. Every password check is a
// real scrypt (32 MiB), as in production: slow on a busy machine, hence the long timeout.
jest.setTimeout(120_000);

let harness: Harness;
const rows = async (table: string) => Number((await harness.db(table).count({ n: '*' }))[0]!.n);
beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await harness.db.raw('TRUNCATE editors, editor_sessions, editor_sign_in_limits RESTART IDENTITY CASCADE');
});

describe('editor accounts (admin CLI)', () => {
  it('when an editor is added without a password, then a generated one is printed once and signs in', async () => {
    const added = await adminCommand(harness.db, ['editor:add', 'Alice']);
    expect(added.status).toBe(0);
    expect(added.out).toContain('created editor #1 "Alice"');
    const password = /password: (\S+)/.exec(added.out)?.[1] ?? '';
    expect(password).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const [row] = await harness.db('editors').select('*');
    expect(row).toMatchObject({ name: 'Alice', name_key: 'alice', disabled_at: null });
    expect(row.password_hash).toMatch(/^scrypt\$15\$8\$3\$/);
    expect(JSON.stringify(row)).not.toContain(password);
    await signedIn(harness.app(), 'alice', password);
  });

  it('when a name differs only by case, spaces or width, then it is the same editor and refused', async () => {
    await addEditor(harness.db, 'alice', 'correct horse');
    expect(editorNameKey(' ＡＬＩＣＥ ')).toBe('alice');
    const again = await adminCommand(harness.db, ['editor:add', ' ＡＬＩＣＥ ', '--password-stdin'], 'another one\n');
    expect(again).toMatchObject({ status: 1, err: 'error: an editor named "ＡＬＩＣＥ" already exists' });
    expect(await adminCommand(harness.db, ['editor:add', 'bob', '--password-stdin'], 'short\n')).toMatchObject({
      status: 1,
      err: 'error: the password must be 8 to 128 characters',
    });
    expect((await adminCommand(harness.db, ['editor:add', 'bad name!'])).status).toBe(1);
    expect((await adminCommand(harness.db, ['editor:add', 'bob', '--password-stdin'], '')).status).toBe(2);
    expect(await rows('editors')).toBe(1);
  });

  it('when an editor is disabled, then their open session ends at once and sign-in is refused; enabled, they sign in again', async () => {
    await addEditor(harness.db, 'alice', 'correct horse');
    const app = harness.app();
    const { agent } = await signedIn(app, 'alice', 'correct horse');
    expect((await adminCommand(harness.db, ['editor:disable', 'ALICE'])).out).toBe('editor "alice" disabled; their sessions ended');
    const after = await agent.get('/admin/tools');
    expect(after.status).toBe(303);
    expect(after.headers.location).toBe('/admin/?next=%2Fadmin%2Ftools');
    await expect(signedIn(app, 'alice', 'correct horse')).rejects.toThrow('sign-in answered 401');
    const list = await adminCommand(harness.db, ['editor:list']);
    expect(list.out).toMatch(/^1\talice\tdisabled\t/m);
    await adminCommand(harness.db, ['editor:enable', 'alice']);
    await signedIn(app, 'alice', 'correct horse');
  });

  it('when a password is set, then the old one stops working and sessions end', async () => {
    await addEditor(harness.db, 'alice', 'correct horse');
    const app = harness.app();
    const { agent } = await signedIn(app, 'alice', 'correct horse');
    expect((await adminCommand(harness.db, ['editor:set-password', 'alice', '--password-stdin'], 'battery staple\n')).status).toBe(0);
    expect((await agent.get('/admin/tools')).status).toBe(303);
    await expect(signedIn(app, 'alice', 'correct horse')).rejects.toThrow('sign-in answered 401');
    await signedIn(app, 'alice', 'battery staple');
    expect((await adminCommand(harness.db, ['editor:set-password', 'nobody'])).err).toBe('error: no editor named "nobody"');
  });
});

describe('signing in at /admin/', () => {
  beforeEach(async () => {
    await addEditor(harness.db, 'alice', 'correct horse');
  });

  it('when an editor signs in, then the session cookie is HttpOnly, SameSite=Strict, under /admin, and they land where they were going', async () => {
    const agent = request.agent(harness.app());
    const form = await agent.get('/admin/?next=%2Fadmin%2Fcategories');
    expect(form.status).toBe(200);
    expect(form.headers['cache-control']).toBe('no-store');
    expect(form.headers['content-security-policy']).toContain("default-src 'none'");
    expect(form.text).toContain('<label for="sign-in-name">用户名</label>');
    const res = await agent.post('/admin/sign-in').type('form').send({ name: 'Alice', password: 'correct horse', csrf: csrfIn(form.text), next: '/admin/categories' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/categories');
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('tools_editor='))!;
    expect(cookie).toMatch(/^tools_editor=[A-Za-z0-9_-]{43}; Path=\/admin; Expires=.+; HttpOnly; SameSite=Strict$/);
    const token = /^tools_editor=([^;]+)/.exec(cookie)![1]!;
    const [session] = await harness.db('editor_sessions').select('token_hash');
    expect(session.token_hash).not.toBe(token);
    const page = await agent.get('/admin/categories');
    expect(page.status).toBe(200);
    expect(page.text).toContain('已登录：alice');
  });

  it('when the request came over https through the proxy, then the cookie is Secure too', async () => {
    const agent = request.agent(harness.app());
    const form = await agent.get('/admin/');
    const res = await agent.post('/admin/sign-in').set('X-Forwarded-Proto', 'https').type('form').send({ name: 'alice', password: 'correct horse', csrf: csrfIn(form.text) });
    expect(res.status).toBe(303);
    expect((res.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('tools_editor='))).toContain('; Secure');
  });

  it('when the password is wrong or the name unknown, then the same refusal is shown and no session starts', async () => {
    const agent = request.agent(harness.app());
    const form = await agent.get('/admin/');
    for (const name of ['alice', 'nobody']) {
      const res = await agent.post('/admin/sign-in').type('form').send({ name, password: 'wrong password', csrf: csrfIn(form.text) });
      expect(res.status).toBe(401);
      expect(res.text).toContain('用户名或密码错误。');
      expect(res.text).toContain(`value="${name}"`);
      expect(res.headers['set-cookie'] ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/^tools_editor=/)]));
    }
    expect(await rows('editor_sessions')).toBe(0);
  });

  it('when a name has had 10 wrong passwords, then even the right one is refused with 429 and Retry-After', async () => {
    const agent = request.agent(harness.app());
    const csrf = csrfIn((await agent.get('/admin/')).text);
    const attempts = await Promise.all(
      Array.from({ length: 10 }, () => agent.post('/admin/sign-in').type('form').send({ name: 'ALICE', password: 'wrong password', csrf })),
    );
    expect(attempts.map((res) => res.status)).toEqual(Array(10).fill(401));
    const refused = await agent.post('/admin/sign-in').type('form').send({ name: 'alice', password: 'correct horse', csrf });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(refused.text).toContain('尝试次数过多');
    expect(await rows('editor_sessions')).toBe(0);
  });

  it('when one address makes 30 attempts, then its 31st is refused whatever the name', async () => {
    const agent = request.agent(harness.app());
    const csrf = csrfIn((await agent.get('/admin/')).text);
    for (let batch = 0; batch < 3; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) => agent.post('/admin/sign-in').type('form').send({ name: `someone${batch}-${index}`, password: 'wrong password', csrf })),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(10).fill(401));
    }
    const refused = await agent.post('/admin/sign-in').type('form').send({ name: 'alice', password: 'correct horse', csrf });
    expect(refused.status).toBe(429);
  });

  it('when the sign-in form comes without its token (another site posting), then it is refused with 403', async () => {
    const res = await request(harness.app()).post('/admin/sign-in').type('form').send({ name: 'alice', password: 'correct horse', csrf: 'x'.repeat(43) });
    expect(res.status).toBe(403);
    expect(res.text).toContain('表单已过期或来源不明');
    expect(await rows('editor_sessions')).toBe(0);
  });

  it('when no one is signed in, then admin pages redirect to the sign-in page and writes store nothing', async () => {
    const app = harness.app();
    const page = await request(app).get('/admin/tools/new');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/admin/?next=%2Fadmin%2Ftools%2Fnew');
    const write = await request(app).post('/admin/categories').type('form').send({ slug: 'x', name: 'X' });
    expect(write.status).toBe(303);
    expect(write.headers.location).toBe('/admin/');
    const forged = await request(app).get('/admin/tools').set('Cookie', `tools_editor=${'a'.repeat(43)}`);
    expect(forged.status).toBe(303);
    expect(await rows('categories')).toBe(0);
  });

  it('when a next address points off the admin, then sign-in lands on the tools list instead', async () => {
    const agent = request.agent(harness.app());
    const csrf = csrfIn((await agent.get('/admin/')).text);
    const res = await agent.post('/admin/sign-in').type('form').send({ name: 'alice', password: 'correct horse', csrf, next: '//evil.example/admin/' });
    expect(res.headers.location).toBe('/admin/tools');
  });

  it('when an editor signs out, then the session is gone and its cookie no longer opens the admin', async () => {
    const app = harness.app();
    const { agent, csrf } = await signedIn(app, 'alice', 'correct horse');
    const forged = await agent.post('/admin/sign-out').type('form').send({ csrf: 'wrong' });
    expect(forged.status).toBe(403);
    const res = await agent.post('/admin/sign-out').type('form').send({ csrf });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/');
    expect(await rows('editor_sessions')).toBe(0);
    expect((await agent.get('/admin/tools')).status).toBe(303);
  });
});
