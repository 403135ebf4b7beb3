// The facade of `plan-upgrade`: what the tests use. main.ts is the command's entry.
export { main, run, USAGE } from './main.ts'
export { fetchServerVersion, serverVersionUrl, ServerReadError } from './server-version.ts'
export { renderPlan } from './render.ts'
