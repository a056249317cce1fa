import type { AgentTool } from './agent-tool.js';

/** A status line longer than this is cut with an ellipsis: it is one short line under the answer. */
export const MAX_LABEL_LENGTH = 80;

/**
 * The one line a tool shows while a call runs: its `label`, or its label function applied to the call's arguments
 * (parsed JSON, or `{ _raw }`), flattened to one line and shortened. Undefined when the tool declares none, the
 * function throws or gives nothing: no label, no line.
 */
export function toolLabel(tool: Pick<AgentTool, 'label'> | undefined, args: unknown): string | undefined {
  const label = tool?.label;
  if (label === undefined) return undefined;
  let text: string | undefined;
  try {
    text = typeof label === 'function' ? label(args as never) : label;
  } catch {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length <= MAX_LABEL_LENGTH ? line : `${line.slice(0, MAX_LABEL_LENGTH - 1).trimEnd()}…`;
}

/** A short inline excerpt of an argument for a label (`ls -la`): one line, at most `max` characters. */
export function labelExcerpt(value: unknown, max = 40): string | undefined {
  if (typeof value !== 'string') return undefined;
  const line = value.replace(/\s+/g, ' ').trim().replace(/`/g, "'");
  if (line === '') return undefined;
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** `Running \`ls -la\`…` from a verb and an argument; undefined when the argument is not a usable string. */
export function codeLabel(verb: string, value: unknown): string | undefined {
  const excerpt = labelExcerpt(value);
  return excerpt === undefined ? undefined : `${verb} \`${excerpt}\`…`;
}
