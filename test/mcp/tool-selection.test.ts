import { describe, expect, it } from 'vitest';
import { SchemaCompiler } from '../../src/mcp/argument-validator.js';
import { MAX_TOOLS_PER_SERVER, selectTools } from '../../src/mcp/tool-selection.js';
import { fixtureServer } from './support/mcp-servers.js';

const object = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const tool = (name: string, inputSchema: unknown = object, extra: Record<string, unknown> = {}) => ({ name, inputSchema, ...extra });

describe('selectTools', () => {
  it('names tools <server>__<tool> and judges each one on its own', () => {
    const selection = selectTools(
      fixtureServer('srv'),
      [tool('search'), tool('bad name'), tool('x'.repeat(60)), tool('no_object', { type: 'array' }), tool('nameless', object, { name: 42 }), tool('search')],
      new SchemaCompiler(),
    );
    expect(selection.selected.map((selected) => selected.exposedName)).toEqual(['srv__search']);
    expect(selection.skipped.map((skipped) => skipped.name)).toEqual(['bad name', 'x'.repeat(60), 'no_object', '(unnamed)', 'search']);
    expect(selection.skipped[3]!.reason).toBe('its definition has no name');
    expect(selection.skipped[4]!.reason).toMatch(/lists it twice/);
  });

  it('applies tools.allow and tools.deny by the server’s own names; deny wins', () => {
    const server = fixtureServer('srv', {}, { tools: { allow: ['a', 'b'], deny: ['b'] } });
    const selection = selectTools(server, [tool('a'), tool('b'), tool('c')], new SchemaCompiler());
    expect(selection.selected.map((selected) => selected.definition.name)).toEqual(['a']);
    expect(selection.filteredOut).toEqual(['b', 'c']);
    expect(selection.skipped).toEqual([]);
  });

  it(`offers at most ${MAX_TOOLS_PER_SERVER} tools of one server`, () => {
    const many = Array.from({ length: MAX_TOOLS_PER_SERVER + 3 }, (_, index) => tool(`t${index}`));
    const selection = selectTools(fixtureServer('srv'), many, new SchemaCompiler());
    expect(selection.selected).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(selection.skipped).toHaveLength(3);
    expect(selection.skipped[0]!.reason).toMatch(/more than 100 tools/);
  });
});

describe('SchemaCompiler', () => {
  it('validates draft-07 and 2020-12 schemas, listing one line per problem', () => {
    const compiler = new SchemaCompiler();
    const draft7 = compiler.compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { mode: { enum: ['fast', 'slow'] }, items: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      required: ['mode'],
      additionalProperties: false,
    });
    if (!draft7.ok) throw new Error(draft7.reason);
    expect(draft7.validate({ mode: 'fast', items: ['a', 1] })).toEqual([]);
    expect(draft7.validate({ mode: 'medium', items: [1], other: true })).toEqual([
      "/: must NOT have additional properties 'other'",
      '/mode: must be equal to one of the allowed values (one of: "fast", "slow")',
      '/items/0: must be string',
    ]);

    const modern = compiler.compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
      $defs: { unused: { type: 'string' } },
    });
    if (!modern.ok) throw new Error(modern.reason);
    expect(modern.validate({ pair: ['a', 2] })).toEqual([]);
    expect(modern.validate({ pair: ['a', 'b'] })).toEqual(['/pair/1: must be integer']);
  });

  it('ignores formats and unknown keywords, and tolerates two tools with the same $id', () => {
    const compiler = new SchemaCompiler();
    const schema = { $id: 'https://example.com/schemas/query.json', type: 'object', properties: { at: { type: 'string', format: 'date-time', 'x-vendor': true } } };
    const first = compiler.compile(schema);
    const second = compiler.compile({ ...schema });
    expect(first.ok && second.ok).toBe(true);
    if (first.ok) expect(first.validate({ at: 'whenever' })).toEqual([]);
  });

  it('reports a schema that does not compile', () => {
    const compiled = new SchemaCompiler().compile({ type: 'object', properties: { a: { type: 'no-such-type' } } });
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.reason).toMatch(/^its input schema does not compile \(/);
  });
});
