// Where the package's built code is and where its commands may write (lib/package-paths.mjs): the
// user's cache is a folder of the user's own (0700, not a link, not another user's), and dist/ is the
// code that runs only in a packed package, never in a checkout (whose sources are the truth).
import t from 'tap'
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { packageCacheDir, prebuiltDir, privateDir, userCacheDir } from '../../lib/package-paths.mjs'

const scratch = mkdtempSync(path.join(tmpdir(), 'ac-package-paths-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))

t.test('the user cache: under XDG_CACHE_HOME, else ~/.cache; made 0700', async (t) => {
  const xdg = path.join(scratch, 'xdg')
  const dir = userCacheDir({ XDG_CACHE_HOME: xdg })
  t.equal(dir, path.join(xdg, 'admin-conformance'))
  t.equal(statSync(dir).mode & 0o777, 0o700, 'closed to others')
  t.equal(
    userCacheDir({ XDG_CACHE_HOME: 'relative/cache' }).startsWith(path.join(process.env.HOME ?? '', '.cache')),
    true,
    'a relative XDG_CACHE_HOME is ignored, as the spec says',
  )
  const own = packageCacheDir('suites', '/some/install', { XDG_CACHE_HOME: xdg })
  t.match(path.relative(dir, own), /^[0-9a-f]{16}[\\/]suites$/, 'one folder per copy of the package, then per kind')
  t.equal(statSync(own).mode & 0o777, 0o700)
  t.not(packageCacheDir('suites', '/another/install', { XDG_CACHE_HOME: xdg }), own, 'another copy, another folder')
})

t.test('a cache folder that is open, a link, or not ours is not trusted', async (t) => {
  const open = path.join(scratch, 'open')
  mkdirSync(open, { mode: 0o777 })
  privateDir(open)
  t.equal(statSync(open).mode & 0o777, 0o700, 'an open folder of ours is closed')
  const target = path.join(scratch, 'elsewhere')
  mkdirSync(target)
  const link = path.join(scratch, 'planted-link')
  symlinkSync(target, link)
  t.throws(() => privateDir(link), /not a folder/, 'a link planted in its place is refused')
  if (process.getuid?.() === 0) {
    const theirs = path.join(scratch, 'theirs')
    mkdirSync(theirs, { mode: 0o700 })
    chownSync(theirs, 65534, 65534)
    t.throws(() => privateDir(theirs), /belongs to another user/, "another user's folder is refused")
  }
})

t.test('dist/ runs only in a packed package: not in a checkout, unless asked', async (t) => {
  const pkg = path.join(scratch, 'pkg')
  mkdirSync(path.join(pkg, 'dist'), { recursive: true })
  t.equal(prebuiltDir(pkg, {}), undefined, 'no build.json: no build')
  writeFileSync(path.join(pkg, 'dist', 'build.json'), '{}')
  t.equal(prebuiltDir(pkg, {}), path.join(pkg, 'dist'), 'an installed package runs its build')
  t.equal(prebuiltDir(pkg, { AC_PREBUILT: '0' }), undefined, 'AC_PREBUILT=0 ignores it')
  writeFileSync(path.join(pkg, '.git'), 'gitdir: elsewhere\n')
  t.equal(prebuiltDir(pkg, {}), undefined, 'a checkout runs its sources, even with a build left by npm pack')
  t.equal(prebuiltDir(pkg, { AC_PREBUILT: '1' }), path.join(pkg, 'dist'), 'unless AC_PREBUILT=1')
})
