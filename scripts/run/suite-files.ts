// The suite files of an area: every *.suite.{ts,mts,js,mjs} under its folder of the areas table.
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { AREAS, type Area } from '../../lib/areas.ts'

export function suiteFiles(root: string, area: Area): string[] {
  const dir = path.join(root, AREAS[area].dir)
  if (!existsSync(dir)) return []
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.suite\.(ts|mts|js|mjs)$/.test(name)) out.push(path.relative(root, full).split(path.sep).join('/'))
    }
  }
  walk(dir)
  return out
}
