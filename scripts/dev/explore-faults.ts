// The full fault matrix of explore (scripts/explore/fault-proof.ts), run by hand once per change of the
// oracles or the catalog (a few minutes; CI runs a handful of faults in test/scripts/explore/): prints the
// fraction of faults explore finds on its own, per area, and a Markdown table of each fault, for
// docs/findings.md.  npx tsx scripts/dev/explore-faults.ts [--seed N] [--sequences FAULT…]
import { faultProof, sequenceProof } from '../explore/fault-proof.ts'

const seedArg = process.argv.indexOf('--seed')
const seed = seedArg > 0 ? Number(process.argv[seedArg + 1]) : 1
const versions = { mas: 'v1.22.0', hs: '1.160.0' }
// --sequences: the faults read-only explore missed, tried again with stateful sequences (writes)
if (process.argv.includes('--sequences')) {
  const only = process.argv.slice(process.argv.indexOf('--sequences') + 1).filter((a) => !a.startsWith('--'))
  const r = await sequenceProof({ versions, seed, only })
  for (const x of r) process.stdout.write(`| \`${x.fault}\` | ${x.found ? `found: ${x.steps}` : 'missed'} |\n`)
  process.stdout.write(`found by sequences: ${r.filter((x) => x.found).length}/${r.length}\n`)
  process.exit(0)
}
const { clean, faults } = await faultProof({
  versions,
  seed,
  onFault: (f) =>
    process.stderr.write(
      `${f.found ? 'found ' : 'missed'} ${f.area} ${f.fault} (${f.findings} findings, ${f.requests} requests, ${f.ms} ms)\n`,
    ),
})
const rows = faults.map(
  (f) =>
    `| ${f.area} | \`${f.fault}\` | ${f.found ? 'found' : 'missed'} | ${f.findings} | ${f.first ? f.first.replace(/\|/g, '\\|') : f.description.replace(/\|/g, '\\|')} |`,
)
const per = (a: 'A' | 'B') => {
  const of = faults.filter((f) => f.area === a)
  return `${of.filter((f) => f.found).length}/${of.length}`
}
process.stdout.write(
  [
    `seed ${seed}, auth service ${versions.mas}, homeserver ${versions.hs}, read-only`,
    `clean mock: ${clean.findings.length} finding(s), ${clean.requests.target} requests, ${clean.cases} cases, ${(clean.durationMs / 1000).toFixed(1)} s`,
    `found: area A ${per('A')}, area B ${per('B')}, all ${faults.filter((f) => f.found).length}/${faults.length}`,
    '',
    '| area | fault | explore | findings | first finding (or, when missed, the fault) |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n') + '\n',
)
