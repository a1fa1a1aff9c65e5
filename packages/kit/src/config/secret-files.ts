import { readFileSync } from 'node:fs';

/**
 * Docker and Kubernetes secrets arrive as files: for each name, `<NAME>_FILE` may give the path of a
 * file whose content (trailing newline trimmed) is the value. Returns a copy of env with those values
 * filled in and the `_FILE` variables removed. Throws a one-line Error when both `<NAME>` and
 * `<NAME>_FILE` are set, or when the file cannot be read. Empty values count as unset.
 */
export function resolveSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): Record<string, string | undefined> {
  const resolved: Record<string, string | undefined> = { ...env };
  for (const name of names) {
    const fileVariable = `${name}_FILE`;
    const file = env[fileVariable];
    delete resolved[fileVariable];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      throw new Error(`${name} and ${fileVariable} are both set: set only one of them`);
    }
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Error(`${fileVariable} names a file that cannot be read: ${file} (${code})`);
    }
    resolved[name] = content.replace(/(\r?\n)+$/, '');
  }
  return resolved;
}
