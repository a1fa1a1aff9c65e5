import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The repository's documents stand alone: a clone has nothing beside it, so no document may point
// outside it, and every relative link (and its #anchor) must lead somewhere in it.

const ROOT = path.resolve(__dirname, '..', '..');
const documents = execFileSync('git', ['ls-files', '*.md', '*.yaml', '*.yml'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

test('when the documents are read, then none points outside the repository', () => {
  const outside = documents.filter((file) => /\.\.\/shared|\/work\/|file:\/\//.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  expect(outside).toEqual([]);
});

test('when a Markdown document links to a file of the repository, then the file (and the heading of an #anchor) exists', () => {
  const broken: string[] = [];
  for (const file of documents.filter((name) => name.endsWith('.md'))) {
    // Code (fenced blocks and inline spans) shows link syntax, it does not link: `![name](url)`.
    const text = fs
      .readFileSync(path.join(ROOT, file), 'utf8')
      .replace(/^```[\s\S]*?^```/gm, '')
      .replace(/`[^`\n]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto
      const [targetPath, anchor] = target.split('#');
      const resolved = targetPath ? path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(targetPath)) : path.join(ROOT, file);
      if (!resolved.startsWith(ROOT) || !fs.existsSync(resolved)) {
        broken.push(`${file}: ${target}`);
      } else if (anchor && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor)) {
        broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  expect(broken).toEqual([]);
});
