import { createLogger } from '../../../src/observability/logger.js';

/** A logger that keeps every line it writes (parsed), to check what a channel warned about (pino level 40 = warn). */
export function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  const warnings = () => lines.filter((line) => line.level === 40);
  return { logger, lines, warnings };
}
