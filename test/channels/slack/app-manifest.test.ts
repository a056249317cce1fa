import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SLACK_BOT_EVENTS, SLACK_BOT_SCOPES } from '../../../channels/slack/app-permissions.js';
import { COMMAND_DESCRIPTIONS } from '../../../src/commands/parse-command.js';
import { startSlackDouble, type SlackDouble } from '../../doubles/slack-double.js';
import { startSlackChannel } from './channel-fixture.js';

const manifest = parse(readFileSync(new URL('../../../docs/slack-app-manifest.yaml', import.meta.url), 'utf8'));
const slackPage = readFileSync(new URL('../../../docs/slack.md', import.meta.url), 'utf8');

describe('the Slack app manifest (docs/slack-app-manifest.yaml)', () => {
  it('grants exactly the bot scopes the service uses, which doctor checks', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(SLACK_BOT_SCOPES.map((scope) => scope.name).sort());
  });

  it('subscribes to exactly the bot events the service handles', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(SLACK_BOT_EVENTS.map((event) => event.name).sort());
  });

  it('points every URL at the service\u2019s Slack routes, and offers only commands the service knows', () => {
    expect(manifest.settings.event_subscriptions.request_url).toBe('https://YOUR-HOST/webhooks/slack/events');
    expect(manifest.settings.interactivity.request_url).toBe('https://YOUR-HOST/webhooks/slack/interactions');
    const known = new Set(COMMAND_DESCRIPTIONS.map((entry) => `/${entry.command}`));
    for (const command of manifest.features.slash_commands) {
      expect(known.has(command.command), command.command).toBe(true);
      expect(command.url).toBe('https://YOUR-HOST/webhooks/slack/commands');
    }
  });

  it('docs/slack.md says what each scope and event is for', () => {
    for (const permission of [...SLACK_BOT_SCOPES, ...SLACK_BOT_EVENTS]) expect(slackPage, permission.name).toContain(`\`${permission.name}\``);
  });
});

describe('the Slack channel\u2019s set-up check (doctor)', () => {
  let double: SlackDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('is complete for an app installed from the manifest', async () => {
    double = await startSlackDouble({ scopes: manifest.oauth_config.scopes.bot });
    const channel = await startSlackChannel(double);
    expect(channel.describeSetup!()).toBe(`all ${SLACK_BOT_SCOPES.length} scopes the service uses are granted`);
  });

  it('names each missing scope and what it is for', async () => {
    const granted = SLACK_BOT_SCOPES.map((scope) => scope.name).filter((name) => name !== 'im:history' && name !== 'files:write');
    double = await startSlackDouble({ scopes: granted });
    const channel = await startSlackChannel(double);
    expect(() => channel.describeSetup!()).toThrow(
      /^the app lacks 2 scope\(s\): im:history \(receive direct messages, .*\); files:write \(send files back .*\)$/,
    );
  });

  it('says it could not check when Slack reports no scopes', async () => {
    double = await startSlackDouble({ scopes: null });
    const channel = await startSlackChannel(double);
    expect(channel.describeSetup!()).toMatch(/did not report the token's scopes/);
  });
});
