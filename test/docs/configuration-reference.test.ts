import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configFileRows, environmentRows, renderConfigurationReference } from '../../src/config/config-reference.js';
import { loadConfig } from '../../src/config/index.js';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

/** Keys whose meaning is still documented in prose only (docs/features.md: the tool sandbox, MCP servers). */
const PROSE_ONLY = [/^agents\[\]\.tools\./, /^agents\[\]\.mcpServers\.<name>\./];

describe('docs/configuration.md', () => {
  it('is what the schemas generate (run `npm run docs:config` after changing a schema)', () => {
    expect(page).toBe(renderConfigurationReference());
  });

  it('gives every environment variable a meaning', () => {
    const undocumented = environmentRows().filter((row) => !row.description).map((row) => row.name);
    expect(undocumented, 'add a description in src/config/environment-schema.ts').toEqual([]);
  });

  it('gives every config-file key a meaning', () => {
    const undocumented = configFileRows()
      .filter((row) => !row.description && !PROSE_ONLY.some((pattern) => pattern.test(row.name)))
      .map((row) => row.name);
    expect(undocumented, 'add a description in src/config/file-schema.ts').toEqual([]);
  });

  it('states each default the code really applies: setting a variable to its documented default changes nothing', () => {
    const base = {
      OPENAI_API_KEY: 'sk-test',
      TELEGRAM_BOT_TOKEN: '123:abc',
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'secret',
      FEISHU_APP_ID: 'cli_test',
      FEISHU_APP_SECRET: 'secret',
      FEISHU_VERIFICATION_TOKEN: 'token',
    };
    const options = { cwd: tmpdir() };
    const unset = loadConfig(base, options);
    const withDefaults = environmentRows().filter((row) => row.default !== '');
    expect(withDefaults.length).toBeGreaterThan(40);
    for (const row of withDefaults) {
      const value = row.default.slice(1, -1); // `8080`, `0.0.0.0`, `true`: as one would write it in the environment
      expect(loadConfig({ ...base, [row.name]: value }, options), `${row.name}=${value}`).toEqual(unset);
    }
  });

  it('is wrong the moment a documented default is (a test of the test)', () => {
    const options = { cwd: tmpdir() };
    const base = { OPENAI_API_KEY: 'sk-test' };
    expect(loadConfig({ ...base, PORT: '8081' }, options)).not.toEqual(loadConfig(base, options));
  });
});
