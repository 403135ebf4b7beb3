// Types of package-paths.mjs for the TypeScript that imports it (plain JavaScript: the bin loads it first).
export const ROOT: string
export const BUILD_MANIFEST: string
export function prebuiltDir(root?: string, env?: NodeJS.ProcessEnv): string | undefined
export function privateDir(dir: string): string
export function userCacheDir(env?: NodeJS.ProcessEnv): string
export function packageCacheDir(kind: string, root?: string, env?: NodeJS.ProcessEnv): string
