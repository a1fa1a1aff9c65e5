/**
 * `npm run lint:deps`: runs dependency-cruiser with .dependency-cruiser.cjs (file cycles, one service
 * importing the other, the kit importing a service), then checks what its rules cannot express: a
 * loop between the top-level parts of one src folder (src/auth → src/users → src/auth, even when no
 * single file is on a cycle). Exits 1 on any finding.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

interface CruiseModule {
  source: string;
  dependencies: Array<{ resolved: string }>;
}
interface CruiseResult {
  modules: CruiseModule[];
  summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
}

const ROOT = path.resolve(__dirname, '..');
const SCANNED = ['services', 'packages'].filter((dir) => existsSync(path.join(ROOT, dir)));

/** The src folder a file belongs to and its top-level part there (a folder, or a file directly in src). */
export function srcPartOf(file: string): { src: string; part: string } | null {
  const match = /^((?:services|packages)\/[^/]+(?:\/web)?\/src)\/([^/]+)/.exec(file);
  return match ? { src: match[1]!, part: `${match[1]}/${match[2]}` } : null;
}

/** Tarjan's strongly connected components: every component of two or more parts is a loop. */
export function loopsIn(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) loops.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return loops;
}

function main(): void {
  let output: string;
  try {
    output = execFileSync(path.join(ROOT, 'node_modules/.bin/depcruise'), ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...SCANNED], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (error) {
    // depcruise exits with the number of rule violations; its JSON is still complete on stdout.
    output = (error as { stdout?: string }).stdout ?? '';
    if (!output.trim().startsWith('{')) throw error;
  }
  const result = JSON.parse(output) as CruiseResult;
  const findings: string[] = result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);

  const edges = new Map<string, Set<string>>();
  const crossings = new Map<string, string[]>();
  for (const module of result.modules) {
    const from = srcPartOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = srcPartOf(dependency.resolved);
      if (!to || to.src !== from.src || to.part === from.part) continue;
      if (!edges.has(from.part)) edges.set(from.part, new Set());
      edges.get(from.part)!.add(to.part);
      const key = `${from.part} ${to.part}`;
      crossings.set(key, [...(crossings.get(key) ?? []), `${module.source} → ${dependency.resolved}`]);
    }
  }
  for (const loop of loopsIn(edges)) {
    const members = new Set(loop);
    const through = [...crossings.entries()]
      .filter(([key]) => key.split(' ').every((part) => members.has(part)))
      .flatMap(([, imports]) => imports.map((edge) => `    ${edge}`));
    findings.push(`no-folder-cycle: ${loop.join(' ⇄ ')}\n${through.join('\n')}`);
  }

  if (findings.length === 0) {
    console.log(`no dependency violations and no folder loops (${result.modules.length} modules in ${SCANNED.join(', ')})`);
    return;
  }
  for (const finding of findings) console.error(`error ${finding}`);
  console.error(`\n${findings.length} dependency problem(s)`);
  process.exitCode = 1;
}

main();
