import request from 'supertest';
import { createTestUser, type TestService } from './harness';

const API = '/api/image.php';

/**
 * The spec's actions called as a client does, with a token: `read` is a GET, `write` a POST (attach
 * or send its body); `sessionOf` makes a user and signs them in (their session token in `session`).
 * `service` is read at each call, so a suite may open its service in `beforeAll`.
 */
export function tokenCalls(service: () => TestService) {
  const read = (action: string, token: string, query = '') => request(service().app).get(`${API}?action=${action}${query}`).set('X-API-Token', token);
  const write = (action: string, token: string) => request(service().app).post(`${API}?action=${action}`).set('X-API-Token', token);
  async function sessionOf(name: string, options: { isAdmin?: boolean } = {}) {
    const user = await createTestUser(service().db, name, undefined, { password: 'password-123', ...options });
    const res = await request(service().app).post(`${API}?action=login`).send({ username: name, password: 'password-123' });
    return { ...user, session: res.body.data.token as string };
  }
  return { read, write, sessionOf };
}
