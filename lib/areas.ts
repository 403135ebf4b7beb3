// The one table of areas: the name `--area` takes, the suite folder that holds the area's checks, its
// title, and what the area needs from the target. The runner (scripts/run), the suites' framework
// (which matrix targets apply to a suite file) and deploy all read it; adding an area is one row here
// plus its suite folder.

export type AreaNeed = 'mas' | 'hs' | 'log' | 'any'

export interface AreaDef {
  /** suite folder, relative to the package root, '/'-separated */
  dir: string
  title: string
  needs: AreaNeed
}

export const AREAS = {
  admin: { dir: 'suites/admin', title: 'auth service admin API (area A)', needs: 'mas' },
  reports: { dir: 'suites/homeserver', title: 'homeserver event reports (area B)', needs: 'hs' },
  log: { dir: 'suites/requestlog', title: 'request log (area C)', needs: 'log' },
  upgrade: { dir: 'suites/upgrade', title: 'pre-upgrade checks', needs: 'any' },
} as const satisfies Record<string, AreaDef>

export type Area = keyof typeof AREAS
export const AREA_NAMES = Object.keys(AREAS) as Area[]

export function isArea(name: string): name is Area {
  return Object.hasOwn(AREAS, name)
}

/** What an area needs, in words, for messages ("a homeserver target (--hs-url or HS_URL)"). */
export const NEED_TEXT: Readonly<Record<AreaNeed, string>> = {
  mas: 'an auth service target (--mas-url or MAS_URL)',
  hs: 'a homeserver target (--hs-url or HS_URL)',
  log: 'a request log (--log-file, or the bundled mock)',
  any: 'an auth service or homeserver target',
}

/**
 * The area whose suite folder holds a file, from its path (relative, absolute, or through a symlink:
 * the last `suites/<folder>/` in the path decides), or undefined.
 */
export function areaOfPath(file: string): Area | undefined {
  const dir = suiteDirOfPath(file)
  return AREA_NAMES.find((a) => AREAS[a].dir === dir)
}

/** The `suites/<folder>` part of a path ('suites/admin'), or '' when the path is not in a suite folder. */
export function suiteDirOfPath(file: string): string {
  const norm = file.replace(/\\/g, '/')
  const all = [...norm.matchAll(/(?:^|\/)(suites\/[^/]+)(?=\/)/g)]
  return all.length ? all[all.length - 1]![1]! : ''
}
