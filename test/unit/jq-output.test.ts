import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {formatResults, indentJson, jqMessage} from '../../src/cli/jq.js'

/** How the results of `--jq` are printed (src/cli/jq.ts), from jq's compact output. */

describe('the results of --jq', () => {
  it('print a string raw, null as an empty line, the rest as compact JSON, each on its own line', () => {
    const compact = ['"wal_1"', '"a\\"b\\nc"', 'null', 'true', '12', '1.5', '{"a":[1,2]}', '[]'].join('\n')
    expect(formatResults(compact, false)).toBe('wal_1\na"b\nc\n\ntrue\n12\n1.5\n{"a":[1,2]}\n[]\n')
    expect(formatResults('', false)).toBe('')
    expect(formatResults('""', false)).toBe('\n')
  })

  it('keep an integer beyond 2^53 as jq wrote it', () => {
    expect(formatResults('{"amount":123456789012345678901234}\n123456789012345678901234', false)).toBe(
      '{"amount":123456789012345678901234}\n123456789012345678901234\n',
    )
  })

  it('on a terminal, indent JSON and escape the control characters of a raw string', () => {
    expect(formatResults('{"a":[1,{}],"b":"x"}', true)).toBe(
      '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": "x"\n}\n',
    )
    expect(formatResults('"\\u001b]52;c;x\\u0007 ok\\n"', true)).toBe('\\x1b]52;c;x\\x07 ok\n\n')
    // Piped, a script gets the string exactly.
    expect(formatResults('"\\u001b[31m"', false)).toBe('\u001b[31m\n')
  })

  it('indent compact JSON as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(indentJson(JSON.stringify(value))).toBe(JSON.stringify(value, null, 2))
      }),
    )
  })
})

describe('jq’s messages', () => {
  it('lose jq’s own prefixes and its count of compile errors, and keep where the error is', () => {
    expect(
      jqMessage(
        'jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 2:\n    .[\n     ^\njq: 1 compile error',
      ),
    ).toBe('syntax error, unexpected end of file at <top-level>, line 1, column 2:\n    .[\n     ^')
    expect(jqMessage('jq: error (at /dev/stdin:0): null (null) cannot be parsed as a number')).toBe(
      'null (null) cannot be parsed as a number',
    )
    expect(jqMessage('jq: parse error: Unfinished JSON term at EOF at line 1, column 2')).toBe(
      'Unfinished JSON term at EOF at line 1, column 2',
    )
  })
})
