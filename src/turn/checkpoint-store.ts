import type { TurnStep } from '../agent/index.js';
import type { TurnStatePort } from '../core/turn-ports.js';
import type { TurnCheckpointStore } from './turn-dependencies.js';

/** The Redis step list as the turn sees it: the steps are ours, so what comes back is what we saved. */
export function turnCheckpointStore(state: TurnStatePort): TurnCheckpointStore {
  return {
    append: (sessionKey, turnId, holder, step) => state.append(sessionKey, turnId, holder, step),
    load: async (sessionKey, turnId) => (await state.load(sessionKey, turnId)) as TurnStep[],
  };
}
