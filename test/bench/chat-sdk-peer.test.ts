import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerDeployment } from '../../bench/peer.js';
import { deleteKeysWithPrefix } from '../../bench/redis-stats.js';
import { SessionPool, updateFactory } from '../../bench/traffic.js';
import type { Deployment } from '../../bench/deployment.js';
import { TEST_REDIS_URL, uniqueName } from '../support/services.js';

/** The bench's Chat SDK peer (bench/peers/chat-sdk-bot.ts, built): it answers the benchmark's webhooks through the doubles, once each. */
describe('the Chat SDK peer of npm run bench', () => {
  const prefix = uniqueName('peer_test');
  const redis = new Redis(TEST_REDIS_URL);
  let peer: Deployment & { readyMs: number };

  beforeAll(async () => {
    peer = await startPeerDeployment({ name: 'peer test', script: 'chat-sdk-bot', prefix, redisUrl: TEST_REDIS_URL });
  }, 60_000);

  afterAll(async () => {
    await peer?.stop();
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it('answers DMs and group mentions with the model double, and its state lives under its prefix', async () => {
    expect(peer.readyMs).toBeGreaterThan(0);
    const pool = new SessionPool(updateFactory(peer.telegram), { dmUsers: 3, groups: 1, firstUserId: 42_000, firstGroupId: -42_000, groupEvery: 4 }).followAnswers(peer.tracker);
    const seqs: number[] = [];
    for (let index = 0; index < 4; index++) {
      const outgoing = pool.take()!;
      seqs.push(outgoing.seq);
      peer.tracker.register(outgoing.seq, outgoing.session);
      expect((await peer.client.post(outgoing.update)).status).toBe(200);
    }
    expect(await peer.tracker.waitAnswered(seqs, 15_000)).toBe(0);
    expect(peer.tracker.duplicateAnswers).toBe(0);
    expect(peer.openai.requests.filter((request) => request.path.startsWith('/v1/chat/completions'))).toHaveLength(4);
    const answeredChats = peer.telegram.callsOf('sendMessage').map((call) => String(call.params.chat_id));
    expect(answeredChats).toContain('-42000');
    expect((await redis.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
  });
});
