// OpenAPI links between operations, derived from the paths so that a new family gets them without a
// row of its own: for a collection C with an item `C/{x}` fetched by GET,
// - the listing GET C → the item (x from the listing's first item),
// - a create POST C, and every other operation under C/… (by-username, latest, finish, revoke, …)
//   whose answer carries the item → the item (read it back),
// - the item → every operation on C/{x} and below (finish, revoke, regenerate, lock, delete, …),
// - an item whose attributes name another (user_id, client_id, user_session_id, provider_id, …) →
//   that item, and an item → every listing that filters by it (a user → filter[user], …).
// A runtime expression is only written when it resolves in the response schema (schemaAt), so a
// link never points into nothing.
import type { JsonSchema } from '../../../lib/schemas.ts'

type Json = Record<string, unknown>
type Op = Json & { operationId: string; responses: Record<string, Json> }
type Paths = Record<string, Record<string, Op>>

/** The subschema at a JSON pointer into instances of `schema` ($ref, allOf/anyOf/oneOf, properties, items). */
export function schemaAt(
  components: Record<string, JsonSchema>,
  schema: JsonSchema | undefined,
  pointer: string[],
): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined
  if (typeof schema.$ref === 'string') return schemaAt(components, components[schema.$ref.split('/').pop() ?? ''], pointer)
  if (pointer.length === 0) return schema
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const member of (schema[key] as JsonSchema[] | undefined) ?? []) {
      const hit = schemaAt(components, member, pointer)
      if (hit) return hit
    }
  }
  const [head, ...rest] = pointer as [string, ...string[]]
  if (/^\d+$/.test(head) && schema.items) return schemaAt(components, schema.items as JsonSchema, rest)
  const prop = (schema.properties as Record<string, JsonSchema> | undefined)?.[head]
  return prop ? schemaAt(components, prop, rest) : undefined
}

const ITEM_IN_LIST = ['/data/0/id', '/event_reports/0/id', '/user_reports/0/id', '/rooms/0/room_id']
const ITEM_IN_SINGLE = ['/data/id', '/id', '/room_id']

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch'])
/** The operations of a path item (not its description). */
const operations = (item: Record<string, Op>): Op[] =>
  Object.entries(item)
    .filter(([k]) => METHODS.has(k))
    .map(([, op]) => op)

function okResponse(op: Op): [string, Json] | undefined {
  const status = ['200', '201'].find((s) => op.responses[s])
  return status ? [status, op.responses[status]!] : undefined
}

function jsonSchemaOf(response: Json): JsonSchema | undefined {
  return ((response.content as Json | undefined)?.['application/json'] as { schema?: JsonSchema } | undefined)?.schema
}

export function addLinks(paths: Paths, components: Record<string, JsonSchema>): void {
  const expr = (response: Json, candidates: string[]) => {
    const hit = candidates.find((p) => schemaAt(components, jsonSchemaOf(response), p.slice(1).split('/')) !== undefined)
    return hit ? `$response.body#${hit}` : undefined
  }
  const link = (from: Op | undefined, to: Op, parameters: Record<string, string>, description: string, name = to.operationId) => {
    const ok = from && okResponse(from)
    if (!ok) return
    const links = ((ok[1].links as Record<string, unknown> | undefined) ??= {})
    if (!(name in links)) links[name] = { operationId: to.operationId, parameters, description }
  }

  const items: { path: string; param: string; get: Op }[] = []
  for (const [path, item] of Object.entries(paths)) {
    const m = /^(.*)\/\{([^}/]+)\}$/.exec(path)
    if (m && item.get) items.push({ path, param: m[2]!, get: item.get })
  }
  for (const { path, param, get } of items) {
    const collection = path.slice(0, path.lastIndexOf('/'))
    const list = paths[collection]?.get
    const listOk = list && okResponse(list)
    const fromList = listOk && expr(listOk[1], ITEM_IN_LIST)
    if (list && fromList) link(list, get, { [param]: fromList }, `The first item of the page, by id.`)
    for (const [other, opItem] of Object.entries(paths)) {
      if (other !== collection && !other.startsWith(`${collection}/`)) continue
      for (const op of operations(opItem)) {
        if (op === get || op === list) continue
        // the item → what is done to it
        // (not an operation that needs more path parameters than the item gives: the event of an event context)
        if (other === path || (other.startsWith(`${path}/`) && !other.slice(path.length).includes('{'))) {
          const getOk = okResponse(get)
          const id = getOk && expr(getOk[1], ITEM_IN_SINGLE)
          if (id) link(get, op, { [param]: id }, `${op.operationId} on this item.`)
        }
        // whatever answers the item → read it back
        const ok = okResponse(op)
        const id = ok && expr(ok[1], ITEM_IN_SINGLE.slice(0, 1))
        if (id) link(op, get, { [param]: id }, 'The item this answer carries, read back.')
      }
    }
  }
  relationLinks(paths, items, components, link)
}

/** The items an attribute names (by id), and the listing filters that take such an item's id. */
const RELATIONS: { get: string; attributes: string[]; filters: string[] }[] = [
  {
    get: 'getUser',
    attributes: ['user_id', 'owner_user_id', 'actor_user_id'],
    filters: ['filter[user]', 'filter[owner_user]', 'filter[actor_user]'],
  },
  { get: 'getOAuth2Client', attributes: ['client_id', 'owner_client_id'], filters: ['filter[client]', 'filter[owner_client]'] },
  { get: 'getUserSession', attributes: ['user_session_id'], filters: ['filter[user-session]'] },
  { get: 'getUpstreamOAuthProvider', attributes: ['provider_id'], filters: ['filter[provider]'] },
]

/** item → the items its attributes name (a session → its user), and an item → the listings filtered by it. */
function relationLinks(
  paths: Paths,
  items: { path: string; param: string; get: Op }[],
  components: Record<string, JsonSchema>,
  link: (from: Op | undefined, to: Op, parameters: Record<string, string>, description: string, name?: string) => void,
): void {
  for (const relation of RELATIONS) {
    const target = items.find((i) => i.get.operationId === relation.get)
    if (!target) continue
    for (const { get } of items) {
      const ok = okResponse(get)
      if (!ok || get === target.get) continue
      for (const attribute of relation.attributes) {
        if (!schemaAt(components, jsonSchemaOf(ok[1]), ['data', 'attributes', attribute])) continue
        const name = attribute === relation.attributes[0] ? relation.get : `${relation.get}-${attribute}`
        link(get, target.get, { [target.param]: `$response.body#/data/attributes/${attribute}` }, `The item ${attribute} names.`, name)
      }
    }
    for (const item of Object.values(paths)) {
      const list = item.get
      const query = ((list?.parameters as { name: string; in: string }[] | undefined) ?? []).filter((p) => p.in === 'query')
      for (const filter of relation.filters) {
        if (!list || !query.some((p) => p.name === filter)) continue
        const name = `${list.operationId}-${filter.slice('filter['.length, -1)}`
        link(
          target.get,
          list,
          { [`query.${filter}`]: '$response.body#/data/id' },
          `${list.operationId} filtered by this item (${filter}).`,
          name,
        )
      }
    }
  }
}
