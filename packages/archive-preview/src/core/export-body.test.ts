/** The export request's body: none or `{}`; anything else is 400 bad_request. */
import { isRefusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { checkExportBody, EXPORT_BODY_LIMIT } from './export-body.ts';

const code = (text: string) => {
  try {
    checkExportBody(text);
    return 'ok';
  } catch (err) {
    return isRefusal(err) ? err.code : String(err);
  }
};

describe('checkExportBody', () => {
  it('accepts no body, whitespace, and {}', () => {
    expect(['', '  \n', '{}', ' { } '].map(code)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('refuses text that is not JSON, other JSON values and objects with keys', () => {
    expect(['x', '[]', 'null', '1', '"{}"', '{"a":1}'].map(code)).toEqual(Array(6).fill('bad_request'));
  });

  it('refuses a body over the limit, even of whitespace', () => {
    expect(code(' '.repeat(EXPORT_BODY_LIMIT + 1))).toBe('bad_request');
    expect(code(' '.repeat(EXPORT_BODY_LIMIT))).toBe('ok');
  });
});
