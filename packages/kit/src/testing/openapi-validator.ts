import fs from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

// Each service's tests hold its own openapi.yaml to the answers the service really gives.

type JsonSchema = Record<string, unknown>;

interface HeaderObject {
  required?: boolean;
  schema?: JsonSchema;
}

interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: JsonSchema }>;
}

interface OperationObject {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  responses: Record<string, ResponseObject>;
  /** action → the schema a 200 answer of that action matches (besides the operation's own 200 schema). */
  'x-action-schemas'?: Record<string, JsonSchema>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
}

/** What is checked of an answer: supertest's Response fits, and so does a raw HTTP answer read off a socket. */
export interface CheckedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text; supertest leaves it undefined for binary bodies. */
  text?: string;
  /** supertest's parsed body (a Buffer for binary bodies). */
  body?: unknown;
}

export interface SpecTarget {
  /** A path key of the document, e.g. `/api/image.php` or `/api/v1/tools/{slug}`. */
  path: string;
  method: string;
  /** For operations that `action` chooses: the answer must also match `x-action-schemas[action]`. */
  action?: string;
}

export interface OpenApiValidator {
  /** The document, validated by swagger-parser and dereferenced. */
  document: OpenApiDocument;
  operation(path: string, method: string): OperationObject;
  /** Fails unless the status, Content-Type, declared headers and body are what the spec declares for the target. */
  expectResponseMatchesSpec(res: CheckedResponse, target: SpecTarget): void;
  /** Every documented (operation, response status) and (operation, action) that no checked answer has matched yet. */
  unchecked(): string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function mediaTypeMatches(declared: string, actual: string): boolean {
  if (declared === actual || declared === '*/*') return true;
  const [type, subtype] = declared.split('/');
  return subtype === '*' && actual.startsWith(`${type}/`);
}

/** Header values are text; compare them with the header's schema as the values they spell. */
function headerValue(raw: string, schema: JsonSchema): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}

function summarize(res: CheckedResponse): string {
  const text = res.text ?? (Buffer.isBuffer(res.body) ? `<${res.body.length} bytes>` : JSON.stringify(res.body));
  return `HTTP ${res.status} ${String(res.headers['content-type'] ?? '(no Content-Type)')}: ${String(text).slice(0, 500)}`;
}

/** Loads, validates (swagger-parser) and dereferences the OpenAPI document at `file`. */
export async function loadOpenApi(file: string): Promise<OpenApiValidator> {
  const parsed = YAML.parse(fs.readFileSync(file, 'utf8')) as object;
  const document = (await SwaggerParser.validate(parsed as never)) as unknown as OpenApiDocument;

  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` is OpenAPI's own annotation.
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addVocabulary(['example']);
  const compiled = new Map<JsonSchema, ValidateFunction>();
  const validatorFor = (schema: JsonSchema) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const expectValid = (schema: JsonSchema, value: unknown, what: string, res: CheckedResponse) => {
    const validate = validatorFor(schema);
    if (!validate(value)) throw new Error(`${what} does not match the spec: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n  answer: ${summarize(res)}`);
  };

  const checked = new Set<string>();

  function operation(path: string, method: string): OperationObject {
    const found = document.paths[path]?.[method.toLowerCase()];
    if (!found) throw new Error(`openapi.yaml documents no ${method.toUpperCase()} ${path}`);
    return found;
  }

  return {
    document,
    operation,

    expectResponseMatchesSpec(res, target) {
      const op = operation(target.path, target.method);
      const name = `${target.method.toUpperCase()} ${target.path}`;
      const status = String(res.status);
      const key = [status, `${status[0]}XX`, 'default'].find((candidate) => op.responses[candidate]);
      if (!key) throw new Error(`${name} documents no response ${status}; answer: ${summarize(res)}`);
      const response = op.responses[key]!;

      for (const [headerName, header] of Object.entries(response.headers ?? {})) {
        const raw = res.headers[headerName.toLowerCase()];
        if (raw === undefined) {
          if (header.required) throw new Error(`${name} ${key}: header ${headerName} is required but missing; answer: ${summarize(res)}`);
          continue;
        }
        if (header.schema) {
          const value = Array.isArray(raw) ? raw.join(', ') : raw;
          expectValid(header.schema, headerValue(value, header.schema), `${name} ${key} header ${headerName}`, res);
        }
      }

      const content = response.content ?? {};
      const declared = Object.keys(content);
      const contentType = res.headers['content-type'];
      const hasBody = (res.text !== undefined && res.text !== '') || (Buffer.isBuffer(res.body) && res.body.length > 0);
      let body: unknown;
      if (declared.length === 0) {
        if (hasBody) throw new Error(`${name} ${key} documents no body; answer: ${summarize(res)}`);
      } else {
        if (typeof contentType !== 'string') throw new Error(`${name} ${key}: no Content-Type; answer: ${summarize(res)}`);
        const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
        const match = declared.find((candidate) => candidate === mediaType) ?? declared.find((candidate) => mediaTypeMatches(candidate, mediaType));
        if (!match) throw new Error(`${name} ${key}: Content-Type ${mediaType} is not one of ${declared.join(', ')}`);
        const schema = content[match]!.schema;
        if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
          body = JSON.parse(res.text ?? '');
          if (schema) expectValid(schema, body, `${name} ${key} body`, res);
        } else if (mediaType.startsWith('text/')) {
          if (schema) expectValid(schema, res.text ?? '', `${name} ${key} body`, res);
        } else if (!hasBody) {
          throw new Error(`${name} ${key}: ${mediaType} answer without bytes`);
        }
      }
      checked.add(`${name} ${key}`);

      if (target.action !== undefined) {
        const actionSchema = op['x-action-schemas']?.[target.action];
        if (!actionSchema) throw new Error(`${name} has no x-action-schemas entry for action ${target.action}`);
        if (key === '200') {
          expectValid(actionSchema, body, `${name} action=${target.action} body`, res);
          checked.add(`${name} action=${target.action}`);
        }
      }
    },

    unchecked() {
      const missing: string[] = [];
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS) {
          const op = item[method];
          if (!op) continue;
          const name = `${method.toUpperCase()} ${path}`;
          for (const key of Object.keys(op.responses)) if (!checked.has(`${name} ${key}`)) missing.push(`${name} ${key}`);
          for (const action of Object.keys(op['x-action-schemas'] ?? {})) {
            if (!checked.has(`${name} action=${action}`)) missing.push(`${name} action=${action}`);
          }
        }
      }
      return missing;
    },
  };
}
