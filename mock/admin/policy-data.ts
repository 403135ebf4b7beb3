// /api/admin/v1/policy-data: set (201; the data is deep-merged into the configuration's policy
// data, and a merge failure is 400 with the three-title chain, nothing stored), latest (404 "No
// policy data found"), get by id.
//
// The real service's get-by-id handler returns the latest record whatever the id (and 404 only when
// there is none); the mock answers the record with that id, as the interface describes, unless it
// claims a version lib/data names for that deviation (framework/deviations.ts); the real behaviour is
// also the `policy-get-by-id-returns-latest` fault.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, masGate, type RouteEntry } from '../core/table.ts'
import { mergePolicyData, nowMicros, type PolicyData } from '../store/mas/index.ts'
import { authenticate } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { byId, notFoundTitle, type Titled } from './framework/by-id.ts'
import { fmtTime, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'
import { masDeviates } from './framework/deviations.ts'

const TYPE = 'policy-data'
const SITE = 'mas_handlers::admin::v1::policy_data'
// The handlers' titles, here once for the answers and the OpenAPI document.
const RECORD: Titled = { noun: 'Policy data', idWord: 'with ID' }
const NONE = 'No policy data found'
const INVALID = ['Failed to instanciate policy with the provided data', 'invalid policy data'] as const

export function policyAttributes(p: PolicyData): Record<string, unknown> {
  return { created_at: fmtTime(p.createdAt), data: p.data }
}

export const policyResource = (p: PolicyData) => resource(TYPE, 'policy-data', p.id, policyAttributes(p))

const SET = { name: 'SetPolicyDataRequest', fields: [['data', 'any']] } as const

export function setPolicyData(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, SET)
  if (!body.ok) return body.reply
  const store = ctx.world.mas
  const data = body.value.data
  // Validate before storing: the service's transaction is not committed when the policy rejects the data.
  const merged = mergePolicyData(store.staticPolicyData, data)
  if (!merged.ok) {
    return routeError(ctx, `${SITE}::set:41`, 400, ...INVALID, merged.error)
  }
  ctx.log.queries += 1
  const record = store.setPolicyData(data, nowMicros(ctx.now()))
  return single(201, policyResource(record))
}

export function getLatestPolicyData(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  ctx.log.queries += 1
  const records = ctx.world.mas.policyData
  const latest = ctx.faults.has('policy-latest-oldest') ? records.first() : records.last()
  if (!latest) return routeError(ctx, `${SITE}::get_latest:35`, 404, NONE)
  ctx.log.fetched += 1
  return single(200, policyResource(latest))
}

export function getPolicyData(ctx: Ctx): Reply {
  const records = ctx.world.mas.policyData
  // The real handler of the versions with this deviation fetches the latest record whatever the id.
  const latest =
    ctx.faults.has('policy-get-by-id-returns-latest') ||
    (ctx.options.deviations !== false && masDeviates(ctx.options.masVersion, 'policy-data-get-returns-latest'))
  const record = byId(ctx, `${SITE}::get:37`, { ...RECORD, get: (_ctx, id) => (latest ? records.last() : records.get(id)) })
  if (!record.ok) return record.reply
  ctx.log.fetched += 1
  return single(200, policyResource(record.item))
}

const TAG = 'policy-data'

/** this family's rows of the admin route table */
export const POLICY_DATA_ENTRIES: RouteEntry[] = [
  {
    method: 'POST',
    pattern: '/policy-data',
    handler: setPolicyData,
    ...masGate('policy-data'),
    doc: {
      operationId: 'setPolicyData',
      tag: TAG,
      summary: 'Set the policy data',
      security: 'mas-admin',
      description:
        'The new record becomes the latest. The data is merged into the static policy data and the policy is test-instantiated first; nothing is stored on failure.',
      body: { ref: 'admin/policy-data#SetRequest' },
      responses: {
        '201': { description: 'The stored record.', ref: 'admin/policy-data#Single' },
        '400': adminErr(`The policy data is invalid: ${INVALID.map((x) => `'${x}'`).join(', ')}, then the cause.`),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/policy-data/latest',
    handler: getLatestPolicyData,
    ...masGate('policy-data'),
    doc: {
      operationId: 'getLatestPolicyData',
      tag: TAG,
      summary: 'Get the latest policy data',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The latest record; links.self is its canonical path.', ref: 'admin/policy-data#Single' },
        '404': adminErr(`No policy data exists: '${NONE}'.`),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/policy-data/:id',
    handler: getPolicyData,
    ...masGate('policy-data'),
    doc: {
      operationId: 'getPolicyData',
      tag: TAG,
      summary: 'Get policy data by id',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The record.', ref: 'admin/policy-data#Single' },
        '404': adminErr(
          `The record does not exist: '${notFoundTitle(RECORD, '<id>')}'. A release with the known deviation policy-data-get-returns-latest (the default claimed one, unless --no-deviations) answers the latest record whatever the id, and 404 only when there is no policy data.`,
        ),
      },
    },
  },
]
