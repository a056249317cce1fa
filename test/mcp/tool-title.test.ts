import { afterEach, describe, expect, it } from 'vitest';
import { toolLabel } from '../../src/agent/tools/tool-label.js';
import { closeConnections, connect, fixtureServer, waitUntilUp } from './support/mcp-servers.js';

/** Issue 51: an MCP tool's progress line is its `title`, else `annotations.title`; a tool with neither shows none. */
afterEach(closeConnections);

describe('MCP tool titles as progress lines', () => {
  it('title, then annotations.title, else no line', async () => {
    const { connection } = connect(fixtureServer('titled'));
    await waitUntilUp(connection);
    const tool = (name: string) => connection.tools().find((candidate) => candidate.name === `titled__${name}`)!;
    expect(toolLabel(tool('echo'), { text: 'hi' })).toBe('Echoing your text');
    expect(toolLabel(tool('slow'), { ms: 1 })).toBe('Waiting a while');
    expect(toolLabel(tool('pid'), {})).toBeUndefined();
    // the description stays the model's; the title is only the user's line
    expect(tool('echo').description).toBe('Echo the text');
  });
});
