import { describe, expect, it } from 'vitest';
import { headerOf, sameSecret, sameSignature } from '../../../channels/shared/index.js';

describe('headerOf', () => {
  it('finds a header whatever case the client sent, and takes the first of repeated values', () => {
    const request = { rawBody: '', headers: { 'X-Lark-Signature': 'abc', 'x-multi': ['first', 'second'], 'x-empty': undefined } };
    expect(headerOf(request, 'x-lark-signature')).toBe('abc');
    expect(headerOf(request, 'x-multi')).toBe('first');
    expect(headerOf(request, 'x-empty')).toBeUndefined();
    expect(headerOf(request, 'x-missing')).toBeUndefined();
  });
});

describe.each([
  ['sameSecret', sameSecret],
  ['sameSignature', sameSignature],
])('%s', (_name, same) => {
  it('is true only for the exact secret, whatever the lengths, and again with its digest kept', () => {
    for (let round = 0; round < 2; round++) {
      expect(same('s3cret', 's3cret')).toBe(true);
      expect(same('s3cre', 's3cret')).toBe(false);
      expect(same('s3cret!', 's3cret')).toBe(false);
      expect(same('S3CRET', 's3cret')).toBe(false);
      expect(same('', 's3cret')).toBe(false);
      expect(same(undefined, 's3cret')).toBe(false);
      expect(same('other', 'other')).toBe(true);
      expect(same('s3cret', 'other')).toBe(false);
    }
  });
});
