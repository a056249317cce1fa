/** The only host variables a subprocess sees; API keys and tokens never leak into tools. */
export const ALLOWED_ENV_KEYS = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'TMPDIR', 'TZ'] as const;

export type HostEnvironment = Record<string, string | undefined>;

export function buildToolEnvironment(hostEnv: HostEnvironment, toolEnv: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ALLOWED_ENV_KEYS) {
    const value = hostEnv[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...toolEnv };
}
