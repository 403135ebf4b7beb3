// The harness image (docker/build-harness-image.sh), built from the packed package and Debian's
// Node.js with no image pulled, and used as its README says: `run` against a target given by flags and
// the environment, `mock` serving on the host's network, `audit-log -` reading stdin. Needs a Docker
// engine: skipped without one, failed without one when AC_REQUIRE_DOCKER=1 (CI: .ci/docker.sh).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import path from 'node:path'
import { readFileSync, rmSync } from 'node:fs'
import { ROOT, openTempDir, pack } from './packed.ts'

const docker = (args: string[], opts: { input?: string; timeout?: number } = {}) => {
  const r = spawnSync('docker', args, {
    encoding: 'utf8',
    timeout: opts.timeout ?? 300_000,
    ...(opts.input !== undefined ? { input: opts.input } : { stdio: ['ignore', 'pipe', 'pipe'] }),
  })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
}

const engine = docker(['info', '--format', '{{.ServerVersion}}'], { timeout: 30_000 })
if (engine.status !== 0) {
  if (process.env.AC_REQUIRE_DOCKER === '1') t.fail(`AC_REQUIRE_DOCKER=1 but no Docker engine answers: ${engine.stderr.trim()}`)
  else t.plan(0, 'no Docker engine (bash .ci/docker.sh starts one)')
} else {
  const image = `admin-conformance/harness:test-${process.pid}`
  const work = openTempDir('ac-image-')
  t.teardown(() => {
    docker(['rmi', '-f', image])
    rmSync(work, { recursive: true, force: true })
  })
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
  const built = spawnSync('bash', [path.join(ROOT, 'docker', 'build-harness-image.sh'), image, pack(work)], {
    encoding: 'utf8',
    timeout: 600_000,
  })

  t.test('the image is built from the packed package, without pulling anything', async (t) => {
    t.equal(built.status, 0, `built\n${built.stderr}`)
    t.equal(docker(['run', '--rm', image, '--version']).stdout.trim(), version, '--version')
    const help = docker(['run', '--rm', image])
    t.equal(help.status, 0, 'with no command it prints the help')
    t.match(help.stdout, /^ {2}audit-log +\S/m)
    const user = docker(['image', 'inspect', '--format', '{{.Config.User}}', image]).stdout.trim()
    t.equal(user, '65534:65534', 'the commands run as nobody')
  })

  t.test('mock on the host network; run against it with the tokens in the environment; audit-log of its log on stdin', async (t) => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const name = `ac-image-mock-${process.pid}`
    const started = docker([
      'run',
      '-d',
      '--rm',
      '--name',
      name,
      '--network',
      'host',
      image,
      'mock',
      '--port',
      String(port),
      '--admin-token',
      'mas-secret-token',
      '--hs-admin-token',
      'hs-secret-token',
    ])
    t.teardown(() => docker(['rm', '-f', name]))
    t.equal(started.status, 0, `the mock container started\n${started.stderr}`)
    let up = false
    for (let i = 0; i < 120 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/_synapse/admin/v1/server_version`).then(
        (r) => r.ok,
        () => false,
      )
      if (!up) await new Promise((r) => setTimeout(r, 500))
    }
    t.ok(up, 'the mock answers on the host network')

    const url = `http://127.0.0.1:${port}`
    const run = docker([
      'run',
      '--rm',
      '--network',
      'host',
      '-e',
      'MAS_ADMIN_TOKEN=mas-secret-token',
      '-e',
      'HS_ADMIN_TOKEN=hs-secret-token',
      image,
      'run',
      '--mas-url',
      url,
      '--hs-url',
      url,
      '--area',
      'admin,reports',
    ])
    t.equal(run.status, 0, `run against the mock passes\n${run.stdout.slice(-2000)}${run.stderr}`)
    t.match(run.stdout, /^(\d{2,}) passed, 0 failed/m, 'its checks passed')
    t.notMatch(run.stdout + run.stderr, /mas-secret-token|hs-secret-token/, 'the tokens are never shown')

    // the mock's request log is its standard error (no --log-file)
    const log = spawnSync('docker', ['logs', name], { encoding: 'utf8' }).stderr
    t.match(log, /http\.server\.response/, 'the mock logged the requests of the run')
    const audit = docker(['run', '--rm', '-i', image, 'audit-log', '-'], { input: log })
    t.equal(audit.status, 0, `audit-log - reads stdin\n${audit.stderr}`)
    const requests = /^[\d,]+ lines: ([\d,]+) requests/m.exec(audit.stdout)?.[1]
    t.ok(requests !== undefined && Number(requests.replace(/,/g, '')) > 50, `and counts the requests of the whole run (${requests})`)
  })
}
