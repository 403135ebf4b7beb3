// The cache of the suites' check names (scripts/run/engine/check-names.ts), which lets a --grep that matches no
// check be told at once: kept in the user's own cache folder, never the shared temporary folder, and read
// only when it is the user's own regular file of the shape the run writes. A file planted by another
// local user (which made every --grep report "no check matched") is ignored.
import t from 'tap'
import { chownSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { CheckNames, readNames } from '../../../../scripts/run/engine/check-names.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const scratch = mkdtempSync(path.join(tmpdir(), 'ac-check-names-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))

t.test("saved in the user's cache, read back there; nothing in the temporary folder", async (t) => {
  const before = readdirSync(tmpdir()).filter((n) => n.startsWith('admin-conformance-checks-'))
  const xdg = path.join(scratch, 'xdg')
  const saved = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = xdg
  t.teardown(() => (saved === undefined ? delete process.env.XDG_CACHE_HOME : (process.env.XDG_CACHE_HOME = saved)))
  const names = new CheckNames(ROOT)
  t.equal(names.of(['suites/admin/users.suite.ts']), undefined, 'nothing cached yet')
  names.remember('suites/admin/users.suite.ts', ['users: list', 'users: get'])
  names.save()
  t.same(new CheckNames(ROOT).of(['suites/admin/users.suite.ts']), ['users: list', 'users: get'], 'read back by the next run')
  const own = readdirSync(path.join(xdg, 'admin-conformance'))
  t.equal(own.length, 1, "under the user's cache")
  t.same(
    readdirSync(tmpdir()).filter((n) => n.startsWith('admin-conformance-checks-')),
    before,
    'no file in the temporary folder',
  )
})

t.test('only a file of the shape the run writes, owned by the user, not a link, is read', async (t) => {
  const file = (name: string, text: string) => {
    const f = path.join(scratch, name)
    writeFileSync(f, text)
    return f
  }
  t.same(readNames(file('good.json', '{"a.suite.ts":["x","y"]}')), { 'a.suite.ts': ['x', 'y'] }, 'a file the run wrote')
  t.same(readNames(file('array.json', '[["x"]]')), {}, 'an array')
  t.same(readNames(file('numbers.json', '{"a.suite.ts":[1,2]}')), {}, 'names that are no strings')
  t.same(readNames(file('scalar.json', '{"a.suite.ts":"x"}')), {}, 'a list that is no list')
  t.same(readNames(file('broken.json', '{"a.suite.ts":')), {}, 'not JSON')
  t.same(readNames(file('proto.json', '{"__proto__":["x"]}'))['a.suite.ts' as string], undefined, 'no name leaks through the prototype')
  const link = path.join(scratch, 'link.json')
  symlinkSync(path.join(scratch, 'good.json'), link)
  t.same(readNames(link), {}, 'a link (planted in place of the file) is not followed')
  t.same(readNames(file('huge.json', `{"a":[${'"x",'.repeat(1_200_000)}"x"]}`)), {}, 'an oversized file is not read')
  if (process.getuid?.() === 0) {
    const planted = file('planted.json', '{"suites/admin/users.suite.ts":[]}')
    chownSync(planted, 65534, 65534)
    t.same(readNames(planted), {}, "another user's file is not read")
    // the attack: another user's file under the name the run reads, claiming every file has no check
    const dir = mkdtempSync(path.join(scratch, 'cache-'))
    const mine = new CheckNames(ROOT, dir)
    mine.remember('suites/admin/users.suite.ts', [])
    mine.save()
    const [name] = readdirSync(dir)
    t.same(new CheckNames(ROOT, dir).of(['suites/admin/users.suite.ts']), [], 'my own file is read')
    chownSync(path.join(dir, name!), 65534, 65534)
    t.equal(new CheckNames(ROOT, dir).of(['suites/admin/users.suite.ts']), undefined, "the same file, another user's: not read")
  }
})
