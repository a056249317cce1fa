import { Type, type Static } from '@sinclair/typebox';

/**
 * `sandbox: on | off` of bash and of each CLI tool. YAML 1.1 readers turn `on`/`off` into booleans,
 * so those are accepted too.
 */
export const SandboxSwitchSchema = Type.Union([Type.Literal('on'), Type.Literal('off'), Type.Boolean()], {
  description: 'run the command in the bubblewrap sandbox (default on)',
});
export type SandboxSwitch = Static<typeof SandboxSwitchSchema>;

export function isSandboxOn(value: SandboxSwitch | undefined): boolean {
  return value === undefined || value === 'on' || value === true;
}

/** `tools.sandbox_limits`: what one sandboxed command (with everything it starts) may use. */
export const SandboxLimitsSchema = Type.Object(
  {
    /** Processes and threads at once. */
    processes: Type.Optional(Type.Integer({ minimum: 8 })),
    /** Address space of each process, in MiB. */
    memory_mb: Type.Optional(Type.Integer({ minimum: 64 })),
    /** CPU time of each process, in seconds. */
    cpu_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Largest file a process may write, in MiB. */
    file_size_mb: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Size of the private /tmp (and /dev/shm), in MiB; it is memory. */
    tmp_mb: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export type SandboxLimits = Required<Static<typeof SandboxLimitsSchema>>;

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  processes: 256,
  memory_mb: 4096,
  cpu_seconds: 300,
  file_size_mb: 1024,
  tmp_mb: 256,
};

/** What one tool's sandbox allows besides the workspace. */
export interface SandboxPolicy {
  network: boolean;
  /** Host paths mounted read-only at the same place (`~` is the service user's home). */
  readOnlyPaths: string[];
  limits: SandboxLimits;
}

export function sandboxLimits(configured: Static<typeof SandboxLimitsSchema> | undefined): SandboxLimits {
  return { ...DEFAULT_SANDBOX_LIMITS, ...configured };
}
