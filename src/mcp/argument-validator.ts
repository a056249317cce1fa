import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

export type CompiledSchema = { ok: true; validate: (args: unknown) => string[] } | { ok: false; reason: string };

const MAX_LISTED_ERRORS = 10;

/**
 * `strict: false`: servers write schemas with keywords Ajv does not know (`title`, vendor keys);
 * `validateFormats: false`: formats are the server's business, an unknown one must not hide a tool;
 * `addUsedSchema: false`: two tools declaring the same `$id` must not collide.
 */
const OPTIONS: Options = { strict: false, allErrors: true, validateFormats: false, addUsedSchema: false };

type Draft = 'draft-07' | '2019-09' | '2020-12';

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

function line(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const detail =
    error.keyword === 'additionalProperties'
      ? ` '${String(params.additionalProperty)}'`
      : error.keyword === 'enum' && Array.isArray(params.allowedValues)
        ? ` (one of: ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')})`
        : '';
  return `${error.instancePath || '/'}: ${error.message ?? error.keyword}${detail}`;
}

/**
 * Compiles the JSON Schemas of one tool listing. Ajv keeps every schema it compiled, so a
 * compiler lives as long as the listing's tools do (a new listing gets a new compiler).
 */
export class SchemaCompiler {
  readonly #instances = new Map<Draft, Ajv>();

  #instance(draft: Draft): Ajv {
    let instance = this.#instances.get(draft);
    if (!instance) {
      instance = draft === '2020-12' ? new Ajv2020(OPTIONS) : draft === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      this.#instances.set(draft, instance);
    }
    return instance;
  }

  /** A validator returning one line per failing path (`/path: message`), empty when the arguments fit. */
  compile(schema: Record<string, unknown>): CompiledSchema {
    let validate: ValidateFunction;
    try {
      const { $schema: _declared, ...rest } = schema;
      validate = this.#instance(draftOf(schema)).compile(rest);
    } catch (error) {
      return { ok: false, reason: `its input schema does not compile (${error instanceof Error ? error.message : String(error)})` };
    }
    return {
      ok: true,
      validate: (args) => {
        if (validate(args)) return [];
        const lines = new Set((validate.errors ?? []).map(line));
        return [...lines].slice(0, MAX_LISTED_ERRORS);
      },
    };
  }
}
