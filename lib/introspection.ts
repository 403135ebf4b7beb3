// The confidential client the harness registers at the auth service to introspect its own tokens (RFC
// 7662), so that write checks never end the sessions behind them. The runner registers it once per run
// before any suite starts (a client appearing mid-run would change the clients listing under a walk);
// a suite file run by hand registers its own. Both build the request and read the answer here.

/** the registration request's body (RFC 7591), named after the run so that an operator can find it */
export function introspectionClientMetadata(runId: string): Record<string, unknown> {
  return {
    client_name: `admin-conformance ${runId} (introspection of the harness's own tokens)`,
    client_uri: 'https://admin-conformance.invalid/',
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_post',
  }
}

export const INTROSPECTION_LEFTOVER_REASON = "registered to introspect the harness's own tokens; the admin API cannot delete a client"

/** the registered client, or why registration failed */
export function readRegistration(status: number, json: unknown): { clientId: string; clientSecret: string } | string {
  const b = json as { client_id?: unknown; client_secret?: unknown } | undefined
  if (status !== 201 || typeof b?.client_id !== 'string' || typeof b.client_secret !== 'string') {
    return `registering a client to introspect the harness's tokens answered ${status}`
  }
  return { clientId: b.client_id, clientSecret: b.client_secret }
}
