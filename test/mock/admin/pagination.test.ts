// Pagination of the three listings: links rebuilt in the real order, next/prev rules, count modes,
// forward and backward walks against the store's own order, and every rejection with its titles.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 11, sessions: 150 })
const LISTINGS = [
  {
    name: 'compat-sessions',
    ref: 'admin/compat-session#Page',
    ids: () =>
      tm
        .world()
        .mas.compat.all()
        .map((s) => s.id),
  },
  {
    name: 'oauth2-sessions',
    ref: 'admin/oauth2-session#Page',
    ids: () =>
      tm
        .world()
        .mas.oauth2.all()
        .map((s) => s.id),
  },
  {
    name: 'personal-sessions',
    ref: 'admin/personal-session#Page',
    ids: () =>
      tm
        .world()
        .mas.personal.all()
        .map((s) => s.id),
  },
] as const

for (const l of LISTINGS) {
  const path = `${API}/${l.name}`
  t.test(`${l.name}: default page`, async (t) => {
    const ids = l.ids()
    t.ok(ids.length > 20, 'enough seeded items')
    const r = await tm.get(path)
    t.equal(r.status, 200)
    t.equal(schemaErrors(l.ref, r.body), '', 'valid page')
    t.same(Object.keys(r.body), ['meta', 'data', 'links'], 'meta, data, links in that order')
    t.equal(r.body.meta.count, ids.length)
    t.same(
      r.body.data.map((d: any) => d.id),
      ids.slice(0, 10),
      'oldest first',
    )
    for (const d of r.body.data) {
      t.equal(d.meta.page.cursor, d.id, 'cursor is the id')
      t.equal(d.links.self, `${path}/${d.id}`)
    }
    t.same(r.body.links, {
      self: `${path}?page[first]=10`,
      first: `${path}?page[first]=10`,
      last: `${path}?page[last]=10`,
      next: `${path}?page[after]=${ids[9]}&page[first]=10`,
    })
  })

  t.test(`${l.name}: forward walk follows next and never has prev`, async (t) => {
    const ids = l.ids()
    const seen: string[] = []
    let next: string | undefined = `${path}?page[first]=7`
    let pages = 0
    while (next) {
      const r = await tm.get(next)
      t.equal(r.status, 200)
      t.notOk('prev' in r.body.links, 'no prev when paging forward')
      seen.push(...r.body.data.map((d: any) => d.id))
      if (r.body.links.next) {
        const last = r.body.data[r.body.data.length - 1].id
        t.equal(r.body.links.next, `${path}?page[after]=${last}&page[first]=7`)
      }
      next = r.body.links.next
      pages++
    }
    t.same(seen, ids, 'the walk reproduces the whole set')
    t.equal(pages, Math.ceil(ids.length / 7))
  })

  t.test(`${l.name}: backward walk follows prev and never has next`, async (t) => {
    const ids = l.ids()
    const pages: string[][] = []
    let prev: string | undefined = `${path}?page[last]=7`
    const first = await tm.get(prev)
    t.same(first.body.links.self, `${path}?page[last]=7`)
    t.same(
      first.body.data.map((d: any) => d.id),
      ids.slice(-7),
      'the last 7, still in ascending order',
    )
    while (prev) {
      const r = await tm.get(prev)
      t.notOk('next' in r.body.links, 'no next when paging backward')
      const got = r.body.data.map((d: any) => d.id)
      pages.unshift(got)
      if (r.body.links.prev) t.equal(r.body.links.prev, `${path}?page[before]=${got[0]}&page[last]=7`)
      prev = r.body.links.prev
    }
    t.same(pages.flat(), ids)
  })

  t.test(`${l.name}: count modes`, async (t) => {
    const ids = l.ids()
    const off = await tm.get(`${path}?count=false`)
    t.equal(off.status, 200)
    t.notOk('meta' in off.body, 'count=false omits meta')
    t.equal(off.body.links.self, `${path}?count=false&page[first]=10`)
    t.equal(off.body.links.first, `${path}?count=false&page[first]=10`)
    t.equal(off.body.links.last, `${path}?count=false&page[last]=10`)
    t.equal(off.body.links.next, `${path}?count=false&page[after]=${ids[9]}&page[first]=10`)
    const only = await tm.get(`${path}?count=only&page[first]=3&page[after]=${ids[2]}`)
    t.equal(
      only.text,
      JSON.stringify({ meta: { count: ids.length }, links: { self: `${path}?count=only` } }),
      'count=only: meta and links.self only',
    )
    const explicit = await tm.get(`${path}?count=true`)
    t.equal(explicit.body.links.self, `${path}?page[first]=10`, 'count=true is the default and is not written')
  })

  t.test(`${l.name}: cursors`, async (t) => {
    const ids = l.ids()
    const r = await tm.get(`${path}?page[after]=${ids[3]!.toLowerCase()}&page[before]=${ids[9]}&page[first]=100`)
    t.same(
      r.body.data.map((d: any) => d.id),
      ids.slice(4, 9),
      'exclusive bounds on both sides',
    )
    t.equal(
      r.body.links.self,
      `${path}?page[before]=${ids[9]}&page[after]=${ids[3]}&page[first]=100`,
      'cursors re-printed upper case, before then after',
    )
    t.equal(r.body.meta.count, ids.length, 'count ignores cursors')
    t.notOk(r.body.links.next)
    const last = await tm.get(`${path}?page[before]=${ids[9]}&page[last]=3`)
    t.same(
      last.body.data.map((d: any) => d.id),
      ids.slice(6, 9),
    )
    t.equal(last.body.links.prev, `${path}?page[before]=${ids[6]}&page[last]=3`)
    const ghost = await tm.get(`${path}?page[after]=7ZZZZZZZZZZZZZZZZZZZZZZZZZ`)
    t.equal(ghost.status, 200, 'a valid cursor that matches nothing is fine')
    t.same(ghost.body.data, [])
    t.same(Object.keys(ghost.body.links), ['self', 'first', 'last'])
    const huge = await tm.get(`${path}?page[first]=18446744073709551615`)
    t.equal(huge.body.data.length, ids.length, 'any usize page size is accepted')
    t.equal(huge.body.links.self, `${path}?page[first]=18446744073709551615`)
    const padded = await tm.get(`${path}?page[first]=007&foo=bar&page[after]=&page[last]=`)
    t.equal(padded.body.links.self, `${path}?page[first]=7`, 'empty values are absent, unknown keys ignored, numbers re-printed')
  })

  t.test(`${l.name}: rejections`, async (t) => {
    const chain = (m: string) => ['Invalid pagination parameters', `Failed to deserialize query string: ${m}`, m, m]
    const cases: [string, string[]][] = [
      ['page[first]=1&page[last]=1', ['Cannot specify both `page[first]` and `page[last]` parameters']],
      ['page[first]=0', chain('page[first]: invalid value: integer `0`, expected a nonzero usize')],
      ['page[last]=0', chain('page[last]: invalid value: integer `0`, expected a nonzero usize')],
      ['page[first]=ten', chain('page[first]: invalid digit found in string')],
      ['page[first]=-1', chain('page[first]: invalid digit found in string')],
      ['page[first]=99999999999999999999', chain('page[first]: number too large to fit in target type')],
      ['page[after]=not-a-ulid', chain('page[after]: invalid length')],
      ['page[before]=01FSHN9AG0MZAA6S4AF7CTV3IL', chain('page[before]: invalid character')],
      ['count=maybe', chain('count: unknown variant `maybe`, expected one of `true`, `false`, `only`')],
      ['page[first]=1&page[first]=2', chain('page[first]: unsupported value')],
      ['page[first]=0&page[after]=bad', chain('page[first]: invalid value: integer `0`, expected a nonzero usize')],
      ['page[after]=bad&page[first]=0', chain('page[after]: invalid length')],
    ]
    for (const [q, want] of cases) {
      const r = await tm.get(`${path}?${q}`)
      t.equal(r.status, 400, q)
      t.same(titles(r.body), want, q)
      t.equal(schemaErrors('admin/error', r.body), '', `${q}: error body`)
    }
    const first = await tm.get(`${path}?page[first]=0&filter[status]=bogus`)
    t.equal(titles(first.body)[0], 'Invalid pagination parameters', 'pagination is checked before filters')
    const unauth = await tm.get(`${path}?page[first]=0`, null)
    t.equal(titles(unauth.body)[0], 'Missing authorization header', 'auth is checked before pagination')
  })

  t.test(`${l.name}: path ids`, async (t) => {
    const ids = l.ids()
    const bad = await tm.get(`${path}/not-a-ulid`)
    t.equal(bad.status, 400)
    t.same(titles(bad.body), ['Invalid ULID in path', 'invalid length'])
    const badChar = await tm.get(`${path}/01FSHN9AG0MZAA6S4AF7CTV3UU`)
    t.same(titles(badChar.body), ['Invalid ULID in path', 'invalid character'])
    const lower = await tm.get(`${path}/${ids[0]!.toLowerCase()}`)
    t.equal(lower.status, 200, 'lower case ids are accepted')
    t.equal(lower.body.links.self, `${path}/${ids[0]}`, 'self is the canonical path')
    const trailing = await tm.get(`${path}/`)
    t.equal(trailing.status, 404, 'a trailing slash is an unknown path')
    t.match(trailing.headers.get('content-type'), /text\/html/)
  })
}

t.test('reference examples, with the mock ids', async (t) => {
  const ids = LISTINGS[0].ids()
  const path = `${API}/compat-sessions`
  const user = tm.world().mas.compat.all()[0]!.userId
  const r = await tm.get(`${path}?filter[user]=${user}`)
  t.equal(r.body.links.self, `${path}?filter[user]=${user}&page[first]=10`)
  const st = await tm.get(`${path}?filter[status]=active&page[last]=10`)
  t.equal(st.body.links.self, `${path}?filter[status]=active&page[last]=10`)
  const cf = await tm.get(`${path}?count=false&filter[user]=${user}`)
  t.equal(cf.body.links.self, `${path}?filter[user]=${user}&count=false&page[first]=10`, 'the filter comes before count')
  const co = await tm.get(`${path}?count=only&filter[status]=active`)
  t.equal(co.body.links.self, `${path}?filter[status]=active&count=only`)
  const three = await tm.get(`${path}?page[first]=3`)
  t.equal(three.body.links.next, `${path}?page[after]=${ids[2]}&page[first]=3`)
})
