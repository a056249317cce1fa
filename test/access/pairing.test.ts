import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAccessControl,
  generatePairingCode,
  MAX_PENDING_PER_CHANNEL,
  normalizePairingCode,
  PAIRING_ALPHABET,
  PAIRING_TTL_MS,
  PairingService,
} from '../../src/access/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { migrateDatabase, openDatabase, type Database } from '../../src/store/index.js';
import { inboundMessage } from '../support/messages.js';
import { createTestDatabase } from '../support/services.js';

describe('pairing codes', () => {
  it('use 8 symbols of an alphabet without look-alikes', () => {
    expect(PAIRING_ALPHABET).toHaveLength(31);
    for (const lookAlike of ['0', 'O', '1', 'I', 'L']) expect(PAIRING_ALPHABET).not.toContain(lookAlike);
    const seen = new Set<string>();
    for (let index = 0; index < 2_000; index++) {
      const code = generatePairingCode();
      expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
      for (const character of code) seen.add(character);
    }
    // every symbol shows up: the source is uniform over the whole alphabet
    expect(seen.size).toBe(PAIRING_ALPHABET.length);
  });

  it('draw each symbol from the random source it is given (crypto.randomInt by default)', () => {
    const draws: number[] = [];
    const code = generatePairingCode((size) => {
      draws.push(size);
      return draws.length - 1;
    });
    expect(code).toBe(PAIRING_ALPHABET.slice(0, 8));
    expect(draws).toEqual(Array(8).fill(31));
  });

  it('are matched whatever the case, spaces or dashes an operator types', () => {
    expect(normalizePairingCode('abcd-efgh')).toBe('ABCDEFGH');
    expect(normalizePairingCode(' ABCD EFGH ')).toBe('ABCDEFGH');
    expect(normalizePairingCode('ABCDEFG0')).toBeUndefined();
    expect(normalizePairingCode('ABC')).toBeUndefined();
  });
});

describe('the pairing service (PostgreSQL)', () => {
  let drop: () => Promise<void>;
  let database: Database;
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => now;

  beforeAll(async () => {
    const testDatabase = await createTestDatabase();
    drop = testDatabase.drop;
    database = await openDatabase({ databaseUrl: testDatabase.url, dataDir: mkdtempSync(join(tmpdir(), 'pairing-')) });
    await migrateDatabase(database);
  });

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  beforeEach(async () => {
    now += 24 * 60 * 60 * 1000; // every test starts with earlier requests long expired
  });

  const request = (service: PairingService, userId: string, channel: 'telegram' | 'slack' = 'telegram') =>
    service.request({ channel, accountId: '1', userId, userName: `User ${userId}` });

  it('gives an unknown user a code valid for 15 minutes, the same code while it is pending', async () => {
    const service = new PairingService(database.db, { clock });
    const first = await request(service, 'u1');
    expect(first.kind).toBe('issued');
    if (first.kind === 'full') throw new Error('unexpected');
    expect(first.request.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(PAIRING_TTL_MS).toBe(15 * 60 * 1000);
    expect(first.request.expiresAt.getTime() - now).toBe(15 * 60 * 1000);
    now += 14 * 60 * 1000;
    const again = await request(service, 'u1');
    expect(again).toMatchObject({ kind: 'pending', request: { code: first.request.code } });
    now += 60 * 1000;
    const renewed = await request(service, 'u1');
    expect(renewed.kind).toBe('issued');
    if (renewed.kind === 'full') throw new Error('unexpected');
    expect(renewed.request.code).not.toBe(first.request.code);
  });

  it('lets at most 50 codes be pending per channel, one per user; expired ones free their slot', async () => {
    const service = new PairingService(database.db, { clock });
    expect(MAX_PENDING_PER_CHANNEL).toBe(50);
    const users = Array.from({ length: 50 }, (_, index) => `user-${index}`);
    for (const user of users) expect((await request(service, user)).kind).toBe('issued');
    // a user writing again keeps their one code and takes no second slot
    for (const user of users.slice(0, 5)) expect((await request(service, user)).kind).toBe('pending');
    expect(await request(service, 'one-too-many')).toEqual({ kind: 'full', pending: 50 });
    expect((await request(service, 'one-too-many', 'slack')).kind).toBe('issued'); // another channel has its own slots
    now += PAIRING_TTL_MS + 1;
    expect((await request(service, 'one-too-many')).kind).toBe('issued');
  });

  it('holds the limit when several processes ask at once', async () => {
    const services = Array.from({ length: 6 }, () => new PairingService(database.db, { clock, maxPendingPerChannel: 3 }));
    const results = await Promise.all(services.map((service, index) => request(service, `racer-${index}`)));
    expect(results.filter((result) => result.kind === 'issued')).toHaveLength(3);
    expect(results.filter((result) => result.kind === 'full')).toHaveLength(3);
  });

  it('approves a pending code once, after which the user is allowed (seen by every process)', async () => {
    const gateway = new PairingService(database.db, { clock });
    const cli = new PairingService(database.db, { clock });
    const issued = await request(gateway, 'friend');
    if (issued.kind === 'full') throw new Error('unexpected');
    expect(await gateway.isApproved('telegram', 'friend')).toBe(false);
    expect((await cli.pending()).map((row) => row.code)).toContain(issued.request.code);

    const approved = await cli.approve(issued.request.code.toLowerCase());
    expect(approved).toMatchObject({ kind: 'approved', request: { channel: 'telegram', userId: 'friend' } });
    expect(await gateway.isApproved('telegram', 'friend')).toBe(true);
    expect(await gateway.isApproved('slack', 'friend')).toBe(false);
    expect((await cli.approve(issued.request.code)).kind).toBe('already-approved');
    expect((await cli.pending()).map((row) => row.code)).not.toContain(issued.request.code);
  });

  it('refuses an expired or unknown code', async () => {
    const service = new PairingService(database.db, { clock });
    const issued = await request(service, 'late');
    if (issued.kind === 'full') throw new Error('unexpected');
    now += PAIRING_TTL_MS;
    expect((await service.approve(issued.request.code)).kind).toBe('expired');
    expect(await service.isApproved('telegram', 'late')).toBe(false);
    expect((await service.approve('ZZZZZZZZ')).kind).toBe('unknown');
    expect((await service.approve('not a code')).kind).toBe('unknown');
  });

  it('tells the operator once per code lifetime that the channel is full, and counts every refused stranger', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _encoding, done) => done(void lines.push(String(chunk))) }) });
    const metrics = new Metrics({ defaultMetrics: false });
    const service = new PairingService(database.db, { clock, maxPendingPerChannel: 2, logger, metrics });
    for (const user of ['p1', 'p2']) expect((await request(service, user)).kind).toBe('issued');
    for (const user of ['p3', 'p4', 'p5']) expect((await request(service, user)).kind).toBe('full');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, channel: 'telegram', pending: 2, limit: 2, msg: expect.stringMatching(/pairing codes pending.*pairing list/) });
    expect(await metrics.registry.getSingleMetricAsString('bot_pairing_refused_total')).toContain('bot_pairing_refused_total{channel="telegram"} 3');

    now += PAIRING_TTL_MS - 1_000; // the codes are still pending: still one line for this window
    expect((await request(service, 'p6')).kind).toBe('full');
    expect(lines).toHaveLength(1);
    now += 1_000; // the window is over and the channel full again
    for (const user of ['p7', 'p8']) expect((await request(service, user)).kind).toBe('issued');
    expect((await request(service, 'p9')).kind).toBe('full');
    expect(lines).toHaveLength(2);
  });

  it('is what DM_POLICY=pairing asks: a code for strangers, a wait beyond the cap, the bot for approved users', async () => {
    const pairing = new PairingService(database.db, { clock, maxPendingPerChannel: 3 });
    const access = createAccessControl({ dmPolicy: 'pairing', allowFrom: ['telegram:99'], groupAllowlist: [], pairing, clock });
    const dm = (userId: string) => inboundMessage({ sender: { id: userId, name: `User ${userId}` } });
    expect(await access.admit(dm('99'))).toEqual({ kind: 'allow' });
    const stranger = await access.admit(dm('s1'));
    expect(stranger).toMatchObject({ kind: 'deny', reason: 'pairing: code issued' });
    const code = /pairing code is ([A-Z0-9]{8}) \(valid for 15 minutes\)/.exec((stranger as { notice: string }).notice)?.[1];
    expect(code).toBeDefined();
    await access.admit(dm('s2'));
    await access.admit(dm('s3'));
    expect(await access.admit(dm('s4'))).toMatchObject({ kind: 'deny', notice: expect.stringMatching(/try again later/) });
    await pairing.approve(code!);
    expect(await access.admit(dm('s1'))).toEqual({ kind: 'allow' });
    // groups are not subject to the DM policy
    expect(await access.admit(inboundMessage({ chatType: 'group', sender: { id: 's9' } }))).toEqual({ kind: 'allow' });
  });
});

describe('access control without pairing', () => {
  const dm = (userId: string) => inboundMessage({ sender: { id: userId } });
  const group = (chatId: string) => inboundMessage({ chatType: 'group', conversation: { channel: 'telegram', accountId: '1', chatId, chatType: 'group', messageId: '1' } });

  it('applies open, allowlist and disabled to DMs', async () => {
    expect(await createAccessControl({ dmPolicy: 'open', allowFrom: [], groupAllowlist: [] }).admit(dm('1'))).toEqual({ kind: 'allow' });
    const allowlist = createAccessControl({ dmPolicy: 'allowlist', allowFrom: ['telegram:1'], groupAllowlist: [] });
    expect(await allowlist.admit(dm('1'))).toEqual({ kind: 'allow' });
    expect(await allowlist.admit(dm('2'))).toMatchObject({ kind: 'deny' });
    expect(await createAccessControl({ dmPolicy: 'disabled', allowFrom: ['telegram:1'], groupAllowlist: [] }).admit(dm('1'))).toMatchObject({ kind: 'deny' });
  });

  it('restricts groups to GROUP_ALLOWLIST when it is set', async () => {
    const restricted = createAccessControl({ dmPolicy: 'open', allowFrom: [], groupAllowlist: ['telegram:-5'] });
    expect(await restricted.admit(group('-5'))).toEqual({ kind: 'allow' });
    expect(await restricted.admit(group('-6'))).toEqual({ kind: 'deny', reason: 'group not on the allowlist' });
    expect(await createAccessControl({ dmPolicy: 'open', allowFrom: [], groupAllowlist: [] }).admit(group('-6'))).toEqual({ kind: 'allow' });
  });
});
