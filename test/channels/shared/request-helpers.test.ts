import { describe, expect, it } from 'vitest';
import { headerOf, sameSecret } from '../../../channels/shared/index.js';

describe('headerOf', () => {
  it('finds a header whatever case the client sent, and takes the first of repeated values', () => {
    const request = { rawBody: '', headers: { 'X-Lark-Signature': 'abc', 'x-multi': ['first', 'second'], 'x-empty': undefined } };
    expect(headerOf(request, 'x-lark-signature')).toBe('abc');
    expect(headerOf(request, 'x-multi')).toBe('first');
    expect(headerOf(request, 'x-empty')).toBeUndefined();
    expect(headerOf(request, 'x-missing')).toBeUndefined();
  });
});

describe('sameSecret', () => {
  it('is true only for the exact secret, whatever the lengths', () => {
    expect(sameSecret('s3cret', 's3cret')).toBe(true);
    expect(sameSecret('s3cre', 's3cret')).toBe(false);
    expect(sameSecret('s3cret!', 's3cret')).toBe(false);
    expect(sameSecret('S3CRET', 's3cret')).toBe(false);
    expect(sameSecret('', 's3cret')).toBe(false);
    expect(sameSecret(undefined, 's3cret')).toBe(false);
  });
});
