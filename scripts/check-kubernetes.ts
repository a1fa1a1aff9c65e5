/**
 * Renders each kustomization with `kubectl kustomize` and checks every object it yields against the
 * Kubernetes API schema of its apiVersion and kind (the OpenAPI schemas compiled into the
 * kubernetes-models package; offline). An object of a kind the schemas do not know is an error too.
 *
 *   npx tsx scripts/check-kubernetes.ts [kustomization dir ...]   (default: deploy/kubernetes/overlays/example)
 *
 * Prints one line per kustomization (`<dir>: 21 objects valid`) or each problem
 * (`<dir>: Deployment images: /spec/template/spec/containers/0/ports/0/containerPort must be integer`)
 * and exits 1.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
export const DEFAULT_KUSTOMIZATIONS = [path.join(ROOT, 'deploy', 'kubernetes', 'overlays', 'example')];

interface KubernetesObject {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
}

interface ValidationError {
  instancePath?: string;
  message?: string;
}

type Model = new (data: unknown) => { validate(): void };

/** The kubernetes-models class of an apiVersion and kind (core `v1` lives at the package's `v1/`). */
async function modelOf(apiVersion: string, kind: string): Promise<Model | undefined> {
  if (!/^[a-z0-9.-]+(\/[a-z0-9]+)?$/.test(apiVersion) || !/^[A-Za-z0-9]+$/.test(kind)) return undefined;
  try {
    const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, unknown>;
    return module[kind] as Model | undefined;
  } catch {
    return undefined;
  }
}

/** The problems of one rendered object, each `Kind name: what`. */
async function problemsOf(object: KubernetesObject): Promise<string[]> {
  const kind = typeof object.kind === 'string' ? object.kind : '(no kind)';
  const name = `${kind} ${typeof object.metadata?.name === 'string' ? object.metadata.name : '(no name)'}`;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return [`${name}: apiVersion and kind are required`];
  const Model = await modelOf(object.apiVersion, object.kind);
  if (Model === undefined) return [`${name}: no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: ValidationError[] }).errors;
    if (!errors?.length) return [`${name}: ${(error as Error).message}`];
    return errors.map((e) => `${name}: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  }
}

/** Renders a kustomization and returns its problems and how many objects it holds. */
export async function checkKustomization(dir: string): Promise<{ objects: number; problems: string[] }> {
  const rendered = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const problems: string[] = [];
  let objects = 0;
  for (const document of parseAllDocuments(rendered)) {
    if (document.errors.length > 0) {
      problems.push(`YAML: ${document.errors[0]!.message}`);
      continue;
    }
    const object = document.toJS() as KubernetesObject | null;
    if (object === null) continue;
    objects += 1;
    problems.push(...(await problemsOf(object)));
  }
  return { objects, problems };
}

async function main(): Promise<void> {
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((dir) => path.resolve(dir)) : DEFAULT_KUSTOMIZATIONS;
  let failed = false;
  for (const dir of dirs) {
    const label = path.relative(process.cwd(), dir) || '.';
    let result: { objects: number; problems: string[] };
    try {
      result = await checkKustomization(dir);
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      console.error(`${label}: kubectl kustomize failed: ${stderr || (error as Error).message}`);
      failed = true;
      continue;
    }
    if (result.objects === 0) result.problems.push('no objects');
    for (const problem of result.problems) console.error(`${label}: ${problem}`);
    if (result.problems.length > 0) failed = true;
    else console.log(`${label}: ${result.objects} objects valid`);
  }
  process.exit(failed ? 1 : 0);
}

if (require.main === module) void main();
