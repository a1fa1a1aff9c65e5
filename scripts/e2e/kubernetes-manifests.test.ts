/**
 * deploy/kubernetes/: the example overlay renders with `kubectl kustomize`, every object matches the
 * Kubernetes API schema of its kind (scripts/check-kubernetes.ts), a broken object is refused naming
 * it, and the rendered objects agree with what the services and proxy/ actually do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { upstreamServers } from '../lib/nginx-template';

const ROOT = path.resolve(__dirname, '..', '..');
const BASE = path.join(ROOT, 'deploy', 'kubernetes', 'base');
const OVERLAY = path.join(ROOT, 'deploy', 'kubernetes', 'overlays', 'example');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = any;

function check(...dirs: string[]) {
  const run = spawnSync(TSX, ['scripts/check-kubernetes.ts', ...dirs], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

function render(dir: string): Obj[] {
  const yaml = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((d) => d.toJS());
}

function find(objects: Obj[], kind: string, name: string): Obj {
  const found = objects.find((o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.startsWith(`${name}-`)));
  if (!found) throw new Error(`${kind} ${name} not rendered`);
  return found;
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  test('when the example overlay is rendered, then every object matches its Kubernetes API schema', () => {
    expect(check('deploy/kubernetes/overlays/example')).toEqual({
      status: 0,
      stdout: 'deploy/kubernetes/overlays/example: 21 objects valid',
      stderr: '',
    });
  });

  test('when a kustomization holds a broken object, then the check names the object and the field, and fails', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kustomize-bad-'));
    try {
      writeFileSync(
        path.join(dir, 'kustomization.yaml'),
        `resources:\n  - ${path.relative(dir, BASE)}\n  - broken.yaml\n`,
      );
      writeFileSync(
        path.join(dir, 'broken.yaml'),
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: broken}',
          'spec:',
          '  selector: {matchLabels: {app: broken}}',
          '  template:',
          '    metadata: {labels: {app: broken}}',
          '    spec:',
          '      containers:',
          '        - {name: web, image: nginx, ports: [{containerPort: "http"}]}',
          '---',
          'apiVersion: v1',
          'kind: Service',
          'metadata: {name: numeric-host}',
          'spec: {type: ExternalName, externalName: 42}',
          '---',
          'apiVersion: example.com/v1',
          'kind: Widget',
          'metadata: {name: unknown}',
          '',
        ].join('\n'),
      );
      const result = check(dir);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      const label = path.relative(ROOT, dir);
      expect(result.stderr.split('\n')).toEqual([
        // kubectl kustomize orders the objects by kind: Services before Deployments.
        `${label}: Service numeric-host: /spec/externalName must be string`,
        `${label}: Deployment broken: /spec/template/spec/containers/0/ports/0/containerPort must be integer`,
        `${label}: Widget unknown: no Kubernetes schema for example.com/v1 Widget`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when a kustomization does not render, then the check says so and fails', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kustomize-missing-'));
    try {
      writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources:\n  - missing.yaml\n');
      const result = check(dir);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^${path.relative(ROOT, dir)}: kubectl kustomize failed: .*missing\\.yaml`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the rendered objects', () => {
    const objects = render(OVERLAY);

    test('the nginx ConfigMap is proxy/nginx.conf.template and proxy/v1-rewrites.conf, byte for byte', () => {
      const routes = find(objects, 'ConfigMap', 'nginx-routes');
      expect(routes.metadata.name).toMatch(/^nginx-routes-[a-z0-9]{10}$/);
      expect(routes.data).toEqual({
        'default.conf.template': readFileSync(path.join(ROOT, 'proxy', 'nginx.conf.template'), 'utf8'),
        'v1-rewrites.conf': readFileSync(path.join(ROOT, 'proxy', 'v1-rewrites.conf'), 'utf8'),
      });
      const volumes = find(objects, 'Deployment', 'proxy').spec.template.spec.volumes;
      expect(volumes.filter((v: Obj) => v.configMap).map((v: Obj) => v.configMap.name)).toEqual([routes.metadata.name, routes.metadata.name]);
    });

    test('the proxy names the headless services with the same server parameters as compose', () => {
      const env = find(objects, 'Deployment', 'proxy').spec.template.spec.containers[0].env;
      const value = (name: string) => env.find((e: Obj) => e.name === name)?.value;
      expect(value('IMAGES_UPSTREAM_SERVERS')).toBe(upstreamServers(['images.$(POD_NAMESPACE).svc.$(CLUSTER_DOMAIN):3001'], { resolve: true }));
      expect(value('TOOLS_UPSTREAM_SERVERS')).toBe(upstreamServers(['tools.$(POD_NAMESPACE).svc.$(CLUSTER_DOMAIN):3002'], { resolve: true }));
      expect(find(objects, 'Service', 'images').spec.clusterIP).toBe('None');
      expect(find(objects, 'Service', 'tools').spec.clusterIP).toBe('None');
    });

    test.each([
      ['images', 3001],
      ['tools', 3002],
    ])('%s: probes on /readyz and /healthz, and the grace period covers preStop + drain + in-flight timeout', (name, port) => {
      const pod = find(objects, 'Deployment', name).spec.template.spec;
      const container = pod.containers[0];
      expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      const settings = find(objects, 'ConfigMap', `${name}-settings`).data;
      expect(settings.PORT).toBe(String(port));
      const preStopSeconds = Number(container.lifecycle.preStop.exec.command[1]);
      const drainSeconds = Number(settings.SHUTDOWN_DRAIN_MS) / 1000;
      const timeoutSeconds = Number(settings.SHUTDOWN_TIMEOUT_MS) / 1000;
      expect({ preStopSeconds, drainSeconds, timeoutSeconds }).toEqual({ preStopSeconds: 5, drainSeconds: 5, timeoutSeconds: 15 });
      expect(pod.terminationGracePeriodSeconds).toBe(preStopSeconds + drainSeconds + timeoutSeconds + 5);
    });

    test.each([
      ['images', ['DATABASE_URL', 'THUMB_SIGNING_SECRET', 'TOKEN_ENCRYPTION_KEY', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']],
      ['tools', ['DATABASE_URL', 'REDIS_URL']],
    ])('%s: every secret is a *_FILE in the mounted Secret, for the Deployment and its migrate Job alike', (name, secrets) => {
      for (const kind of ['Deployment', 'Job'] as const) {
        const pod = find(objects, kind, kind === 'Job' ? `${name}-migrate` : name).spec.template.spec;
        const container = pod.containers[0];
        const mount = container.volumeMounts.find((m: Obj) => m.name === 'secrets');
        expect(pod.volumes.find((v: Obj) => v.name === 'secrets').secret.secretName).toBe(`${name}-secrets`);
        const files = Object.fromEntries(container.env.filter((e: Obj) => e.name.endsWith('_FILE')).map((e: Obj) => [e.name, e.value]));
        expect(files).toEqual(Object.fromEntries(secrets.map((s) => [`${s}_FILE`, `${mount.mountPath}/${s.toLowerCase()}`])));
        expect(container.envFrom).toEqual([{ configMapRef: { name: find(objects, 'ConfigMap', `${name}-settings`).metadata.name } }]);
      }
      const job = find(objects, 'Job', `${name}-migrate`);
      expect(job.spec.template.spec.containers[0].command).toEqual(['node', `services/${name}/dist/src/admin/cli.js`, 'migrate']);
      expect(job.spec.template.spec.containers[0].image).toBe(find(objects, 'Deployment', name).spec.template.spec.containers[0].image);
    });

    test('every Deployment has a PodDisruptionBudget and a HorizontalPodAutoscaler on CPU (the services also on their request rate)', () => {
      for (const name of ['proxy', 'images', 'tools']) {
        expect(find(objects, 'PodDisruptionBudget', name).spec).toEqual({ minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': name } } });
        const hpa = find(objects, 'HorizontalPodAutoscaler', name).spec;
        expect(hpa.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
        expect(hpa.metrics.map((m: Obj) => m.resource?.name ?? m.pods.metric.name)).toEqual(
          name === 'proxy' ? ['cpu'] : ['cpu', `${name}_http_requests_per_second`],
        );
        // The adapter's rate of the counter each service exports.
        if (name !== 'proxy') expect(readFileSync(path.join(ROOT, 'services', name, 'src', 'metrics', 'metrics.ts'), 'utf8')).toContain(`name: '${name}_http_requests_total'`);
      }
    });

    test('Postgres and Redis are ExternalName services the overlay points at its hosts', () => {
      expect(find(objects, 'Service', 'postgres').spec).toEqual({ type: 'ExternalName', externalName: 'db.internal.example.com', ports: [{ name: 'postgres', port: 5432 }] });
      expect(find(objects, 'Service', 'redis').spec).toEqual({ type: 'ExternalName', externalName: 'redis.internal.example.com', ports: [{ name: 'redis', port: 6379 }] });
    });
  });
});
