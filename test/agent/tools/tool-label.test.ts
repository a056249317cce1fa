import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash-tool.js';
import { defineTool } from '../../../src/agent/tools/agent-tool.js';
import { createFileTools } from '../../../src/agent/tools/file-tools.js';
import { unconfinedRunner } from '../../../src/agent/tools/command-runner.js';
import { MAX_LABEL_LENGTH, toolLabel } from '../../../src/agent/tools/tool-label.js';
import { agentInput, collectEvents } from '../support/agent-run.js';
import { ScriptedModel } from '../support/scripted-model.js';

const labelled = (label: string | ((args: { query: string }) => string | undefined) | undefined) =>
  defineTool({ name: 'labelled', description: 'a tool with a label', category: 'read', parameters: Type.Object({ query: Type.String() }), label, execute: async () => 'ok' });

describe('tool labels (the progress line of a call)', () => {
  it('gives a fixed label, or the function of the call arguments, flattened to one line', () => {
    expect(toolLabel(labelled('Searching the web…'), { query: 'x' })).toBe('Searching the web…');
    expect(toolLabel(labelled(({ query }) => `Searching for ${query}\n  now…`), { query: 'cats' })).toBe('Searching for cats now…');
  });

  it('no label, no line: none declared, a throwing or empty function, a blank label', () => {
    expect(toolLabel(labelled(undefined), {})).toBeUndefined();
    expect(toolLabel(undefined, {})).toBeUndefined();
    expect(toolLabel(labelled(() => { throw new Error('bad arguments'); }), { _raw: '{' })).toBeUndefined();
    expect(toolLabel(labelled(() => undefined), {})).toBeUndefined();
    expect(toolLabel(labelled('   '), {})).toBeUndefined();
  });

  it('shortens a long label with an ellipsis', () => {
    const line = toolLabel(labelled(() => 'word '.repeat(40)), {})!;
    expect(line.length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
    expect(line.endsWith('…')).toBe(true);
  });

  it('the built-in tools say what they do with their arguments', () => {
    const bash = createBashTool({ runner: unconfinedRunner });
    expect(toolLabel(bash, { command: 'ls -la' })).toBe('Running `ls -la`…');
    expect(toolLabel(bash, { command: 'echo `date`' })).toBe("Running `echo 'date'`…");
    expect(toolLabel(bash, { _raw: 'not json' })).toBeUndefined();
    const [readFile, writeFile, listDirectory] = createFileTools();
    expect(toolLabel(readFile, { path: 'notes/todo.md' })).toBe('Reading `notes/todo.md`…');
    expect(toolLabel(writeFile, { path: 'out.txt', content: 'x' })).toBe('Writing `out.txt`…');
    expect(toolLabel(listDirectory, {})).toBe('Looking through files…');
  });

  it('the loop puts the label on tool-call-start, and leaves it off a tool without one', async () => {
    const plain = defineTool({ name: 'plain', description: 'no label', category: 'read', parameters: Type.Object({}), execute: async () => 'ok' });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'a', name: 'labelled', args: { query: 'cats' } }, { id: 'b', name: 'plain', args: {} }] },
      { text: 'done' },
    ]);
    const events = await collectEvents(agentInput(model, [labelled(({ query }) => `Searching for ${query}…`), plain]));
    const starts = events.filter((event) => event.type === 'tool-call-start');
    expect(starts).toMatchObject([{ toolCallId: 'a', label: 'Searching for cats…' }, { toolCallId: 'b' }]);
    expect(starts[1]).not.toHaveProperty('label');
  });
});
