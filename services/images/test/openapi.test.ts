import fs from 'node:fs';
import path from 'node:path';
import { Messages } from '../src/errors/messages';

const openapi = fs.readFileSync(path.join(__dirname, '../openapi.yaml'), 'utf8');

test('when openapi.yaml is read, then every envelope message the code can send is documented', () => {
  const missing = Object.values(Messages).filter((message) => !openapi.includes(message));
  expect(missing).toEqual([]);
});

test('when openapi.yaml is read, then every action and endpoint is documented', () => {
  for (const action of ['upload', 'list', 'delete', 'trash', 'restore', 'purge', 'categories', 'create_category', 'profile']) {
    expect(openapi).toContain(`/api/image.php?action=${action}:`);
  }
  for (const endpoint of ['/api/thumb.php:', '/healthz:', '/readyz:', '/metrics:']) expect(openapi).toContain(endpoint);
});
