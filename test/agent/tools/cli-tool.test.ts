import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCliArguments, createCliTool, parseCliToolDeclaration, type CliToolDeclaration } from '../../../src/agent/tools/cli-tool.js';
import { unconfinedRunner } from '../../../src/agent/tools/command-runner.js';
import { ToolRegistry } from '../../../src/agent/tools/tool-registry.js';
import { BotError } from '../../../src/core/errors.js';
import { agentInput, collectEvents, terminalOf, testToolContext } from '../support/agent-run.js';
import { ScriptedModel } from '../support/scripted-model.js';

// `node -e` prints the argv it received, so each test sees exactly what spawn passed.
const PRINT_ARGV = 'console.log(JSON.stringify(process.argv.slice(1)))';
const PRINT_ENV = 'console.log(JSON.stringify(process.env))';

const configYaml = `
tools:
  - name: kubectl_get
    description: "Get Kubernetes resources"
    category: read
    cmd: ${JSON.stringify(process.execPath)}
    args: ["-e", ${JSON.stringify(PRINT_ARGV)}, "get", "{{resource}}"]
    optional_args:
      namespace: ["-n", "{{namespace}}"]
      watch: ["--watch"]
    parameters:
      resource:
        type: string
        enum: [pods, services, deployments]
        description: "The resource type"
      namespace:
        type: string
        pattern: "^[a-z0-9-]+$"
        optional: true
      watch:
        type: boolean
        optional: true
  - name: say
    description: "Print a message"
    category: read
    cmd: ${JSON.stringify(process.execPath)}
    args: ["-e", ${JSON.stringify(PRINT_ARGV)}, "--", "--message={{text}}", "{{text}}"]
    parameters:
      text:
        type: string
        maxLength: 200
  - name: deploy_app
    description: "Deploy the app"
    category: admin
    cmd: ${JSON.stringify(process.execPath)}
    args: ["-e", ${JSON.stringify(PRINT_ENV)}]
    env:
      DEPLOY_TOKEN: "\${DEPLOY_TOKEN}"
      DEPLOY_TARGET: "prod-\${REGION}"
`;

const hostEnv = { PATH: process.env.PATH, HOME: '/home/agent', DEPLOY_TOKEN: 'dt-123', REGION: 'eu', OPENAI_API_KEY: 'sk-secret' };
const declarations = (parse(configYaml) as { tools: unknown[] }).tools.map(parseCliToolDeclaration);
const declaration = (name: string): CliToolDeclaration => declarations.find((candidate) => candidate.name === name)!;

let workspace: string;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'cli-tool-')));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});
// These test the tool mechanics with `sandbox: off`; sandboxed CLI tools are tested in sandbox.test.ts.
const unconfined = { runner: unconfinedRunner };
const context = () => testToolContext(new AbortController().signal, workspace);
const argvOf = (output: string): string[] => JSON.parse(output) as string[];

describe('CLI tools from config', () => {
  it('S6.7: a CLI tool declared in YAML is registered and callable by the agent', async () => {
    const registry = new ToolRegistry(declarations.map((entry) => createCliTool(entry, hostEnv, unconfined)));
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'kubectl_get', args: { resource: 'pods', namespace: 'kube-system' } }] },
      { text: 'Here are the pods.' },
    ]);
    const events = await collectEvents(agentInput(model, registry.toolsFor({ allowAdminTools: false }), { toolContext: context() }));
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(end).toMatchObject({ name: 'kubectl_get', isError: false });
    expect(argvOf(end?.type === 'tool-call-end' ? end.output : '')).toEqual(['get', 'pods', '-n', 'kube-system']);
    expect(terminalOf(events).type).toBe('run-end');
    expect(model.requests[0]?.tools?.find((tool) => tool.name === 'kubectl_get')?.parameters).toMatchObject({
      type: 'object',
      required: ['resource'],
    });
  });

  it('S6.8: arguments go to spawn without a shell, so metacharacters stay literal, one argument per template', async () => {
    const text = 'hi; rm -rf ~ && echo $(whoami) `id` | cat > /tmp/x "quoted" \'single\'';
    const output = await createCliTool(declaration('say'), hostEnv, unconfined).execute({ text }, context());
    expect(argvOf(output)).toEqual([`--message=${text}`, text]);
  });

  it('S6.9: a template injection attempt is rejected by enum/pattern validation before anything runs', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'kubectl_get', args: { resource: 'pods; rm -rf ~' } },
          { id: 'b', name: 'kubectl_get', args: { resource: 'pods', namespace: 'default; rm -rf ~' } },
        ],
      },
      { text: 'ok' },
    ]);
    const tools = [createCliTool(declaration('kubectl_get'), hostEnv, unconfined)];
    const events = await collectEvents(agentInput(model, tools, { toolContext: context() }));
    const ends = events.filter((event) => event.type === 'tool-call-end');
    expect(ends.map((event) => event.type === 'tool-call-end' && event.isError)).toEqual([true, true]);
    expect(ends[0]?.type === 'tool-call-end' && ends[0].output).toMatch(/\/resource: .*one of: "pods", "services", "deployments"/);
    expect(ends[1]?.type === 'tool-call-end' && ends[1].output).toMatch(/\/namespace: Expected string to match/);
  });

  it('S6.13: tool-specific env declared in the definition reaches the subprocess, the rest stays out', async () => {
    const output = await createCliTool(declaration('deploy_app'), hostEnv, unconfined).execute({}, context());
    const env = JSON.parse(output) as Record<string, string>;
    expect(env.DEPLOY_TOKEN).toBe('dt-123');
    expect(env.DEPLOY_TARGET).toBe('prod-eu');
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.REGION).toBeUndefined();
    expect(env.HOME).toBe('/home/agent');
  });

  it('optional args are added only when their parameter is given (booleans only when true)', () => {
    const kubectl = declaration('kubectl_get');
    expect(buildCliArguments(kubectl, { resource: 'pods' }).slice(2)).toEqual(['get', 'pods']);
    expect(buildCliArguments(kubectl, { resource: 'pods', watch: false }).slice(2)).toEqual(['get', 'pods']);
    expect(buildCliArguments(kubectl, { resource: 'pods', watch: true, namespace: 'a' }).slice(2)).toEqual(['get', 'pods', '-n', 'a', '--watch']);
  });

  it('maxLength is enforced', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'say', args: { text: 'x'.repeat(201) } }] }, { text: 'ok' }]);
    const events = await collectEvents(agentInput(model, [createCliTool(declaration('say'), hostEnv, unconfined)], { toolContext: context() }));
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ isError: true });
  });

  it('S6.4: a CLI tool over its timeout is killed and returns a timeout error', async () => {
    const slow = parseCliToolDeclaration({
      name: 'slow',
      description: 'Never ends',
      category: 'read',
      cmd: process.execPath,
      args: ['-e', 'setTimeout(() => {}, 30000)'],
      timeout_seconds: 0.2,
    });
    const started = Date.now();
    await expect(createCliTool(slow, hostEnv, unconfined).execute({}, context())).rejects.toThrow(/^Command timed out after 200 ms and was killed/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a missing command becomes a readable error', async () => {
    const missing = parseCliToolDeclaration({ name: 'ghost', description: 'd', category: 'read', cmd: 'definitely-not-a-command-xyz' });
    await expect(createCliTool(missing, hostEnv, unconfined).execute({}, context())).rejects.toThrow(/Could not start the command: .*ENOENT/);
  });

  it.each([
    [{ name: 'x', description: 'd', category: 'root', cmd: 'ls' }, /\/category/],
    [{ name: 'x', description: 'd', category: 'read', cmd: 'ls', args: ['{{path}}'] }, /args use \{\{path\}\} but no such parameter/],
    [
      { name: 'x', description: 'd', category: 'read', cmd: 'ls', args: ['{{path}}'], parameters: { path: { type: 'string', optional: true } } },
      /optional parameter \{\{path\}\}/,
    ],
    [{ name: 'x', description: 'd', category: 'read', cmd: 'ls', parameters: { p: { type: 'string', pattern: '([' } } }, /not a valid regular expression/],
    [{ name: 'x', description: 'd', category: 'read', cmd: 'ls', shell: true }, /\//],
  ])('an invalid declaration is a config error naming the field (%#)', (value, message) => {
    expect(() => parseCliToolDeclaration(value)).toThrow(BotError);
    expect(() => parseCliToolDeclaration(value)).toThrow(message);
  });

  it('a declared env variable missing from the host is a config error', () => {
    expect(() => createCliTool(declaration('deploy_app'), { PATH: '/usr/bin' }, unconfined)).toThrow(/env.DEPLOY_TOKEN needs the host variable DEPLOY_TOKEN/);
  });
});
