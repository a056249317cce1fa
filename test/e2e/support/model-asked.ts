import type { E2eEnvironment } from '../../support/e2e-environment.js';
import { waitFor } from '../../support/service-process.js';

/** The model of the newest model call whose messages say `text`. */
export const modelAsked = (environment: E2eEnvironment, text: string) =>
  waitFor(() => environment.openai.modelCalls.findLast((call) => JSON.stringify(call.body.messages).includes(text))?.body.model as string | undefined, {
    what: `the model call for "${text}"`,
  });
