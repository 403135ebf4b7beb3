// The --state journal holds every token and the admin client's secret: created 0600 in a 0700
// directory; an existing journal open to others is tightened (with a warning), an existing
// directory open to others is left alone with a warning.
import t from 'tap'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

const mode = (p: string) => statSync(p).mode & 0o777

t.test('a new state directory and journal are the owner’s alone', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'journal-modes-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const dir = join(root, 'state')
  const mock = await startMock(mockOptions({ port: 0, sessions: 3, reports: 1, logFile: null, stateDir: dir }, {}))
  t.equal(mode(dir), 0o700, 'directory 0700')
  t.equal(mode(join(dir, 'journal')), 0o600, 'journal 0600')
  t.ok(readFileSync(join(dir, 'journal')).includes(mock.options.adminClientSecret), 'it does hold the secret')
  mock.reseed({ sessions: 6 })
  t.equal(mode(join(dir, 'journal')), 0o600, 'a reseeded journal too')
  await mock.close()
})

t.test('existing ones open to others: the journal is tightened, the directory warned about', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'journal-modes-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const dir = join(root, 'state')
  const logFile = join(root, 'mock.log')
  const first = await startMock(mockOptions({ port: 0, sessions: 3, reports: 1, logFile: null, stateDir: dir }, {}))
  const opts = first.options
  await first.close()
  // As an older mock left them.
  chmodSync(dir, 0o755)
  chmodSync(join(dir, 'journal'), 0o644)
  const again = await startMock(mockOptions({ ...opts, port: 0, logFile, stateDir: dir }, {}))
  t.equal(mode(join(dir, 'journal')), 0o600, 'journal tightened to 0600')
  t.equal(mode(dir), 0o755, 'the directory is left as it is')
  await again.close()
  const log = readFileSync(logFile, 'utf8')
  t.match(log, /state journal .* was readable by other users \(mode 0644\); it holds tokens and secrets, so it is now 0600/)
  t.match(log, /state directory .* is open to other users \(mode 0755\).*chmod 700/)
})
