// A file's memos end with the file: a suite worker runs every file in one process and never unloads a
// file's module, so a memo left in place (a walk of up to 1,200 items and its pages' schema results) stayed
// alive for the rest of the run, one file's worth after another (the hostile-target bench's worker heap
// grew from 15 to 160 MiB over a run against endless 3.9 MB pages). Not timed: whether the value is
// collectable once the file's teardown ran.
import t from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const FIXTURE = fileURLToPath(new URL('../../fixtures/suites/memo.fixture.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

t.test('a memoized value is released when the file ends', async (t) => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), AC_MAS_ADMIN_TOKEN: 'mat_fixtureAAAAAAAAAAAAAA' }
  env.AC_TARGET = JSON.stringify({
    mas: { url: 'http://127.0.0.1:9' },
    hs: { url: 'http://127.0.0.1:9' },
    versions: { mas: 'v1.22.0', hs: '1.160.0' },
    runId: 'fixture',
  })
  delete env.AC_TARGETS
  delete env.TAP
  const out = await new Promise<string>((resolve) => {
    execFile(process.execPath, ['--expose-gc', '--import=tsx', FIXTURE], { cwd: ROOT, env, timeout: 60_000 }, (_e, stdout) =>
      resolve(String(stdout)),
    )
  })
  t.match(out, /^ok \d+ - fx: memoizes 8 MiB( # time=.*)?$/m, 'the check passed (the memo served its second call)')
  t.match(out, /^# memo-after-file: released$/m, 'nothing keeps the memoized value once the file ended', { out })
  // (each store left enabled would copy itself onto every promise of the later files of a worker)
  t.match(out, /^# stores-after-file: ended$/m, "the framework's async stores are disabled once the file ended", { out })
})
