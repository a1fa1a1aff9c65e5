import { readFileSync } from 'node:fs';
import path from 'node:path';

/** proxy/v1-rewrites.conf: the one route table for the /api/v1 path style, shared with nginx. */
export const V1_REWRITES_FILE = path.resolve(__dirname, '..', '..', 'proxy', 'v1-rewrites.conf');

export interface RewriteRule {
  pattern: RegExp;
  replacement: string;
  line: number;
}

const RULE = /^rewrite\s+(\S+)\s+(\S+)\s+last;$/;

/**
 * Reads the nginx rewrite file. Only `rewrite REGEX REPLACEMENT last;` lines are
 * allowed, so anything else is refused here rather than silently behaving
 * differently from nginx.
 */
export function parseV1Rewrites(text: string, source = V1_REWRITES_FILE): RewriteRule[] {
  const rules: RewriteRule[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = RULE.exec(line);
    if (!match) {
      throw new Error(`${source}:${index + 1}: expected "rewrite REGEX REPLACEMENT last;", got: ${line}`);
    }
    rules.push({ pattern: new RegExp(match[1]!), replacement: match[2]!, line: index + 1 });
  });
  return rules;
}

export function loadV1Rewrites(file = V1_REWRITES_FILE): RewriteRule[] {
  return parseV1Rewrites(readFileSync(file, 'utf8'), file);
}

/**
 * Applies the rules as nginx does: the pattern is matched against the decoded
 * path, `$n` captures are substituted (escaped, since they land in the query
 * string), and the original query string is appended to the replacement's.
 * Returns the new URL, or null when no rule matches.
 */
export function applyV1Rewrites(rules: RewriteRule[], url: string): string | null {
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const originalQuery = queryAt === -1 ? '' : url.slice(queryAt + 1);
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  for (const rule of rules) {
    const match = rule.pattern.exec(decodedPath);
    if (!match) continue;
    const target = rule.replacement.replace(/\$(\d)/g, (_, n: string) => encodeURIComponent(match[Number(n)] ?? ''));
    if (originalQuery === '') return target;
    return target.includes('?') ? `${target}&${originalQuery}` : `${target}?${originalQuery}`;
  }
  return null;
}
