// The one escaper of a target's or a log's text (lib/escape.ts): what is escaped, how, and what is kept.
import t from 'tap'
import { mapStrings, streamSafe, visible, visibleDeep } from '../../lib/escape.ts'

t.test('visible: every control, format and separator character as a visible escape', async (t) => {
  t.equal(visible('plain text, ünïcödé, 😀'), 'plain text, ünïcödé, 😀', 'printable text as it is')
  t.equal(visible('\u001b[2J\u001b]0;t\u0007\r\b\t\u007f'), '\\x1b[2J\\x1b]0;t\\x07\\r\\x08\\t\\x7f', 'C0 and DEL')
  t.equal(visible('\u0085\u009b31m'), '\\x85\\x9b31m', 'C1')
  t.equal(
    visible('a\u202eb\u202ac\u2066d\u2069e\u200bf\ufeffg\u00adh'),
    'a\\u202eb\\u202ac\\u2066d\\u2069e\\u200bf\\ufeffg\\xadh',
    'bidi overrides and isolates, zero-width and other format characters',
  )
  t.equal(visible('a\u2028b\u2029c'), 'a\\u2028b\\u2029c', 'line and paragraph separators')
  t.equal(visible('tag\u{e0041}'), 'tag\\u{e0041}', 'a format character beyond the BMP')
  t.equal(visible('one\ntwo'), 'one\\ntwo', "a newline is escaped by default (the target's: it could fake a line)")
  t.equal(visible('one\ntwo\r', { newlines: 'keep' }), 'one\ntwo\\r', 'and kept where it is structural')
  t.equal(visible('\\x1b'), '\\x1b', 'backslashes are not doubled')
})

t.test('visibleDeep and mapStrings: every string inside, keys too; the input untouched', async (t) => {
  const v = { 'k\u0007': ['a\u001b', { b: 'c\u202e' }], n: 1, nil: null }
  t.same(visibleDeep(v), { 'k\\x07': ['a\\x1b', { b: 'c\\u202e' }], n: 1, nil: null })
  t.same(v, { 'k\u0007': ['a\u001b', { b: 'c\u202e' }], n: 1, nil: null }, 'a copy')
  const re = /x/
  t.equal((mapStrings({ re }, (s) => s + '!') as Record<string, RegExp>)['re!'], re, 'objects of a class kept as they are')
})

t.test('streamSafe: \\uXXXX escapes that keep their meaning in YAML and JSON; newlines kept', async (t) => {
  t.equal(streamSafe('ok 1 - a\u2028b\n  found: "\u001b"\n'), 'ok 1 - a\\u2028b\n  found: "\\u001b"\n')
  const json = JSON.stringify({ s: 'a\u2028\u202e\u0085b' })
  t.equal(JSON.parse(streamSafe(json)).s, 'a\u2028\u202e\u0085b', 'a JSON text keeps its values')
  t.notMatch(streamSafe(json), /[\u2028\u202e\u0085]/u, 'with no raw character left')
  t.equal(streamSafe('plain\n'), 'plain\n')
  // The edges of the printable-ASCII shortcut: DEL, a tab and CR are not printable; a space and '~' are.
  t.equal(streamSafe('a\u007fb\tc\rd'), 'a\\u007fb\\u0009c\\u000dd')
  t.equal(streamSafe(' ~\n'), ' ~\n')
  t.equal(streamSafe('ascii, then soft\u00adhyphen'), 'ascii, then soft\\u00adhyphen', 'a format character past ASCII')
})
