import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time comparison of a received secret (or signature) with the expected one. Comparing sha256
 * digests gives both sides the same length, so neither the content nor the length of the secret leaks.
 */
export function sameSecret(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(received), digest(expected));
}
