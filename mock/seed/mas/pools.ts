// Word pools of the auth service's world, drawn once with faker (names, user agents, addresses,
// device and token names, client names, domains), so per-item choices are cheap picks.
import type { Faker } from '@faker-js/faker'
import type { Draw } from './random.ts'

export interface Pools {
  firstNames: string[]
  lastNames: string[]
  userAgents: string[]
  ips: string[]
  deviceNames: string[]
  tokenNames: string[]
  clientNames: string[]
  domains: string[]
  redirectUris: string[]
}

function canonicalIp(ip: string): string {
  // The service prints Rust's IpAddr Display: IPv6 compressed, without leading zeros.
  return ip.includes(':') ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip
}

export function drawPools(faker: Faker, d: Draw): Pools {
  const firstNames = Array.from({ length: 200 }, () => faker.person.firstName())
  const lastNames = Array.from({ length: 200 }, () => faker.person.lastName())
  const userAgents = Array.from({ length: 48 }, () => faker.internet.userAgent())
  const ips = [
    ...Array.from({ length: 1500 }, () => faker.internet.ipv4()),
    ...Array.from({ length: 150 }, () => canonicalIp(faker.internet.ipv6())),
  ]
  const apps = ['Element', 'Element X', 'FluffyChat', 'Nheko', 'Cinny', 'SchildiChat', 'Fractal', 'NeoChat']
  const platforms = ['iPhone', 'iPad', 'Android', 'macOS', 'Windows', 'Linux', 'Firefox', 'Chrome', 'Safari']
  const deviceNames = Array.from({ length: 60 }, () => `${d.pick(apps)} on ${d.pick(platforms)}`)
  const tokenNames = Array.from({ length: 40 }, () => `${faker.word.adjective()} ${faker.word.noun()} token`)
  const clientNames = Array.from({ length: 30 }, () => `${faker.company.name()} ${d.pick(['Chat', 'Bridge', 'Bot', 'Dashboard', 'Sync'])}`)
  const domains = Array.from({ length: 20 }, () => faker.internet.domainName())
  const redirectUris = domains.slice(0, 8).map((dom) => `https://${dom}/sso/callback`)
  return { firstNames, lastNames, userAgents, ips, deviceNames, tokenNames, clientNames, domains, redirectUris }
}
