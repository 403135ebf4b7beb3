// The auth service's calls to its homeserver's provisioning API, `/_synapse/mas/` on Synapse (the
// real service's `matrix.endpoint`, authenticated with `matrix.secret` as a Bearer token). Bodies as
// Synapse 1.160.0 reads them (synapse/rest/synapse/mas/ in its package): every call names the user by
// localpart. The secret goes in the header only: never in a message, a log line or an error.
import { request } from '../../../lib/undici-lean.mjs'

/** One call: its path under /_synapse/mas/ and its JSON body. */
export type Provisioning =
  | {
      op: 'provision_user'
      body: { localpart: string; set_emails?: string[]; locked?: boolean; set_displayname?: string; set_avatar_url?: string }
    }
  | { op: 'upsert_device'; body: { localpart: string; device_id: string; display_name?: string } }
  | { op: 'delete_device'; body: { localpart: string; device_id: string } }
  | { op: 'sync_devices'; body: { localpart: string; devices: string[] } }
  | { op: 'delete_user'; body: { localpart: string; erase: boolean } }
  | { op: 'reactivate_user'; body: { localpart: string } }
  | { op: 'set_displayname'; body: { localpart: string; displayname: string } }
  | { op: 'unset_displayname'; body: { localpart: string } }

export interface CallResult {
  status: number
  /** Synapse's errcode when it refused, for the log line (never the request) */
  errcode?: string
}

const TIMEOUT_MS = 10_000

/** POST one provisioning call; throws on a transport failure, answers the status otherwise. */
export async function callHomeserver(endpoint: string, secret: string, call: Provisioning): Promise<CallResult> {
  const url = new URL(`_synapse/mas/${call.op}`, endpoint.endsWith('/') ? endpoint : endpoint + '/')
  const res = await request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(call.body),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  })
  const text = await res.body.text()
  if (res.statusCode < 300) return { status: res.statusCode }
  let errcode: string | undefined
  try {
    const parsed = JSON.parse(text) as { errcode?: unknown }
    if (typeof parsed.errcode === 'string') errcode = parsed.errcode
  } catch {
    // not JSON: the status says enough
  }
  return errcode === undefined ? { status: res.statusCode } : { status: res.statusCode, errcode }
}
