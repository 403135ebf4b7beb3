// The WebAssembly scanner shares its literals and activity numbers with the JavaScript side through
// a generated file; the output schema lists the activities. Neither may drift from the tables.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { WASM_CONSTANTS } from '../../../../scripts/audit-log/wasm/build.ts'
import { wasmConstantsSource } from '../../../../scripts/audit-log/wasm/constants.ts'
import { ACTIVITIES } from '../../../../scripts/audit-log/index.ts'
import { ADMIN_PREFIXES } from '../../../../scripts/audit-log/admin-actions.ts'
import { FIELD, RESPONSE_EVENT_NAME, STATS_LABELS } from '../../../../lib/requestlog/grammar.ts'

const WASM_DIR = fileURLToPath(new URL('../../../../scripts/audit-log/wasm/assembly/', import.meta.url))
const SOURCES = readdirSync(WASM_DIR).filter((f) => f.endsWith('.ts') && f !== 'constants.gen.ts')

t.test('wasm/assembly/constants.gen.ts is what the JavaScript side says', async (t) => {
  t.equal(readFileSync(WASM_CONSTANTS, 'utf8'), wasmConstantsSource(), 'up to date (else run `npm run build:wasm` and commit the result)')
  const gen = wasmConstantsSource()
  t.match(gen, `export const ACTIVITIES: i32 = ${ACTIVITIES.length}\n`)
  t.match(gen, `export const A_OTHER: i32 = ${ACTIVITIES.indexOf('other')}\n`)
  t.match(gen, `export const S_RESPONSE: string = ${JSON.stringify(` ${RESPONSE_EVENT_NAME} `)}\n`)
  t.match(gen, `export const S_OPTYPE: string = ${JSON.stringify(` ${FIELD.graphqlOperationType}=`)}\n`)
  t.match(gen, `export const S_FETCHED: string = ${JSON.stringify(STATS_LABELS.fetched)}\n`)
  t.match(gen, `export const P_ADMIN_HS: string = ${JSON.stringify(ADMIN_PREFIXES[1])}\n`)
})

t.test('the AssemblyScript source copies no constant of the JavaScript side', async (t) => {
  t.ok(SOURCES.includes('audit-scan.ts') && SOURCES.length >= 5, `the module's sources: ${SOURCES.join(', ')}`)
  for (const file of SOURCES) {
    const src = readFileSync(WASM_DIR + file, 'utf8')
    const code = src.split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l))
    // Activity numbers, the requester placeholders, paths and field names come from constants.gen.ts.
    t.notOk(
      code.some((l) => /const A_[A-Z_]+: i32 = \d/.test(l)),
      `${file}: no activity number`,
    )
    t.notOk(
      code.some((l) => /lit\(['"]/.test(l)),
      `${file}: no literal string handed to lit()`,
    )
    t.notOk(
      code.some((l) => /memory\.data<u8>\(\[/.test(l)),
      `${file}: no byte-array copy of a name`,
    )
    for (const s of [
      'http.server.response',
      'requester=',
      'client.address',
      'graphql.operation',
      'trace.id=',
      '/oauth2/',
      '/api/admin/',
      '(none)',
      '(unknown)',
      '(unnamed)',
    ]) {
      t.notOk(
        code.some((l) => l.includes(`'${s}`) || l.includes(`"${s}`)),
        `${file}: no string literal starting ${s}`,
      )
    }
  }
  t.match(readFileSync(WASM_DIR + 'audit-scan.ts', 'utf8'), /from '\.\/constants\.gen'/, 'it imports the generated constants')
})

t.test('the output schema lists exactly the activities', async (t) => {
  const schema = JSON.parse(readFileSync(new URL('../../../../schemas/requestlog/audit-result.json', import.meta.url), 'utf8'))
  t.same(schema.$defs.Activity.enum, [...ACTIVITIES], 'Activity enum')
  t.same(schema.$defs.ActivityCounts.required, [...ACTIVITIES], 'every count is required')
  t.same(Object.keys(schema.$defs.ActivityCounts.properties), [...ACTIVITIES])
  t.equal(schema.$defs.ActivityOutcomes.minProperties, ACTIVITIES.length)
})
