import { createHash } from 'node:crypto';
import { AESCipher } from '@larksuiteoapi/node-sdk';
import type { WebhookRequest } from '../../src/core/index.js';
import { headerOf, sameSecret } from '../shared/index.js';

export interface EnvelopeSecrets {
  verificationToken: string | undefined;
  encryptKey: string | undefined;
}

export type OpenedEnvelope =
  | { kind: 'refused'; status: 400 | 401; reason: string }
  | { kind: 'challenge'; challenge: string }
  /** schema 2.0: `header.event_id` / `header.event_type`; 1.0: `uuid` / `event.type`. */
  | { kind: 'event'; eventId: string | undefined; eventType: string | undefined; event: unknown };

/**
 * Verifies and opens one HTTP delivery of Feishu's event (or card callback) subscription, working on the
 * raw body: the signature `X-Lark-Signature = sha256(timestamp + nonce + encryptKey + body)` is checked
 * when present; `{"encrypt": …}` bodies are decrypted with the SDK's AESCipher (AES-256-CBC, key
 * sha256(encryptKey), IV = first 16 bytes); the verification token (`token` in url_verification and 1.0,
 * `header.token` in 2.0) must match when configured. With neither a token nor an encrypt key configured
 * nothing proves a delivery came from Feishu, so everything is refused.
 * `legacyCardSignature`: old card callbacks (plain, no schema) are signed with sha1 and the verification token.
 */
export function openEnvelope(request: WebhookRequest, secrets: EnvelopeSecrets, options: { legacyCardSignature?: boolean } = {}): OpenedEnvelope {
  const body = parseObject(request.rawBody);
  if (body === undefined) return refused(400, 'malformed JSON');
  const encrypted = typeof body.encrypt === 'string';

  const signature = headerOf(request, 'x-lark-signature');
  let signatureVerified = false;
  if (signature !== undefined) {
    const signed = `${headerOf(request, 'x-lark-request-timestamp') ?? ''}${headerOf(request, 'x-lark-request-nonce') ?? ''}`;
    const legacy = options.legacyCardSignature === true && !encrypted && body.schema === undefined;
    const secret = legacy ? secrets.verificationToken : secrets.encryptKey;
    if (secret) {
      const expected = createHash(legacy ? 'sha1' : 'sha256').update(signed + secret + request.rawBody).digest('hex');
      if (!sameSecret(signature, expected)) return refused(401, 'bad signature');
      signatureVerified = true;
    }
  }

  let payload = body;
  if (encrypted) {
    if (!secrets.encryptKey) return refused(400, 'encrypted delivery but FEISHU_ENCRYPT_KEY is not set');
    let decrypted: string;
    try {
      decrypted = new AESCipher(secrets.encryptKey).decrypt(body.encrypt);
    } catch {
      return refused(401, 'cannot decrypt with FEISHU_ENCRYPT_KEY');
    }
    const inner = parseObject(decrypted);
    if (inner === undefined) return refused(400, 'decrypted body is not a JSON object');
    payload = inner;
  }

  const header = asObject(payload.header);
  const token = payload.type === 'url_verification' || header === undefined ? payload.token : header.token;
  if (secrets.verificationToken && (typeof token !== 'string' || !sameSecret(token, secrets.verificationToken))) return refused(401, 'bad verification token');
  if (!secrets.verificationToken && !encrypted && !signatureVerified) return refused(401, 'delivery not verifiable: no verification token or encrypt key');

  if (payload.type === 'url_verification') return { kind: 'challenge', challenge: String(payload.challenge ?? '') };
  if (header !== undefined) {
    return { kind: 'event', eventId: stringOf(header.event_id), eventType: stringOf(header.event_type), event: payload.event };
  }
  return { kind: 'event', eventId: stringOf(payload.uuid), eventType: stringOf(asObject(payload.event)?.type), event: payload.event ?? payload };
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
