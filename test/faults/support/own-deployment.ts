import { createE2eEnvironment, type E2eEnvironment } from '../../support/e2e-environment.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';

/**
 * A test's own doubles of every platform, database, queue prefix and service processes, all stopped when the test
 * finishes: nothing is shared, so a file's tests may run side by side (`describe.concurrent`). `start` runs a service
 * process with `defaults` under the test's `overrides`.
 */
export async function ownDeployment(
  onTestFinished: (hook: () => Promise<void>) => void,
  defaults: Record<string, string> = {},
): Promise<{ environment: E2eEnvironment; start(overrides: Record<string, string>): Promise<ServiceProcess> }> {
  const environment = await createE2eEnvironment({ slack: true, feishu: true });
  const services: ServiceProcess[] = [];
  onTestFinished(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
    await environment.close();
  });
  return {
    environment,
    async start(overrides) {
      const service = await startServiceProcess(environment.env({ ...defaults, ...overrides }));
      services.push(service);
      return service;
    },
  };
}
