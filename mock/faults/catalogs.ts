// Every fault catalog, one line each: a new catalog file is added here and nowhere else (the registry
// and the FaultName union read this module's exports).
export { coreFaults } from './core.ts'
export { adminFaults } from './admin.ts'
export { homeserverFaults } from './homeserver.ts'
export { userFaults } from './users.ts'
export { userEmailFaults } from './user-emails.ts'
export { userSessionFaults } from './user-sessions.ts'
export { oauth2ClientFaults } from './oauth2-clients.ts'
export { upstreamOAuthFaults } from './upstream-oauth.ts'
export { registrationTokenFaults } from './registration-tokens.ts'
