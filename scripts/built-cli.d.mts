// Types of built-cli.mjs for the TypeScript that imports it (the bin itself is plain JavaScript).
import type { Plugin } from 'esbuild'

export const ROOT: string
export const OUT_MARK: string
export function cacheKey(root?: string, dirs?: readonly string[]): string
export function sourceUrls(root: string, relocatable?: boolean): Plugin
export function relocate(text: string, file: string, outdir: string, root: string): string
export function builtRunFile(root?: string, cacheDir?: string): Promise<string>
export const BUNDLED_PACKAGES: readonly string[]
export const REQUIRE_BANNER: string
export function packagesExternalBut(bundled: readonly string[]): Plugin
