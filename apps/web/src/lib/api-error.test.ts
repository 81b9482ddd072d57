import { describe, expect, it } from 'vitest';
import { ApiError, errorMessage, GENERIC_ERROR_MESSAGE, toApiError } from './api-error.ts';

describe('toApiError', () => {
  it('keeps the envelope: message, code, fields, requestId', () => {
    const error = toApiError(409, {
      message: 'A brand with this name already exists',
      code: 'conflict',
      fields: { name: 'A brand with this name already exists' },
      requestId: 'r1',
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(409);
    expect(error.message).toBe('A brand with this name already exists');
    expect(error.code).toBe('conflict');
    expect(error.fields).toEqual({ name: 'A brand with this name already exists' });
    expect(error.requestId).toBe('r1');
  });

  it('falls back to "Something went wrong" without a usable message', () => {
    expect(toApiError(500, undefined).message).toBe(GENERIC_ERROR_MESSAGE);
    expect(toApiError(500, 'oops').message).toBe(GENERIC_ERROR_MESSAGE);
    expect(toApiError(502, { message: '  ' }).message).toBe(GENERIC_ERROR_MESSAGE);
    expect(toApiError(400, { message: 42 }).message).toBe(GENERIC_ERROR_MESSAGE);
  });

  it('drops malformed fields', () => {
    expect(toApiError(400, { message: 'x', fields: { a: 'bad', b: 3 } }).fields).toEqual({ a: 'bad' });
    expect(toApiError(400, { message: 'x', fields: 'nope' }).fields).toBeUndefined();
  });
});

describe('errorMessage', () => {
  it('shows an ApiError message and hides anything else', () => {
    expect(errorMessage(new ApiError(429, 'Too many attempts'))).toBe('Too many attempts');
    expect(errorMessage(new TypeError('Failed to fetch'))).toBe(GENERIC_ERROR_MESSAGE);
    expect(errorMessage(undefined)).toBe(GENERIC_ERROR_MESSAGE);
  });
});
