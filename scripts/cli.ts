// The one command-line entry point: `admin-conformance <subcommand> [options]`.
// Each subcommand lives in its own module exporting `main(argv): Promise<number>` (the exit code, from
// the table in scripts/common/exit.ts).
import { EXIT, PROGRAM, didYouMean } from './common/index.ts'

type Main = (argv: string[]) => Promise<number>

const commands: Record<string, { summary: string; load: () => Promise<{ main: Main }> }> = {
  run: { summary: 'run the conformance suites against a target (or the bundled mock)', load: () => import('./run/main.ts') },
  mock: { summary: 'start the bundled reference mock', load: () => import('./mock/main.ts') },
  'audit-log': { summary: 'classify the requests of an http.server.response log', load: () => import('./audit-log/main.ts') },
  'plan-upgrade': { summary: 'plan a homeserver upgrade: rollback floor, changes, steps', load: () => import('./plan-upgrade/main.ts') },
  snapshot: {
    summary: "record a deployment's observable behaviour in one JSON file (read-only)",
    load: () => import('./snapshot/main.ts'),
  },
  explore: {
    summary: 'generate requests for every operation and hold each answer to the rules and the model (read-only by default)',
    load: () => import('./explore/main.ts'),
  },
  diff: {
    summary: 'compare two snapshots (or a snapshot and a live target): which changes the release tables explain',
    load: () => import('./diff/main.ts'),
  },
  deploy: { summary: 'start a real deployment with testcontainers and run the suites on it', load: () => import('./deploy/main.ts') },
}

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length))
  return [
    'usage: admin-conformance <command> [options]',
    '',
    'commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    "run 'admin-conformance <command> --help' for the options of a command",
  ].join('\n')
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined) {
    process.stderr.write(usage() + '\n')
    return EXIT.usage
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n')
    return EXIT.pass
  }
  if (name === '--version') {
    const pkg = await import('../package.json', { with: { type: 'json' } })
    process.stdout.write(pkg.default.version + '\n')
    return EXIT.pass
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    const shown = name.length > 40 ? name.slice(0, 40) + '…' : name
    process.stderr.write(`${PROGRAM}: unknown command '${shown}'${didYouMean(name, Object.keys(commands))}\n\n${usage()}\n`)
    return EXIT.usage
  }
  const mod = await command.load()
  return mod.main(rest)
}
