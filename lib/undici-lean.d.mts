// Types of undici-lean.mjs: undici's own for the two it gives.
export { Agent, request } from 'undici'
