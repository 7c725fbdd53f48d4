'use strict';

const VALUES = [
  [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'],
  [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
];

function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) {
    throw new RangeError(`not in 1..3999: ${n}`);
  }
  let out = '';
  for (const [value, numeral] of VALUES) {
    while (n >= value) {
      out += numeral;
      n -= value;
    }
  }
  return out;
}

function fromRoman(text) {
  let total = 0;
  let rest = String(text);
  for (const [value, numeral] of VALUES) {
    while (rest.startsWith(numeral)) {
      total += value;
      rest = rest.slice(numeral.length);
    }
  }
  if (rest !== '' || total === 0 || toRoman(total) !== text) {
    throw new Error(`not a Roman numeral: ${text}`);
  }
  return total;
}

module.exports = { toRoman, fromRoman };
