import type { AgentConfig, LlmConfig } from './app-config.js';
import { fileError, type LoadedConfigFile } from './config-file.js';
import type { Environment } from './environment-schema.js';
import { checkMcpServers, parseMcpServers } from '../mcp/mcp-config.js';
import type { AgentEntry } from './file-schema.js';
import { BASE_URL_VARIABLES, DEFAULT_CONTEXT_WINDOWS, fallbackLlmConfig, fallbacksFromEnvironment, fallbacksFromFile, referencesFromEnvironment, KEY_VARIABLES, type FallbackReference } from './fallback-models.js';

export const DEFAULT_AGENT_ID = 'main';
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6' } as const;
const DEFAULT_MAX_ITERATIONS = 20;
/** A long answer's worth; a request may ask for less (summaries), never more. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

const keyVariable = KEY_VARIABLES;
const baseUrlVariable = BASE_URL_VARIABLES;

/**
 * The agents: those of the file, or one agent `main` made of the environment alone. The LLM_*,
 * SYSTEM_PROMPT and MAX_ITERATIONS variables are the default (first) agent's settings and override
 * the file's; other agents fall back to OPENAI_/ANTHROPIC_ keys and base URLs they do not set.
 */
export function mergeAgents(env: Environment, file: LoadedConfigFile | undefined): AgentConfig[] {
  const entries: AgentEntry[] = file?.content.agents ?? [{ id: DEFAULT_AGENT_ID }];
  const seen = new Map<string, number>();
  return entries.map((entry, index) => {
    if (file && seen.has(entry.id)) throw fileError(file.shown, `/agents/${index}/id`, `duplicate agent id "${entry.id}" (also /agents/${seen.get(entry.id)})`);
    seen.set(entry.id, index);
    const mcpProblem = file && entry.mcpServers ? checkMcpServers(entry.mcpServers) : undefined;
    if (file && mcpProblem) throw fileError(file.shown, `/agents/${index}/mcpServers/${mcpProblem.name.replaceAll('~', '~0').replaceAll('/', '~1')}${mcpProblem.pointer}`, mcpProblem.message);
    const isDefault = index === 0;
    const fromEnv = <T>(value: T | undefined): T | undefined => (isDefault ? value : undefined);
    const provider = fromEnv(env.LLM_PROVIDER) ?? entry.provider ?? (env.OPENAI_API_KEY ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : 'openai');
    const envKey = env[keyVariable[provider]];
    const envBaseUrl = env[baseUrlVariable[provider]];
    const llm: LlmConfig = {
      provider,
      model: fromEnv(env.LLM_MODEL) ?? entry.model ?? DEFAULT_MODELS[provider],
      apiKey: (isDefault ? (envKey ?? entry.apiKey) : (entry.apiKey ?? envKey)) ?? '',
      baseUrl: isDefault ? (envBaseUrl ?? entry.baseUrl) : (entry.baseUrl ?? envBaseUrl),
      stream: env.LLM_STREAM ?? true,
      contextWindow: fromEnv(env.LLM_CONTEXT_WINDOW) ?? entry.contextWindow ?? DEFAULT_CONTEXT_WINDOWS[provider],
      maxOutputTokens: fromEnv(env.LLM_MAX_OUTPUT_TOKENS) ?? entry.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      timeoutMs: env.LLM_TIMEOUT_MS ?? 120_000,
      maxRetries: env.LLM_MAX_RETRIES ?? 4,
    };
    return {
      id: entry.id,
      llm,
      fallbackModels: fallbackReferences(env, file, entry, index, provider).map((reference) => fallbackLlmConfig(reference, llm, env)),
      models: choosableModels(modelReferences(env, file, entry, index, provider).map((reference) => fallbackLlmConfig(reference, llm, env)), llm),
      modelChoice: fromEnv(env.MODEL_CHOICE) ?? entry.modelChoice ?? 'session',
      subagents: entry.subagents !== false && entry.subagents !== 'off',
      systemPrompt: fromEnv(env.SYSTEM_PROMPT) ?? entry.systemPrompt,
      maxIterations: fromEnv(env.MAX_ITERATIONS) ?? entry.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      tools: entry.tools ?? {},
      toolPolicy: {
        allowAdminTools: entry.toolPolicy?.allowAdminTools ?? entry.tools?.allow_admin_tools ?? false,
        requireApproval: entry.toolPolicy?.requireApproval ?? [],
      },
      schedules: { allowTools: entry.schedules?.allowTools ?? [] },
      mcpServers: parseMcpServers(entry.mcpServers),
      budgets: entry.budgets ?? {},
      ...(entry.assistant ? { assistant: entry.assistant } : {}),
    };
  });
}

/** LLM_FALLBACK_MODELS is the default agent's and overrides the file's list; other agents have their file entry's. */
function fallbackReferences(env: Environment, file: LoadedConfigFile | undefined, entry: AgentEntry, index: number, provider: LlmConfig['provider']): FallbackReference[] {
  if (index === 0 && env.LLM_FALLBACK_MODELS !== undefined) return fallbacksFromEnvironment(env.LLM_FALLBACK_MODELS, provider);
  if (!entry.fallbackModels) return [];
  return fallbacksFromFile(entry.fallbackModels, provider, (fallback, message) => {
    throw fileError(file?.shown ?? 'config file', `/agents/${index}/fallbackModels/${fallback}`, message);
  });
}

/** LLM_MODELS is the default agent's and overrides the file's `models`; other agents have their file entry's. */
function modelReferences(env: Environment, file: LoadedConfigFile | undefined, entry: AgentEntry, index: number, provider: LlmConfig['provider']): FallbackReference[] {
  if (index === 0 && env.LLM_MODELS !== undefined) return referencesFromEnvironment('LLM_MODELS', env.LLM_MODELS, provider);
  if (!entry.models) return [];
  return fallbacksFromFile(entry.models, provider, (position, message) => {
    throw fileError(file?.shown ?? 'config file', `/agents/${index}/models/${position}`, message);
  });
}

/** The list without the agent's own model and without repeats (the first of each `provider:model` stays). */
function choosableModels(models: LlmConfig[], agent: LlmConfig): LlmConfig[] {
  const seen = new Set([`${agent.provider}:${agent.model}`]);
  return models.filter((model) => {
    const key = `${model.provider}:${model.model}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Workers call every agent's model: each needs a key (a gateway-only process does not). */
export function checkAgentKeys(env: Environment, file: LoadedConfigFile | undefined, agents: AgentConfig[]): string | undefined {
  for (const [index, agent] of agents.entries()) {
    if (agent.llm.apiKey) continue;
    const variable = keyVariable[agent.llm.provider];
    if (!file?.content.agents) {
      if (env.LLM_PROVIDER) return `${variable}: required when LLM_PROVIDER=${env.LLM_PROVIDER}`;
      return 'OPENAI_API_KEY or ANTHROPIC_API_KEY: one is required to answer messages (workers call the LLM)';
    }
    return fileError(file.shown, `/agents/${index}/apiKey`, `required for provider ${agent.llm.provider}: set apiKey (e.g. \${MY_KEY}) or ${variable}`).message;
  }
  for (const [index, agent] of agents.entries()) {
    for (const [position, fallback] of agent.fallbackModels.entries()) {
      if (fallback.apiKey) continue;
      const variable = keyVariable[fallback.provider];
      const name = `${fallback.provider}:${fallback.model}`;
      if (index === 0 && env.LLM_FALLBACK_MODELS !== undefined) return `${variable}: required by the fallback model ${name} (LLM_FALLBACK_MODELS)`;
      const shown = file?.shown ?? 'config file';
      return fileError(shown, `/agents/${index}/fallbackModels/${position}`, `no API key for the fallback ${name}: set apiKey (object form) or ${variable}`).message;
    }
    for (const model of agent.models) {
      if (model.apiKey) continue;
      const variable = keyVariable[model.provider];
      const name = `${model.provider}:${model.model}`;
      if (index === 0 && env.LLM_MODELS !== undefined) return `${variable}: required by the model ${name} (LLM_MODELS)`;
      return `${file?.shown ?? 'config file'}: /agents/${index}/models: no API key for ${name}: set apiKey (object form) or ${variable}`;
    }
  }
  return undefined;
}
