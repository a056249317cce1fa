import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2eEnvironment, postTelegramUpdate, type E2eEnvironment } from '../support/e2e-environment.js';
import { startServiceProcess, waitFor, type ServiceProcess } from '../support/service-process.js';

/**
 * The idle heap reclaim as `start` wires it (src/cli/main.ts, with the service's ProcessActivity): the first quiet
 * stretch after start-up gives back what loading left (the V8 heap and the C heap), but not while a turn runs,
 * however quiet the event loop is while the turn waits for its model (test/lifecycle/idle-heap-reclaim.test.ts covers
 * the reclaim on its own).
 */
const MODEL_MS = 5_000;
const RECLAIM_LINE = 'quiet after a burst: heap given back';
const TRIM_LINE = 'quiet after a burst: C heap trimmed';

let environment: E2eEnvironment;
let service: ServiceProcess;

beforeAll(async () => {
  environment = await createE2eEnvironment();
  environment.openai.settings.latencyMs = MODEL_MS;
});

afterAll(async () => {
  await service?.stop();
  await environment?.close();
});

function reclaimTimes(output: string): number[] {
  return output
    .split('\n')
    .filter((line) => line.includes(RECLAIM_LINE))
    .map((line) => (JSON.parse(line) as { time: number }).time);
}

function trims(output: string): Array<{ time: number; outsideHeapBeforeMb: number; outsideHeapAfterMb: number }> {
  return output
    .split('\n')
    .filter((line) => line.includes(TRIM_LINE))
    .map((line) => JSON.parse(line) as { time: number; outsideHeapBeforeMb: number; outsideHeapAfterMb: number });
}

describe('the idle heap reclaim in the running service', () => {
  it('waits for a turn that is waiting on its model, and runs once the process has nothing to do', async () => {
    service = await startServiceProcess(environment.env({ LOG_LEVEL: 'debug' }));
    // at once: the reclaim counts 1.5 s of quiet from start-up, the turn lasts MODEL_MS
    await postTelegramUpdate(service.url, environment.telegram.makeUpdate.privateText(9501, 'take your time'));
    const postedAt = Date.now();
    await waitFor(() => environment.telegram.callsOf('sendMessage').some((call) => call.params.chat_id === 9501 && !call.failed), {
      timeoutMs: 30_000,
      what: 'the answer',
    });
    const answeredAt = Date.now();
    expect(answeredAt - postedAt).toBeGreaterThanOrEqual(MODEL_MS - 100);
    const [reclaimedAt] = await waitFor(() => (reclaimTimes(service.output()).length > 0 ? reclaimTimes(service.output()) : undefined), {
      timeoutMs: 15_000,
      what: 'the reclaim after start-up',
    });
    // unwired, it would have run about 1.5 s after start-up, in the middle of the turn
    expect(reclaimedAt!).toBeGreaterThan(answeredAt - 1_000);
    // the C heap is trimmed at the same quiet moment (glibc's malloc_trim through koffi, loaded then)
    const [trim] = await waitFor(() => (trims(service.output()).length > 0 ? trims(service.output()) : undefined), {
      timeoutMs: 15_000,
      what: 'the C heap trim after start-up',
    });
    expect(trim!.time).toBeGreaterThan(answeredAt - 1_000);
    expect(trim!.outsideHeapAfterMb).toBeLessThanOrEqual(trim!.outsideHeapBeforeMb);
  });
});
