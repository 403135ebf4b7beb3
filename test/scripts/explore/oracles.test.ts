// explore's oracles and classes on answers made by hand: a 5xx, a broken envelope, a body off its schema,
// a difference from the model; a known defect named by its row of lib/data/deviations.json; an answer the
// model gets wrong classed as a gap of the model; an answer that matches the strict model is fine.
import t from 'tap'
import { absoluteViolations, alike, modelViolations, shapeDifference } from '../../../scripts/explore/oracles.ts'
import { deviationFor, judge } from '../../../scripts/explore/classify.ts'
import { operationsAt } from '../../../scripts/explore/generate.ts'
import type { Answer, Case } from '../../../scripts/explore/cases.ts'

const ops = new Map(operationsAt({ mas: 'v1.22.0', hs: '1.160.0' }, { mas: true, hs: true }).map((o) => [o.key, o]))
const single: Case = {
  api: 'hs',
  operation: 'GET /_synapse/admin/v1/event_reports/{report_id}',
  method: 'GET',
  template: '/_synapse/admin/v1/event_reports/{report_id}',
  params: { report_id: '99999999999999999999999' },
  query: [],
  auth: 'admin',
  kind: 'boundary',
  note: '',
}
const user: Case = {
  api: 'mas',
  operation: 'GET /api/admin/v1/users/{id}',
  method: 'GET',
  template: '/api/admin/v1/users/{id}',
  params: { id: 'x' },
  query: [],
  auth: 'admin',
  kind: 'invalid',
  note: '',
}
const json = (status: number, body: unknown): Answer => ({
  status,
  contentType: 'application/json',
  json: body,
  text: JSON.stringify(body),
})
const e500 = json(500, { errcode: 'M_UNKNOWN', error: 'Internal server error' })
const e404 = json(404, { errcode: 'M_NOT_FOUND', error: 'Event report not found' })

t.test('absolute rules', async (t) => {
  const hsOp = ops.get(single.operation)!
  t.same(
    absoluteViolations(single, hsOp, e500).map((v) => v.rule),
    ['no-5xx'],
  )
  t.same(absoluteViolations(single, hsOp, e404), [], 'a 404 in the envelope is fine')
  t.same(
    absoluteViolations(single, hsOp, json(404, { error: 'x' })).map((v) => v.rule),
    ['error-envelope'],
    'errcode missing',
  )
  const masOp = ops.get(user.operation)!
  t.same(absoluteViolations(user, masOp, json(404, { errors: [{ title: 'User not found' }] })), [])
  t.same(
    absoluteViolations(user, masOp, json(404, { error: 'User not found' })).map((v) => v.rule),
    ['error-envelope'],
  )
  t.same(
    absoluteViolations(user, masOp, json(200, { data: { id: 1 } })).map((v) => v.rule),
    ['schema'],
    'a 200 off its schema',
  )
  t.same(
    absoluteViolations({ ...user, kind: 'method', method: 'PATCH' }, masOp, { status: 405, contentType: '', text: '' }),
    [],
    'an empty 405 of the auth service',
  )
})

t.test('the model: status, errcode, keys; values are not compared', async (t) => {
  t.same(modelViolations(e404, e404), [])
  t.same(
    modelViolations(e500, e404).map((v) => v.rule),
    ['model-status'],
  )
  t.same(
    modelViolations(json(404, { errcode: 'M_UNKNOWN', error: 'x' }), e404).map((v) => v.rule),
    ['model-errcode'],
  )
  t.ok(alike(json(200, { a: 1, b: [{ c: 'x' }] }), json(200, { a: 2, b: [{ c: 'y' }] })), 'other values, same keys')
  t.same(shapeDifference({ a: 1, b: [{ c: 1, d: 2 }] }, { a: 1, b: [{ c: 1 }] }), { onlyTarget: ['.b[].d'], onlyModel: [] })
  t.same(shapeDifference({ b: [] }, { b: [{ c: 1 }] }), { onlyTarget: [], onlyModel: [] }, 'an empty list is not compared')
})

t.test('classes', async (t) => {
  const op = ops.get(single.operation)
  const known = judge(single, op, '1.160.0', e500, e500, e404)!
  t.equal(known.cls, 'known-defect')
  t.equal(known.deviation?.id, 'event-report-id-overflow-500', 'named by its row')
  t.equal(
    deviationFor(
      { ...single, template: '/_synapse/admin/v1/event_reports', params: {}, query: [['from', '99999999999999999999999']] },
      '1.160.0',
    )?.id,
    'event-report-listing-overflow-500',
  )
  t.equal(deviationFor(single, '1.66.0'), undefined, 'not before the release that has it')
  t.equal(judge(single, op, '1.160.0', e404, e500, e404), undefined, 'a target that answers as the strict model conforms')
  t.equal(judge(single, op, '1.160.0', e500, e404, e404)!.cls, 'target-defect', 'a 5xx the model does not give')
  t.equal(judge(single, op, '1.160.0', e404, e500, e500)!.cls, 'model-gap', 'the model breaks a rule the target keeps')
})

t.test("links.self's order and the error texts, against the model's", async (t) => {
  const page = (self: string) => json(200, { meta: { count: 0 }, data: [], links: { self } })
  const v = modelViolations(
    page('/api/admin/v1/users?page[after]=01ARZ3NDEKTSV4RRFFQ69G5FAV&page[first]=10'),
    page('/api/admin/v1/users?page[first]=10&page[after]=01ARZ3NDEKTSV4RRFFQ69G5FAV'),
  )
  t.same(
    v.map((x) => x.rule),
    ['model-links'],
    'the parameters in another order',
  )
  t.match(v[0]?.expected ?? '', /page\[first\], page\[after\]/, 'the order the model writes')
  t.same(
    modelViolations(page('/api/admin/v1/users?page[first]=10&page[after]=A'), page('/api/admin/v1/users?page[first]=10&page[after]=B')),
    [],
  )
  const title = (s: string) => json(404, { errors: [{ title: s }] })
  // the ids differ per side (each samples its own): only the words are compared
  t.same(modelViolations(title('User ID 01K9D13RGP2VWCD24WJTJKWD6Y not found'), title('User ID 01ARZ3NDEKTSV4RRFFQ69G5FAV not found')), [])
  t.same(
    modelViolations(title('User not found'), title('User ID 01ARZ3NDEKTSV4RRFFQ69G5FAV not found')).map((x) => x.rule),
    ['model-text'],
    'a title without the id',
  )
  const hsErr = (s: string) => json(404, { errcode: 'M_NOT_FOUND', error: s })
  t.same(modelViolations(hsErr('Event report not found'), hsErr('User report not found'))[0]?.rule, 'model-text')
  t.same(modelViolations(hsErr('Room !a:x.test not found'), hsErr('Room !bcd:y.test not found')), [], 'Matrix ids are data')
})

t.test('a text that differs from the strict model: the text, advisory, not the known defect it does not share', async (t) => {
  const c: Case = {
    ...single,
    operation: 'GET /_synapse/admin/v1/user_reports/{report_id}',
    template: '/_synapse/admin/v1/user_reports/{report_id}',
  }
  const target = json(404, { errcode: 'M_NOT_FOUND', error: 'Event report not found' })
  const strict = json(404, { errcode: 'M_NOT_FOUND', error: 'User report not found' })
  const v = judge(c, ops.get(c.operation), '1.160.0', target, e500, strict)
  t.same(
    v?.violations.map((x) => x.rule),
    ['model-text'],
  )
  t.equal(v?.cls, 'target-defect')
  const { failing, advisory } = await import('../../../scripts/explore/report.ts')
  const f = { cls: v!.cls, violations: v!.violations } as Parameters<typeof advisory>[0]
  t.ok(advisory(f), 'advisory')
  t.same(failing([f], false), [], 'does not fail the command')
  t.same(failing([f], true), [f], 'fails it with --strict')
})
