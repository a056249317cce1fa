import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_BOT_SCOPES } from '../../channels/slack/app-permissions.js';
import { createE2eEnvironment, type E2eEnvironment } from '../support/e2e-environment.js';
import { CLI } from '../support/service-process.js';

let environment: E2eEnvironment;
const granted = SLACK_BOT_SCOPES.map((scope) => scope.name).filter((name) => name !== 'mpim:history' && name !== 'reactions:write');

beforeAll(async () => {
  environment = await createE2eEnvironment({ slack: { scopes: granted } });
});

afterAll(async () => {
  await environment?.close();
});

function doctor(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'doctor'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('cli doctor with a Slack app', () => {
  it('fails naming every scope the installed app lacks, and where the full list is', async () => {
    const { code, output } = await doctor(environment.env(environment.slackEnv()));
    expect(output).toMatch(/^ok    channels: .*slack account T0TEAM01 ok/m);
    const line = output.split('\n').find((candidate) => candidate.startsWith('FAIL  slack scopes: '));
    expect(line).toMatch(/^FAIL  slack scopes: account T0TEAM01: the app lacks 2 scope\(s\): mpim:history \(.*\); reactions:write \(.*\) — add them under OAuth & Permissions \(docs\/slack-app-manifest\.yaml lists every scope\) and reinstall the app$/);
    expect(code).toBe(1);
  });
});
