import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * An optional field a channel merely reads (a display name, a hint): when the platform sends it with the
 * wrong type the field is dropped and the rest of the payload is used, instead of refusing it.
 */
export function Droppable<T extends TSchema>(schema: T) {
  return Type.Optional(CloneType(schema, { droppable: true }));
}

export type PayloadCheck<T> = { ok: true; value: T; dropped: string[] } | { ok: false; reason: string };

/** Dropping a field can only reveal errors that were hidden inside it; a few rounds settle any schema. */
const MAX_ROUNDS = 3;

/**
 * A checker of a platform payload against the schema of the fields a channel reads. Fields not in the
 * schema are left alone (platforms add fields all the time). A field of the wrong type that is marked
 * `Droppable` (or sits inside one) is removed from a copy of the payload; any other error refuses the
 * payload, naming the first bad field. The input is never modified.
 */
export function createPayloadCheck<T extends TSchema>(schema: T): (value: unknown) => PayloadCheck<Static<T>> {
  const compiled = TypeCompiler.Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return { ok: true, value, dropped: [] };
    const copy: unknown = structuredClone(value);
    const dropped: string[] = [];
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const paths = new Set<string>();
      for (const error of compiled.Errors(copy)) {
        const path = droppablePathOf(schema, error.path);
        if (path === undefined) return { ok: false, reason: `${error.path || '/'}: ${error.message}` };
        paths.add(path);
      }
      for (const path of paths) {
        deleteAt(copy, path);
        dropped.push(path);
      }
      if (compiled.Check(copy)) return { ok: true, value: copy, dropped };
    }
    return { ok: false, reason: 'too many invalid fields' };
  };
}

/** The innermost droppable object property on the way from the root to the error's path (`/a/0/b`), if any. */
function droppablePathOf(schema: TSchema, errorPath: string): string | undefined {
  let node: TSchema | undefined = schema;
  let path = '';
  let found: string | undefined;
  for (const segment of errorPath.split('/').slice(1)) {
    if (node === undefined) break;
    const isObject: boolean = node.type === 'object' && typeof node.properties === 'object';
    const child: TSchema | undefined = isObject ? node.properties[segment] : node.type === 'array' ? node.items : undefined;
    path += `/${segment}`;
    if (isObject && child?.droppable === true) found = path;
    node = child;
  }
  return found;
}

function deleteAt(root: unknown, path: string): void {
  const segments = path.split('/').slice(1);
  const last = segments.pop();
  let parent: unknown = root;
  for (const segment of segments) {
    if (typeof parent !== 'object' || parent === null) return;
    parent = (parent as Record<string, unknown>)[segment];
  }
  if (last !== undefined && typeof parent === 'object' && parent !== null && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[last];
}
