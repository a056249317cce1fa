/**
 * Which models of a failover chain are cooling down after a retryable failure (CONTRACT §17), shared by every
 * process so that later turns anywhere go straight to the next model. Models are named `provider:model`.
 */
export interface FailoverCooldowns {
  /** Those of `models` that are cooling down now: one round trip for the whole chain. */
  coolingOf(models: readonly string[]): Promise<Set<string>>;
  /** `model` is skipped for the next `ms` milliseconds. */
  coolDown(model: string, ms: number): Promise<void>;
}
