import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentTool } from '../../../src/agent/tools/agent-tool.js';
import { createFileTools } from '../../../src/agent/tools/file-tools.js';
import { sanitizeUserId, workspaceFor } from '../../../src/agent/tools/workspace.js';
import { testToolContext } from '../support/agent-run.js';

let root: string;
let workspace: string;
let outside: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'file-tools-')));
  workspace = await workspaceFor(join(root, 'data'), 'telegram:42');
  outside = join(root, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function tool(tools: AgentTool[], name: string): AgentTool {
  const found = tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

const context = () => testToolContext(new AbortController().signal, workspace);

describe('workspace', () => {
  it('is DATA_DIR/workspaces/<sanitized user id>, created on first use, distinct for look-alike ids', async () => {
    expect(workspace.startsWith(join(root, 'data', 'workspaces'))).toBe(true);
    expect((await stat(workspace)).isDirectory()).toBe(true);
    expect(sanitizeUserId('U123_abc')).toBe('U123_abc');
    expect(sanitizeUserId('../../etc')).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sanitizeUserId('a:b')).not.toBe(sanitizeUserId('a_b'));
  });
});

describe('file tools', () => {
  it('write_file then read_file and list_directory work inside the workspace', async () => {
    const tools = createFileTools();
    expect(await tool(tools, 'write_file').execute({ path: 'notes/today.md', content: 'hello' }, context())).toBe('Wrote 5 bytes to notes/today.md');
    expect(await tool(tools, 'write_file').execute({ path: 'notes/today.md', content: ' world', append: true }, context())).toMatch(/^Appended/);
    expect(await tool(tools, 'read_file').execute({ path: 'notes/today.md' }, context())).toBe('hello world');
    expect(await tool(tools, 'list_directory').execute({}, context())).toBe('notes/');
    expect(await readFile(join(workspace, 'notes', 'today.md'), 'utf8')).toBe('hello world');
  });

  it('S6.10: read_file on a path outside the allowed paths returns a permission error', async () => {
    const read = tool(createFileTools(), 'read_file');
    await expect(read.execute({ path: join(outside, 'secret.txt') }, context())).rejects.toThrow(/Permission denied: .* outside the allowed paths/);
    await expect(read.execute({ path: '../../../outside/secret.txt' }, context())).rejects.toThrow(/Permission denied/);
  });

  it('S6.10: a configured allowed path is readable', async () => {
    const read = tool(createFileTools({ allowedPaths: [outside] }), 'read_file');
    expect(await read.execute({ path: join(outside, 'secret.txt') }, context())).toBe('top secret');
  });

  it('S6.11: write_file on a denied path fails even though it is inside an allowed path', async () => {
    const tools = createFileTools({ allowedPaths: [outside], deniedPaths: [join(outside, 'keys')] });
    await expect(tool(tools, 'write_file').execute({ path: join(outside, 'keys', 'id_rsa'), content: 'x' }, context())).rejects.toThrow(
      /Permission denied: .* denied path/,
    );
    const deniedInWorkspace = createFileTools({ deniedPaths: [join(workspace, 'private')] });
    await expect(tool(deniedInWorkspace, 'write_file').execute({ path: 'private/a.txt', content: 'x' }, context())).rejects.toThrow(/denied path/);
  });

  it('S6.12: a symlink pointing outside the allowed paths is rejected', async () => {
    await symlink(join(outside, 'secret.txt'), join(workspace, 'link.txt'));
    await symlink(outside, join(workspace, 'linked-dir'));
    const tools = createFileTools();
    await expect(tool(tools, 'read_file').execute({ path: 'link.txt' }, context())).rejects.toThrow(/Permission denied/);
    await expect(tool(tools, 'write_file').execute({ path: 'linked-dir/new.txt', content: 'x' }, context())).rejects.toThrow(/Permission denied/);
    await expect(tool(tools, 'list_directory').execute({ path: 'linked-dir' }, context())).rejects.toThrow(/Permission denied/);
  });

  it('a symlink that stays inside the workspace is followed', async () => {
    await writeFile(join(workspace, 'real.txt'), 'inside');
    await symlink(join(workspace, 'real.txt'), join(workspace, 'alias.txt'));
    expect(await tool(createFileTools(), 'read_file').execute({ path: 'alias.txt' }, context())).toBe('inside');
  });

  it('S6.3: read_file caps a large file with a notice', async () => {
    await writeFile(join(workspace, 'big.txt'), 'a'.repeat(5000));
    const output = await tool(createFileTools({ maxOutputBytes: 1000 }), 'read_file').execute({ path: 'big.txt' }, context());
    expect(output.startsWith('a'.repeat(1000))).toBe(true);
    expect(output).toMatch(/\[output truncated: showing the first 1000 bytes of 5 KB; read on with offset 1000\]$/);
  });

  it('read_file reads on from a byte offset, never cutting a character, until the end', async () => {
    // 'é' is two bytes: the cuts fall inside characters and move to their boundaries
    await writeFile(join(workspace, 'long.txt'), `${'é'.repeat(600)}THE-END`);
    const read = tool(createFileTools({ maxOutputBytes: 1001 }), 'read_file');
    const first = await read.execute({ path: 'long.txt' }, context());
    expect(first).toBe(`${'é'.repeat(500)}\n\n[output truncated: showing the first 1000 bytes of 1 KB; read on with offset 1000]`);
    expect(await read.execute({ path: 'long.txt', offset: 1000 }, context())).toBe(`${'é'.repeat(100)}THE-END`);
    // an offset inside a character starts at the next one
    expect(await read.execute({ path: 'long.txt', offset: 1197 }, context())).toBe('éTHE-END');
    const middle = await read.execute({ path: 'long.txt', offset: 2 }, context());
    expect(middle).toMatch(/\[output truncated: showing bytes 2 to 1002 of 1207; read on with offset 1002\]$/);
    await expect(read.execute({ path: 'long.txt', offset: 5000 }, context())).rejects.toThrow('offset 5000 is past the end of the file (1207 bytes)');
  });

  it('reading a missing file or a directory explains the problem', async () => {
    const read = tool(createFileTools(), 'read_file');
    await expect(read.execute({ path: 'nope.txt' }, context())).rejects.toThrow('Not found: nope.txt');
    await mkdir(join(workspace, 'dir'));
    await expect(read.execute({ path: 'dir' }, context())).rejects.toThrow(/not a regular file|directory/);
  });
});
