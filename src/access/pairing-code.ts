import { randomInt } from 'node:crypto';

/** Upper-case letters and digits without the look-alikes 0/O, 1/I/L: 31 symbols. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;

/** A code from a cryptographically secure source (`crypto.randomInt`: uniform, no modulo bias). */
export function generatePairingCode(randomIndex: (size: number) => number = randomInt): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index++) code += PAIRING_ALPHABET[randomIndex(PAIRING_ALPHABET.length)];
  return code;
}

/** What an operator typed → the stored form: case, spaces and dashes do not matter. Undefined if it cannot be a code. */
export function normalizePairingCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== PAIRING_CODE_LENGTH) return undefined;
  return [...code].every((character) => PAIRING_ALPHABET.includes(character)) ? code : undefined;
}
