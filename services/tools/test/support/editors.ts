import type { Knex } from 'knex';
import request from 'supertest';
import type express from 'express';
import { runAdminCommand } from '../../src/admin/commands';

/** Runs an admin CLI command in-process, as the CLI would on this database. */
export async function adminCommand(db: Knex, argv: string[], input?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdminCommand(argv, { db, defaultRateLimitPerHour: 1000, input, out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

/** Creates an editor with the CLI and this password. */
export async function addEditor(db: Knex, name: string, password: string): Promise<void> {
  const result = await adminCommand(db, ['editor:add', name, '--password-stdin'], `${password}\n`);
  if (result.status !== 0) throw new Error(`editor:add failed: ${result.err}`);
}

/** The form token in a page (every admin form carries one). */
export function csrfIn(page: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('no csrf field in the page');
  return token;
}

/** A supertest agent (it keeps cookies) signed in as `name`, and its session's form token. */
export async function signedIn(app: express.Express, name: string, password: string) {
  const agent = request.agent(app);
  const form = await agent.get('/admin/');
  const res = await agent.post('/admin/sign-in').type('form').send({ name, password, csrf: csrfIn(form.text), next: '/admin/tools' });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const tools = await agent.get('/admin/tools');
  return { agent, csrf: csrfIn(tools.text) };
}
