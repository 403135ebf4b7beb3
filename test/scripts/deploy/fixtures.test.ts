// scripts/deploy/fixtures.ts without Docker: the fixture steps against two bundled mocks in this process,
// wired as deploy's stand-in wires them (one in the auth service's role, one in the homeserver's,
// delegating token introspection to the first). Proves the steps end to end and that the tokens and
// passwords they make are known to the redactor.
import t from 'tap'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { Redactor } from '../../../lib/redact.ts'
import { makePlan } from '../../../scripts/deploy/config.ts'
import { createFixtures } from '../../../scripts/deploy/fixtures.ts'
import { TokenSource } from '../../../scripts/deploy/oauth.ts'
import { freePort } from '../../../scripts/deploy/ports.ts'

t.test('createFixtures makes users, sessions, rooms, events and reports, and an admin token for the homeserver', async (t) => {
  const ports = { mas: await freePort('127.0.0.1'), homeserver: 0, postgres: 0 }
  ports.homeserver = await freePort('127.0.0.1', [ports.mas])
  ports.postgres = await freePort('127.0.0.1', [ports.mas, ports.homeserver])
  const plan = makePlan({ host: '127.0.0.1', ports, masTag: 'latest', homeserverTag: 'latest' })
  const mas = await startMock(
    mockOptions(
      {
        host: '127.0.0.1',
        port: ports.mas,
        logFile: null,
        reports: 0,
        adminClientId: plan.adminClient.id,
        adminClientSecret: plan.adminClient.secret,
      },
      {},
    ),
  )
  t.teardown(() => mas.close())
  const hs = await startMock(
    mockOptions(
      {
        host: '127.0.0.1',
        port: ports.homeserver,
        logFile: null,
        reports: 0,
        hsDelegateUrl: plan.masUrl.replace(/\/$/, ''),
        hsDelegateClientId: plan.adminClient.id,
        hsDelegateClientSecret: plan.adminClient.secret,
      },
      {},
    ),
  )
  t.teardown(() => hs.close())
  const redactor = new Redactor()
  const said: string[] = []
  const admin = new TokenSource({
    tokenUrl: new URL('oauth2/token', plan.masUrl).toString(),
    clientId: plan.adminClient.id,
    clientSecret: plan.adminClient.secret,
    scope: 'urn:mas:admin',
    onToken: (x) => redactor.add(x),
  })
  const f = await createFixtures({ plan, admin, redactor, say: (l) => said.push(l) }, { users: 3, messages: 2, reports: 3 })
  t.equal(f.users.length, 3)
  t.equal(f.rooms.length, 2)
  t.equal(f.events.length, 4)
  t.equal(f.reports, 3)
  t.ok(f.personalSessions >= 1)
  t.ok(f.oauthSessions >= 1)
  t.match(f.hsAdmin, { kind: /^(personal|client_credentials)$/ })
  t.match(said, [/^4 users, 3 compat sessions$/, /^2 rooms, 4 events, 3 reports, /])
  for (const u of f.users) t.equal(redactor.apply(u.compatToken), '[REDACTED]', `${u.username}'s token is known to the redactor`)
  const hsToken = f.hsAdmin.kind === 'client_credentials' ? await f.hsAdmin.source.token() : f.hsAdmin.token
  const res = await fetch(`${plan.homeserverUrl}_synapse/admin/v1/event_reports`, { headers: { authorization: `Bearer ${hsToken}` } })
  t.equal(res.status, 200)
  t.equal(((await res.json()) as { total: number }).total, 3, 'the homeserver holds the three reports')
})
