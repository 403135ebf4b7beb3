// The version data files validate against their schemas (Ajv 2020-12 used directly, strict), the schemas
// reject broken rows, and the tables agree with the shared interface document and reference.
import t from 'tap'
import { sharedSkip } from '../../fixtures/shared.ts'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { allChanges, rollbackTable, formatVersion } from '../../../lib/versions.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SHARED = fileURLToPath(new URL('../../../../shared/', import.meta.url))
const NAMES = ['rollback-ranges', 'homeserver-changes', 'mas-features', 'synapse-features'] as const

const readJson = (rel: string): any => JSON.parse(readFileSync(ROOT + rel, 'utf8'))
const schemas = Object.fromEntries(NAMES.map((n) => [n, readJson(`schemas/versions/${n}.json`)]))
const data = Object.fromEntries(NAMES.map((n) => [n, readJson(`lib/data/${n}.json`)]))

const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
for (const n of NAMES) ajv.addSchema(schemas[n])
const validatorOf = (n: (typeof NAMES)[number]) => {
  const v = ajv.getSchema(`https://admin-conformance.invalid/schemas/versions/${n}.json`)
  if (!v) throw new Error(`schema ${n} not found`)
  return v
}
const clone = <T>(x: T): T => structuredClone(x)

t.test('schemas are draft 2020-12 with $id = base + path under schemas/', async (t) => {
  for (const n of NAMES) {
    t.equal(schemas[n].$schema, 'https://json-schema.org/draft/2020-12/schema', n)
    t.equal(schemas[n].$id, `https://admin-conformance.invalid/schemas/versions/${n}.json`, n)
    t.type(validatorOf(n), 'function', `${n} compiles in strict mode`)
  }
})

t.test('data files validate against their schemas', async (t) => {
  for (const n of NAMES) {
    const v = validatorOf(n)
    t.ok(v(data[n]), `${n}: ${JSON.stringify(v.errors)}`)
    t.equal(data[n].$schema, `../../schemas/versions/${n}.json`, `${n} points at its schema`)
  }
})

t.test('schemas reject broken data', async (t) => {
  const cases: [(typeof NAMES)[number], string, (d: any) => void][] = [
    [
      'rollback-ranges',
      'a version without v',
      (d) => {
        d.tables.interface.rows[0].from = '1.0.0'
      },
    ],
    [
      'rollback-ranges',
      'a two-part version',
      (d) => {
        d.tables.interface.rows[0].floor = 'v1.0'
      },
    ],
    [
      'rollback-ranges',
      'an rc version',
      (d) => {
        d.tables.reference.rows[0].to = 'v1.2.1rc1'
      },
    ],
    [
      'rollback-ranges',
      'a row without source',
      (d) => {
        delete d.tables.interface.rows[3].source
      },
    ],
    [
      'rollback-ranges',
      'an unknown source',
      (d) => {
        d.tables.interface.rows[3].source = 'blog'
      },
    ],
    [
      'rollback-ranges',
      'a missing table',
      (d) => {
        delete d.tables.reference
      },
    ],
    [
      'rollback-ranges',
      'an empty table',
      (d) => {
        d.tables.interface.rows = []
      },
    ],
    [
      'rollback-ranges',
      'an extra row field',
      (d) => {
        d.tables.interface.rows[0].until = 'v1.0.0'
      },
    ],
    [
      'homeserver-changes',
      'an unknown action kind',
      (d) => {
        d.rows[0].actions[0].kind = 'config-renamed'
      },
    ],
    [
      'homeserver-changes',
      'a config action without key',
      (d) => {
        delete d.rows.find((r: any) => r.version === 'v1.73.0').actions[0].key
      },
    ],
    [
      'homeserver-changes',
      'an endpoint removal without path',
      (d) => {
        delete d.rows.find((r: any) => r.version === 'v1.42.0').actions[0].path
      },
    ],
    [
      'homeserver-changes',
      'a minimum version without component',
      (d) => {
        delete d.rows.find((r: any) => r.version === 'v1.72.0').actions[0].component
      },
    ],
    [
      'homeserver-changes',
      'a module action with a bad status',
      (d) => {
        d.rows.find((r: any) => r.version === 'v1.71.0').actions[0].status = 'gone'
      },
    ],
    [
      'homeserver-changes',
      'a row without actions',
      (d) => {
        d.rows[0].actions = []
      },
    ],
    [
      'homeserver-changes',
      'a row without section',
      (d) => {
        delete d.rows[0].section
      },
    ],
    [
      'homeserver-changes',
      'an action without detail',
      (d) => {
        delete d.rows[0].actions[0].detail
      },
    ],
    [
      'homeserver-changes',
      'a stray field on an action',
      (d) => {
        d.rows[0].actions[0].colour = 'red'
      },
    ],
    [
      'mas-features',
      'a feature with neither since nor until',
      (d) => {
        delete d.features['site-config'].since
      },
    ],
    [
      'mas-features',
      'a bad feature name',
      (d) => {
        d.features['Site Config'] = d.features['site-config']
      },
    ],
    [
      'mas-features',
      'a feature without source',
      (d) => {
        delete d.features['site-config'].source
      },
    ],
    [
      'synapse-features',
      'the wrong product',
      (d) => {
        d.product = 'mas'
      },
    ],
    [
      'synapse-features',
      'a bad until',
      (d) => {
        d.features['server-version-python-version'].until = '1.94'
      },
    ],
  ]
  for (const [n, what, mutate] of cases) {
    const d = clone(data[n])
    mutate(d)
    t.notOk(validatorOf(n)(d), `${n}: ${what} is rejected`)
  }
})

// Cross-checks against the shared documents (beside the project, as in every checkout and CI run).
const INTERFACE_MD = `${SHARED}spec/interface.md`
const REFERENCE_MD = `${SHARED}reference/synapse-admin-api.md`

const norm = (v: string): string => (/^v\d+\.\d+$/.test(v) ? `${v}.0` : v)

t.test('interface rows equal spec/interface.md', { skip: sharedSkip(t, INTERFACE_MD) }, async (t) => {
  const md = readFileSync(INTERFACE_MD, 'utf8')
  const section = md.split('### Rollback ranges of the homeserver')[1]?.split('###')[0] ?? ''
  const docRows = [...section.matchAll(/^- (v[\d.]+) to (v[\d.]+): (v[\d.]+)$/gm)].map((m) => [m[1], m[2], m[3]])
  t.ok(docRows.length >= 16, 'the document lists the rollback rows')
  const ours = rollbackTable({ table: 'interface' }).rows.map((r) => [
    formatVersion(r.from),
    r.to && formatVersion(r.to),
    formatVersion(r.floor),
  ])
  t.same(ours, docRows)

  const changes = md.split('### Interface-relevant changes by version')[1] ?? ''
  const docVersions = [...changes.matchAll(/^\| (v[\d.]+) \|/gm)].map((m) => norm(m[1]!)).sort()
  const ourVersions = allChanges()
    .filter((r) => r.source === 'interface' && r.section.includes('Interface-relevant changes by version'))
    .map((r) => r.version)
    .sort()
  t.same(ourVersions, docVersions, 'one row per version of the interface table')
  t.ok(
    allChanges().some((r) => r.version === 'v1.24.0' && r.source === 'interface'),
    'v1.24.0 (Versioning section) is carried',
  )
})

t.test('reference rows equal synapse-admin-api.md §4.1', { skip: sharedSkip(t, REFERENCE_MD) }, async (t) => {
  const md = readFileSync(REFERENCE_MD, 'utf8')
  const docRows = [...md.matchAll(/^\| (v[\d.]+) – (v[\d.]+) \| (v[\d.]+) \|$/gm)].map((m) => [m[1], m[2], m[3]])
  t.ok(docRows.length >= 17, 'the reference lists the rollback rows')
  const table = rollbackTable({ table: 'reference' })
  // The reference saw tags up to its last row's end; our open-ended row was observed further (v1.160.0's
  // installed schema compatibility version), so only its start and floor are compared with the document.
  const ours = table.rows.map((r) => [formatVersion(r.from), r.to ? formatVersion(r.to) : docRows.at(-1)![1], formatVersion(r.floor)])
  t.same(ours, docRows, 'the rows equal the reference, the open-ended one up to the newest release the reference saw')
  t.equal(formatVersion(table.observedUpTo!), 'v1.160.0', 'observed up to v1.160.0 (SCHEMA_COMPAT_VERSION 84 in its installed code)')
  t.equal(table.rows.at(-1)?.to, null, 'the newest row is open-ended')
})
