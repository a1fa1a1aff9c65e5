import fs from 'node:fs/promises';
import { Engine } from 'php-parser';

/** A PHP literal as plain data: arrays become objects keyed as in PHP (`0`, `'path'`). */
export type PhpValue = string | number | boolean | null | { [key: string]: PhpValue };

const engine = () => new Engine({ parser: { php7: true, suppressErrors: false }, ast: { withPositions: false } });

interface Node {
  kind: string;
  [field: string]: unknown;
}

function literal(node: Node, file: string): PhpValue {
  switch (node.kind) {
    case 'string':
    case 'nowdoc':
      return node.value as string;
    case 'number':
      return Number(node.value);
    case 'boolean':
      return node.value as boolean;
    case 'nullkeyword':
      return null;
    case 'unary':
      if (node.type === '-' && (node.what as Node).kind === 'number') return -Number((node.what as Node).value);
      break;
    case 'array': {
      const result: { [key: string]: PhpValue } = {};
      let nextIndex = 0;
      for (const entry of node.items as Node[]) {
        const key = entry.key ? literal(entry.key as Node, file) : nextIndex;
        if (typeof key === 'number') nextIndex = Math.max(nextIndex, key + 1);
        result[String(key)] = literal(entry.value as Node, file);
      }
      return result;
    }
  }
  throw new Error(`${file}: ${node.kind} is not a literal this import reads`);
}

/**
 * The value a PHP data file (EasyImage writes its config, tokens and logs as `$name=Array(...);`)
 * assigns to `$variable`, parsed, never run; undefined when the file assigns no such variable.
 */
export async function readPhpAssignment(file: string, variable: string): Promise<PhpValue | undefined> {
  const code = await fs.readFile(file, 'utf8');
  const program = engine().parseCode(code, file) as unknown as { children: Node[] };
  for (const statement of program.children) {
    const expression = statement.kind === 'expressionstatement' ? (statement.expression as Node) : undefined;
    if (expression?.kind !== 'assign') continue;
    const left = expression.left as Node;
    if (left.kind === 'variable' && left.name === variable) return literal(expression.right as Node, file);
  }
  return undefined;
}
