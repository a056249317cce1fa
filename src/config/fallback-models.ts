import { BotError } from '../core/errors.js';
import type { LlmConfig } from './app-config.js';
import type { Environment } from './environment-schema.js';
import type { FallbackModelEntry } from './file-schema.js';

type Provider = LlmConfig['provider'];

export const KEY_VARIABLES = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' } as const;
export const BASE_URL_VARIABLES = { openai: 'OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL' } as const;
export const DEFAULT_CONTEXT_WINDOWS = { openai: 128_000, anthropic: 200_000 } as const;

/** One fallback as written: `[provider:]model`, or the config file's object. */
export interface FallbackReference {
  provider: Provider;
  model: string;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  contextWindow?: number | undefined;
}

const PROVIDER_PREFIX = /^(openai|anthropic):(.*)$/s;

/**
 * `anthropic:claude-haiku-4-5` or `gpt-4o-mini` (the agent's provider). Only `openai:` and `anthropic:` are
 * prefixes: a model name of a compatible server may hold colons of its own (`llama3:8b`).
 */
export function parseModelReference(text: string, defaultProvider: Provider): FallbackReference | string {
  const trimmed = text.trim();
  const prefixed = PROVIDER_PREFIX.exec(trimmed);
  const provider = (prefixed?.[1] as Provider | undefined) ?? defaultProvider;
  const model = (prefixed ? prefixed[2]! : trimmed).trim();
  if (model === '') return `${JSON.stringify(text)} names no model; expected [provider:]model, e.g. anthropic:claude-haiku-4-5`;
  return { provider, model };
}

/** LLM_FALLBACK_MODELS: comma-separated `[provider:]model`. */
export function fallbacksFromEnvironment(value: string, defaultProvider: Provider): FallbackReference[] {
  return referencesFromEnvironment('LLM_FALLBACK_MODELS', value, defaultProvider);
}

/** A variable of comma-separated `[provider:]model` (LLM_FALLBACK_MODELS, LLM_MODELS). */
export function referencesFromEnvironment(variable: string, value: string, defaultProvider: Provider): FallbackReference[] {
  return value
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const parsed = parseModelReference(entry, defaultProvider);
      if (typeof parsed === 'string') throw new BotError('config', `${variable}: ${parsed}`);
      return parsed;
    });
}

/** The config file's `fallbackModels`; `pointer` names a bad entry. */
export function fallbacksFromFile(entries: Array<string | FallbackModelEntry>, defaultProvider: Provider, fail: (index: number, message: string) => never): FallbackReference[] {
  return entries.map((entry, index) => {
    if (typeof entry !== 'string') return { ...entry, provider: entry.provider ?? defaultProvider };
    const parsed = parseModelReference(entry, defaultProvider);
    return typeof parsed === 'string' ? fail(index, parsed) : parsed;
  });
}

/**
 * A fallback's model settings: the agent's (stream, timeouts, retries, output cap) with the fallback's provider,
 * model, key and base URL. Key and base URL: its own, else that provider's variables, else the agent's own when
 * the agent uses the same provider.
 */
export function fallbackLlmConfig(reference: FallbackReference, agent: LlmConfig, env: Environment): LlmConfig {
  const { provider } = reference;
  const sameProvider = provider === agent.provider;
  return {
    ...agent,
    provider,
    model: reference.model,
    apiKey: reference.apiKey ?? env[KEY_VARIABLES[provider]] ?? (sameProvider ? agent.apiKey : '') ?? '',
    baseUrl: reference.baseUrl ?? env[BASE_URL_VARIABLES[provider]] ?? (sameProvider ? agent.baseUrl : undefined),
    contextWindow: reference.contextWindow ?? DEFAULT_CONTEXT_WINDOWS[provider],
  };
}
