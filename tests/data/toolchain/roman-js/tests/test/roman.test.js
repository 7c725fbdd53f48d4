'use strict';

const { describe, it } = require('node:test');
const assert = require('node:assert');
const { toRoman, fromRoman } = require('../src/roman.js');

describe('toRoman', () => {
  it('small numbers', () => {
    assert.strictEqual(toRoman(1), 'I');
    assert.strictEqual(toRoman(3), 'III');
    assert.strictEqual(toRoman(8), 'VIII');
  });
  it('subtractive forms', () => {
    assert.strictEqual(toRoman(4), 'IV');
    assert.strictEqual(toRoman(1994), 'MCMXCIV');
    assert.strictEqual(toRoman(3999), 'MMMCMXCIX');
  });
});

describe('fromRoman', () => {
  it('round trip', () => {
    for (const n of [1, 4, 9, 14, 40, 90, 400, 1994, 3999]) {
      assert.strictEqual(fromRoman(toRoman(n)), n);
    }
  });
  it('rejects bad numerals', () => {
    for (const bad of ['IIII', 'ABC', '', 'VX']) {
      assert.throws(() => fromRoman(bad), Error);
    }
  });
});
