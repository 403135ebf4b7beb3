// The configuration files' YAML (the yaml package, with the options in scripts/deploy/config.ts): what it writes reads back as the same value, in YAML 1.2 (the auth service) and, where
// Python's PyYAML is installed, in YAML 1.1 as the homeserver reads it.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { parse as parseYaml } from 'yaml'
import { configYaml as toYaml } from '../../../scripts/deploy/config.ts'
import { delegationMode, homeserverKind, splitImage } from '../../../scripts/deploy/versions.ts'
import { parseVersionTag as tagVersion } from '../../../lib/versions.ts'

const tricky = {
  plain: 'value',
  yes: 'no',
  on: true,
  'needs quoting: yes': 'a: b # not a comment',
  numberish: '1.0',
  octalish: '0777',
  nullish: 'null',
  empty: '',
  multiline: '-----BEGIN KEY-----\nabc\n-----END KEY-----\n',
  unicode: 'é ✓ \u0000 \t',
  n: 42,
  f: -1.5,
  b: false,
  z: null,
  emptyList: [],
  emptyMap: {},
  list: [1, 'two', null, { a: 1, b: [true, { c: 'd' }] }, [], {}, ['nested', ['deeper']]],
  map: { inner: { deeper: [{ x: 1 }] } },
}

t.test('round trip through YAML 1.2', async (t) => {
  t.same(parseYaml(toYaml(tricky)), tricky)
  t.same(parseYaml(toYaml([])), [])
  t.same(parseYaml(toYaml({})), {})
  t.same(parseYaml(toYaml('x')), 'x')
  t.match(toYaml({ a: 1 }, 'header line'), /^# header line\n\na: 1\n$/)
  t.same(parseYaml(toYaml({ skipped: undefined, kept: 1 })), { kept: 1 }, 'undefined members are left out')
})

t.test('bad input is refused with a clear error', async (t) => {
  t.throws(() => toYaml({ n: Number.NaN }), /cannot write NaN/)
  t.throws(() => toYaml({ f: () => 1 }), /cannot write a function/)
})

const pyyaml = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0

t.test(
  'round trip through PyYAML (YAML 1.1, as the homeserver reads it)',
  { skip: pyyaml ? false : 'python3 with PyYAML not installed' },
  async (t) => {
    const r = spawnSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], {
      input: toYaml(tricky),
      encoding: 'utf8',
    })
    t.equal(r.status, 0, r.stderr)
    t.same(JSON.parse(r.stdout), tricky)
  },
)

t.test('versions from image tags', async (t) => {
  t.same(tagVersion('v1.136.0'), { major: 1, minor: 136, patch: 0 })
  t.same(tagVersion('1.135.2-debug'), { major: 1, minor: 135, patch: 2 })
  t.same(tagVersion('1.20'), { major: 1, minor: 20, patch: 0 })
  for (const tag of ['latest', 'main', 'develop', 'sha-abc123']) t.equal(tagVersion(tag), undefined, tag)
  t.equal(delegationMode('latest'), 'stable')
  t.equal(delegationMode('v1.136.0'), 'stable')
  t.equal(delegationMode('v1.135.9'), 'msc3861')
  t.equal(homeserverKind('latest', 'stable'), 'synapse')
  t.equal(homeserverKind('v1.3.0', 'msc3861'), 'synapse_legacy')
  t.equal(homeserverKind('0.16.0', 'msc3861'), 'synapse')
  t.same(splitImage('ghcr.io/element-hq/matrix-authentication-service:1.2.0'), {
    repository: 'ghcr.io/element-hq/matrix-authentication-service',
    tag: '1.2.0',
  })
  t.same(splitImage('localhost:5000/synapse'), { repository: 'localhost:5000/synapse', tag: 'latest' })
  t.same(splitImage('x@sha256:abc'), { repository: 'x', tag: 'sha256:abc' })
})
