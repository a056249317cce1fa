import { hash, timingSafeEqual } from 'node:crypto';

/** The digests of the configured secrets (a webhook's is compared on every request); a few per process. */
const expectedDigests = new Map<string, Buffer>();
const EXPECTED_LIMIT = 64;

/**
 * Constant-time comparison of a received secret with a configured one. Comparing sha256 digests gives both
 * sides the same length, so neither the content nor the length of the secret leaks. The configured secret's
 * digest is made once.
 */
export function sameSecret(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  return timingSafeEqual(digest(received), expectedDigest(expected));
}

/** The same comparison for a value computed per request (a signature), which is not worth keeping. */
export function sameSignature(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  return timingSafeEqual(digest(received), digest(expected));
}

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

function expectedDigest(expected: string): Buffer {
  let known = expectedDigests.get(expected);
  if (!known) {
    if (expectedDigests.size >= EXPECTED_LIMIT) expectedDigests.clear();
    known = digest(expected);
    expectedDigests.set(expected, known);
  }
  return known;
}
