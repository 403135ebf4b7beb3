// lib/types.gen.ts must be what scripts/dev/gen-types.ts generates from the schemas as they are now.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { generateTypes, TYPES_FILE } from '../../scripts/dev/gen-types.ts'
import { listSchemaRefs, schemaName } from '../../lib/schemas.ts'

t.test('lib/types.gen.ts is up to date (else run: npm run gen:types)', async (t) => {
  const fresh = await generateTypes()
  const current = readFileSync(TYPES_FILE, 'utf8')
  if (fresh === current) {
    t.pass('up to date')
    return
  }
  // Name the first differing line so the failure says what changed.
  const a = current.split('\n')
  const b = fresh.split('\n')
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  t.fail(
    `lib/types.gen.ts is stale from line ${i + 1}: has ${JSON.stringify(a[i] ?? '<end>')}, generator gives ${JSON.stringify(b[i] ?? '<end>')}. Run npm run gen:types.`,
  )
})

t.test('one exported type per schema, under its flat name', async (t) => {
  const text = readFileSync(TYPES_FILE, 'utf8')
  for (const ref of listSchemaRefs()) {
    const name = schemaName(ref)
    t.match(text, new RegExp(`^export (type|interface) ${name}\\b`, 'm'), `${ref} -> ${name}`)
    t.match(text, `  '${ref}': ${name}\n`, `${ref} is in SchemaTypes`)
  }
  for (const name of [
    'CompatSessionAttributes',
    'CompatSessionSingle',
    'CompatSessionPage',
    'EventReportListItem',
    'PersonalSessionCreated',
    'SiteConfig',
    'AdminError',
  ]) {
    t.match(text, new RegExp(`^export (type|interface) ${name}\\b`, 'm'), name)
  }
  // The generator numbers copies of a type it failed to share (ULID1, ULID2, ...): there must be none.
  const names = new Set(listSchemaRefs().map((r) => schemaName(r)))
  const exported = [...text.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1] as string)
  const copies = exported.filter((n) => !names.has(n) && names.has(n.replace(/\d+$/, '')))
  t.same(copies, [], 'no numbered duplicate types')
  t.same(
    exported.filter((n) => !names.has(n)),
    ['SchemaTypes', 'SchemaRef'],
    'no types beyond one per schema and the ref table',
  )
})

t.test('the generated types say what the schemas say', async (t) => {
  const text = readFileSync(TYPES_FILE, 'utf8')
  t.match(text, /export type PersonalSessionAttributes = \{\n\s+access_token\?: never\n\}/, 'no token outside the 201')
  t.match(text, /export type PersonalSessionCreatedAttributes = \{\n\s+access_token: PersonalSessionAccessToken\n\}/, 'a token in the 201')
  t.match(text, /user_id: AdminCommonULID \| null/, 'nullable ULIDs')
  t.match(text, /export type CompatSessionStatus = 'active' \| 'finished'/)
  t.match(text, /next_token\?: number/)
})
