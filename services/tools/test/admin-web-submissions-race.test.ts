import type express from 'express';
import { Client } from 'pg';
import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { addEditor, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// An approve and a reject of the same submission at the same moment: exactly one wins, and when the reject
// wins, the approval's tool is not left behind (they are one transaction). Needs real Postgres: a second
// connection holds the submission's row so that both requests are provably waiting on it at once.

jest.setTimeout(120_000);

describeWithRealServer('TEST_DATABASE_URL', 'an approve and a reject at once', () => {
  let harness: Harness;
  let app: express.Express;
  let agent: ReturnType<typeof request.agent>;
  let csrf: string;

  beforeAll(async () => {
    harness = await openHarness();
    await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
    await addEditor(harness.db, 'alice', 'correct horse');
    app = harness.app();
    ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
  });
  afterAll(async () => {
    await harness.close();
  });
  beforeEach(async () => {
    await harness.reset();
    await harness.db.raw('TRUNCATE tool_submissions, tool_submission_limits RESTART IDENTITY');
    await importJson(harness.db, smallCatalog);
    const submitted = await request(app).post('/submit').set('X-Forwarded-For', '198.51.100.7').type('form').send({ name: 'Excalidraw', url: 'https://excalidraw.com', category: 'image', description: '', contact: '', website: '' });
    expect(submitted.status).toBe(303);
  });

  /** Resolves once `count` statements of this test's database wait for a lock. */
  async function waitersReach(count: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await harness.db.raw<{ rows: { n: string }[] }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%tool_submissions%'",
      );
      if (Number(rows[0]!.n) >= count) return;
      if (Date.now() > deadline) throw new Error(`never saw ${count} requests waiting for the submission's row`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function race(first: 'approve' | 'reject') {
    const holder = new Client({ connectionString: harness.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM tool_submissions WHERE id = 1 FOR UPDATE');
      const approve = () => agent.post('/admin/submissions/1/approve').type('form').send({ csrf, slug: 'excalidraw', name: 'Excalidraw', url: 'https://excalidraw.com', category: 'image', sort_order: '0' }).then((res) => res);
      const reject = () => agent.post('/admin/submissions/1/reject').type('form').send({ csrf, reason: '重复' }).then((res) => res);
      const firstAnswer = first === 'approve' ? approve() : reject();
      await waitersReach(1);
      const secondAnswer = first === 'approve' ? reject() : approve();
      await waitersReach(2);
      await holder.query('ROLLBACK');
      const [a, b] = await Promise.all([firstAnswer, secondAnswer]);
      return { first: a, second: b };
    } finally {
      await holder.end();
    }
  }

  it('when the reject reaches the submission first, then the approval is refused (409) and its tool is undone', async () => {
    const { first, second } = await race('reject');
    expect(first.status).toBe(303);
    expect(second.status).toBe(409);
    expect(second.text).toContain('这条投稿已被审核过了。');
    expect(await harness.db('tool_submissions').where({ id: 1 }).first('status', 'tool_id')).toEqual({ status: 'rejected', tool_id: null });
    expect(await harness.db('tools').where({ slug: 'excalidraw' }).first()).toBeUndefined();
  });

  it('when the approval reaches it first, then the reject is refused (409) and the tool stays, tied to the submission', async () => {
    const { first, second } = await race('approve');
    expect(first.status).toBe(303);
    expect(second.status).toBe(409);
    const tool = await harness.db('tools').where({ slug: 'excalidraw' }).first('id');
    expect(await harness.db('tool_submissions').where({ id: 1 }).first('status', 'tool_id')).toEqual({ status: 'approved', tool_id: tool.id });
  });
});
