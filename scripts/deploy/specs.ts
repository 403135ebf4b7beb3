// The container of each role (image, command, environment, files), for the real services or the bundled
// mock standing in for both.
import type { DeployPlan, GeneratedFiles } from './config.ts'
import type { Role, ServiceSpec } from './service.ts'

/** The container of each role: image, command, environment and the files copied in. */
export function serviceSpecs(
  plan: DeployPlan,
  files: GeneratedFiles,
  images: { mas: string; homeserver: string; postgres: string },
  standIn: boolean,
): Record<Role, ServiceSpec> {
  const postgres: ServiceSpec = {
    role: 'postgres',
    image: images.postgres,
    // The official image's contract: POSTGRES_* variables, init scripts, `postgres` with server flags.
    command: ['postgres', '-p', String(plan.ports.postgres), '-c', `listen_addresses=${plan.host}`],
    env: { POSTGRES_USER: plan.db.user, POSTGRES_PASSWORD: plan.db.password },
    files: [{ content: files.postgresInitSql, target: '/docker-entrypoint-initdb.d/10-admin-conformance.sql' }],
  }
  const masFiles = [{ content: files.masConfigYaml, target: '/etc/mas/config.yaml' }]
  const hsFiles = [
    { content: files.homeserverConfigYaml, target: '/data/homeserver.yaml' },
    { content: files.homeserverSigningKey, target: '/data/signing.key' },
  ]
  if (standIn) {
    // The mock serves both roles; it gets the generated configs too (unused) and its wiring by environment.
    // No seeded event reports: as on a fresh homeserver, the only reports are the fixtures', in rooms
    // that the fixture users have joined.
    const listen = (port: number) => ['mock', '--host', plan.host, '--port', String(port), '--reports', '0', '--silent']
    return {
      postgres,
      mas: {
        role: 'mas',
        image: images.mas,
        command: listen(plan.ports.mas),
        env: { MOCK_ADMIN_CLIENT_ID: plan.adminClient.id, MOCK_ADMIN_CLIENT_SECRET: plan.adminClient.secret },
        files: masFiles,
      },
      homeserver: {
        role: 'homeserver',
        image: images.homeserver,
        command: listen(plan.ports.homeserver),
        env: {
          MOCK_HS_DELEGATE_URL: plan.masUrl.replace(/\/$/, ''),
          MOCK_HS_DELEGATE_CLIENT_ID: plan.adminClient.id,
          MOCK_HS_DELEGATE_CLIENT_SECRET: plan.adminClient.secret,
        },
        files: hsFiles,
      },
    }
  }
  return {
    postgres,
    mas: { role: 'mas', image: images.mas, command: ['server', '--config=/etc/mas/config.yaml'], files: masFiles },
    homeserver: { role: 'homeserver', image: images.homeserver, env: { SYNAPSE_CONFIG_PATH: '/data/homeserver.yaml' }, files: hsFiles },
  }
}
