import type { TurnStep } from '../agent/index.js';
import type { TurnCheckpoints } from '../queue/turn-checkpoints.js';
import type { TurnCheckpointStore } from './turn-dependencies.js';

/** The Redis step list as the turn sees it: the steps are ours, so what comes back is what we saved. */
export function turnCheckpointStore(checkpoints: TurnCheckpoints): TurnCheckpointStore {
  return {
    append: (sessionKey, turnId, holder, step) => checkpoints.append(sessionKey, turnId, holder, step),
    load: async (sessionKey, turnId) => (await checkpoints.load(sessionKey, turnId)) as TurnStep[],
    clear: (sessionKey, turnId) => checkpoints.clear(sessionKey, turnId),
  };
}
