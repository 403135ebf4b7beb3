// --public-url and --trust-forwarded (mock/core/public-url.ts): every URL the mock advertises follows the
// public URL (OpenID discovery, the homeserver's well-known base_url and issuer, the OpenAPI servers),
// the Host check answers the public host; forwarded headers count only when trusted.
import t from 'tap'
import { request } from 'undici'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { publicUrlOption, publicBase } from '../../../mock/core/public-url.ts'

async function get(url: string, path: string, headers: Record<string, string> = {}) {
  const res = await request(url + path, { headers })
  const text = await res.body.text()
  let body: any
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  return { status: res.statusCode, body }
}

t.test('the option: an absolute http(s) URL, normalised to end in /', async (t) => {
  t.equal(publicUrlOption('https://mas.example.com'), 'https://mas.example.com/')
  t.equal(publicUrlOption('https://example.com:8443/auth'), 'https://example.com:8443/auth/')
  t.throws(() => publicUrlOption('example.com'), /not an absolute URL/)
  t.throws(() => publicUrlOption('ftp://example.com/'), /not an http or https URL/)
  t.throws(() => publicUrlOption('https://example.com/?a=1'), /no query/)
})

t.test('with --public-url every advertised URL follows it, and its Host is answered', async (t) => {
  const mock = await startMock(mockOptions({ port: 0, logFile: null, reports: 0, publicUrl: 'https://mas.example.com/' }))
  t.teardown(() => mock.close())
  const oidc = await get(mock.url, '/.well-known/openid-configuration')
  t.equal(oidc.body.issuer, 'https://mas.example.com/')
  t.equal(oidc.body.token_endpoint, 'https://mas.example.com/oauth2/token')
  const wk = await get(mock.url, '/.well-known/matrix/client')
  t.equal(wk.body['m.homeserver'].base_url, 'https://mas.example.com/')
  t.equal(wk.body['org.matrix.msc2965.authentication'].issuer, 'https://mas.example.com/')
  const spec = await get(mock.url, '/api/spec.json')
  t.same(spec.body.servers, [{ url: 'https://mas.example.com' }])
  t.equal((await get(mock.url, '/health', { host: 'mas.example.com' })).status, 200, 'the public host (default port)')
  t.equal((await get(mock.url, '/health', { host: 'mas.example.com:443' })).status, 200, 'the public host with its port')
  t.equal((await get(mock.url, '/health', { host: 'evil.example' })).status, 421, 'any other host is still refused')
  const forwarded = await get(mock.url, '/.well-known/openid-configuration', {
    'x-forwarded-proto': 'http',
    'x-forwarded-host': 'other.example',
  })
  t.equal(forwarded.body.issuer, 'https://mas.example.com/', 'the public URL wins over forwarded headers')
})

t.test('forwarded headers: ignored unless trusted; trusted, they give the scheme and host', async (t) => {
  const plain = await startMock(mockOptions({ port: 0, logFile: null, reports: 0 }))
  t.teardown(() => plain.close())
  const fwd = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' }
  const host = new URL(plain.url).host
  t.equal(
    (await get(plain.url, '/.well-known/openid-configuration', fwd)).body.issuer,
    `http://${host}/`,
    'not trusted: the Host, over http',
  )
  const trusting = await startMock(mockOptions({ port: 0, logFile: null, reports: 0, trustForwarded: true }))
  t.teardown(() => trusting.close())
  t.equal((await get(trusting.url, '/.well-known/openid-configuration', fwd)).body.issuer, 'https://proxy.example/')
  t.same((await get(trusting.url, '/api/spec.json', fwd)).body.servers, [{ url: 'https://proxy.example' }], 'the OpenAPI servers too')
  t.equal(
    (await get(trusting.url, '/.well-known/matrix/client', { 'x-forwarded-proto': 'https' })).body['m.homeserver'].base_url,
    `https://${new URL(trusting.url).host}/`,
    'the scheme alone: with the Host',
  )
  t.equal(
    publicBase({
      headers: { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'a.example, b.example' },
      options: { trustForwarded: true, host: '127.0.0.1', port: 1 },
    }),
    'https://a.example/',
    'the first of each list',
  )
  t.equal(
    publicBase({
      headers: { 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'bad host' },
      options: { trustForwarded: true, host: '127.0.0.1', port: 1 },
    }),
    'http://127.0.0.1:1/',
    'unusable values fall back',
  )
})
