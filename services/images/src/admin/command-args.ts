/** A command line the admin commands cannot run: answered with exit status 2 and a pointer to --help. */
export class UsageError extends Error {}

/** `--flag yes|no` as a boolean; undefined when the flag was not given. */
export function yesOrNo(value: string | undefined, usage: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'yes' && value !== 'no') throw new UsageError(`usage: ${usage}`);
  return value === 'yes';
}

/** Exactly `count` positional arguments, or a usage error. */
export function positionals(values: string[], count: number, usage: string): string[] {
  if (values.length !== count) throw new UsageError(`usage: ${usage}`);
  return values;
}
