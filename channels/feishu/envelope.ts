import { createDecipheriv, createHash } from 'node:crypto';
import type { WebhookRequest } from '../../src/core/index.js';
import { headerOf, sameSecret, sameSignature } from '../shared/index.js';

export interface EnvelopeSecrets {
  verificationToken: string | undefined;
  encryptKey: string | undefined;
}

export type OpenedEnvelope =
  | { kind: 'refused'; status: 400 | 401; reason: string }
  | { kind: 'challenge'; challenge: string }
  /** schema 2.0: `header.event_id` / `header.event_type`; 1.0: `uuid` / `event.type`. */
  | { kind: 'event'; eventId: string | undefined; eventType: string | undefined; event: unknown };

/** As Slack (and Bolt) do: a signed request more than 5 minutes away from our clock is refused, either way. */
const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

export interface EnvelopeOptions {
  /** The card callback route: old card callbacks (plain, no schema) are signed with sha1 and the verification token. */
  legacyCardSignature?: boolean;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
}

/**
 * Verifies and opens one HTTP delivery of Feishu's event (or card callback) subscription, working on the
 * raw body, as the Lark SDK's EventDispatcher and CardActionHandler do:
 * - With FEISHU_ENCRYPT_KEY every event and card callback must carry `X-Lark-Signature =
 *   sha256(timestamp + nonce + encryptKey + body)` (old card callbacks: sha1 with the verification token)
 *   and an `X-Lark-Request-Timestamp` within 5 minutes of our clock; only url_verification, which grants
 *   nothing, may come unsigned. The token alone is no proof then: it is shown in the console and sent in
 *   every plain body, while the key never travels.
 * - Without an encrypt key the verification token (`token` in url_verification and 1.0, `header.token` in
 *   2.0) is the only proof, as Feishu offers no other; a signature that is there is still checked.
 * - `{"encrypt": …}` bodies are decrypted as the SDK's AESCipher does (AES-256-CBC, key sha256(encryptKey), the
 *   first 16 bytes the IV), by hand: loading the SDK for it would cost every gateway some 20 MB.
 * - With neither a token nor an encrypt key nothing proves a delivery came from Feishu: everything is refused.
 */
export function openEnvelope(request: WebhookRequest, secrets: EnvelopeSecrets, options: EnvelopeOptions = {}): OpenedEnvelope {
  const body = parseObject(request.rawBody);
  if (body === undefined) return refused(400, 'malformed JSON');
  const encrypted = typeof body.encrypt === 'string';

  const signature = checkSignature(request, body, secrets, options);
  if (signature === 'bad') return refused(401, 'bad signature');
  if (signature === 'stale') return refused(401, `stale or missing timestamp: X-Lark-Request-Timestamp is more than ${MAX_CLOCK_SKEW_SECONDS} s away`);

  let payload = body;
  if (encrypted) {
    if (!secrets.encryptKey) return refused(400, 'encrypted delivery but FEISHU_ENCRYPT_KEY is not set');
    let decrypted: string;
    try {
      decrypted = decryptEvent(secrets.encryptKey, body.encrypt as string);
    } catch {
      return refused(401, 'cannot decrypt with FEISHU_ENCRYPT_KEY');
    }
    const inner = parseObject(decrypted);
    if (inner === undefined) return refused(400, 'decrypted body is not a JSON object');
    payload = inner;
  }

  const header = asObject(payload.header);
  const isChallenge = payload.type === 'url_verification';
  const token = isChallenge || header === undefined ? payload.token : header.token;
  if (secrets.verificationToken && (typeof token !== 'string' || !sameSecret(token, secrets.verificationToken))) return refused(401, 'bad verification token');
  if (secrets.encryptKey && !isChallenge && signature !== 'verified') return refused(401, 'unsigned delivery: a signature (X-Lark-Signature) is required when FEISHU_ENCRYPT_KEY is set');
  if (!secrets.verificationToken && !encrypted && signature !== 'verified') return refused(401, 'delivery not verifiable: no verification token or encrypt key');

  if (isChallenge) return { kind: 'challenge', challenge: String(payload.challenge ?? '') };
  if (header !== undefined) {
    return { kind: 'event', eventId: stringOf(header.event_id), eventType: stringOf(header.event_type), event: payload.event };
  }
  return { kind: 'event', eventId: stringOf(payload.uuid), eventType: stringOf(asObject(payload.event)?.type), event: payload.event ?? payload };
}

/**
 * `absent`: no signature, or none we hold the secret to check. The sha1 form is the SDK's
 * `checkIsCardEventValidated`: only for card callbacks with neither `encrypt` nor `schema` in the body.
 */
function checkSignature(request: WebhookRequest, body: Record<string, unknown>, secrets: EnvelopeSecrets, options: EnvelopeOptions): 'absent' | 'bad' | 'stale' | 'verified' {
  const signature = headerOf(request, 'x-lark-signature');
  const legacy = options.legacyCardSignature === true && !('encrypt' in body) && !('schema' in body);
  const secret = legacy ? secrets.verificationToken : secrets.encryptKey;
  if (signature === undefined || !secret) return 'absent';
  const timestamp = headerOf(request, 'x-lark-request-timestamp') ?? '';
  const nonce = headerOf(request, 'x-lark-request-nonce') ?? '';
  const expected = createHash(legacy ? 'sha1' : 'sha256').update(timestamp + nonce + secret + request.rawBody).digest('hex');
  if (!sameSignature(signature, expected)) return 'bad';
  const nowSeconds = (options.now ?? Date.now)() / 1000;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSeconds) > MAX_CLOCK_SKEW_SECONDS) return 'stale';
  return 'verified';
}

function refused(status: 400 | 401, reason: string): OpenedEnvelope {
  return { kind: 'refused', status, reason };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Feishu's encrypted event body: base64 of IV (16 bytes) then AES-256-CBC ciphertext, keyed by sha256(encryptKey). */
function decryptEvent(encryptKey: string, encrypted: string): string {
  const bytes = Buffer.from(encrypted, 'base64');
  const decipher = createDecipheriv('aes-256-cbc', createHash('sha256').update(encryptKey).digest(), bytes.subarray(0, 16));
  return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
}
