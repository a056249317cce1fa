/** What one model call needs: provider, model, credentials and limits (built by `config`, owned here). */
export interface LlmConfig {
  provider: 'openai' | 'anthropic';
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
  stream: boolean;
  contextWindow: number;
  /** The output cap sent on every request (LLM_MAX_OUTPUT_TOKENS; per agent in the config file); budgets reserve against it. */
  maxOutputTokens: number;
  timeoutMs: number;
  maxRetries: number;
}
