import fs from 'node:fs';
import path from 'node:path';
import { Messages as messages } from '../src/errors/messages';

const openapi = fs.readFileSync(path.join(__dirname, '../openapi.yaml'), 'utf8');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('when openapi.yaml is read, then every fixed envelope message is documented', () => {
  const fixed = Object.values(messages).flatMap((message) => (typeof message === 'string' ? [message] : []));
  expect(fixed.filter((message) => !openapi.includes(message))).toEqual([]);
});

test('when openapi.yaml is read, then every `参数错误: <what>` the code can send is documented word for word', () => {
  const sources = sourceFiles(path.join(__dirname, '../src')).map((file) => fs.readFileSync(file, 'utf8'));
  const whats = sources.flatMap((source) => [...source.matchAll(/(?:badParameter|messages\.badParameter)\((['`])(.+?)\1\)/g)].map((match) => match[2]!));
  expect(whats.length).toBeGreaterThan(10);
  // `${name}` and `${MAX_QUERY_LENGTH}` stand for whatever the documentation writes there (`<param>`, `100`).
  const undocumented = whats.filter((what) => {
    const pattern = what
      .split(/\$\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\S+');
    return !new RegExp(pattern).test(openapi);
  });
  expect(undocumented).toEqual([]);
});
