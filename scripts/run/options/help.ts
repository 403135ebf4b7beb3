// The run command's --help text.
import { AREA_NAMES } from '../../../lib/areas.ts'
import { DEFAULT_CLIENT_PREFIX, DEFAULT_HS_PREFIX, DEFAULT_TIMEOUTS } from '../../../lib/target.ts'
import { DEFAULT_DEADLINE_S, REPORTERS } from './options.ts'

export const HELP = `usage: admin-conformance run [options]

Runs the conformance suites against an auth service (MAS) and/or a homeserver (Synapse).
Without a target it starts the bundled mock on a free loopback port, runs everything against it
(writes allowed) and stops it.

target (flags win over the environment):
  --mas-url URL           auth service base URL                     (env MAS_URL)
  --mas-token T           admin token (scope urn:mas:admin)          (env MAS_ADMIN_TOKEN)
  --mas-user-token T      token without the admin scope, for auth    (env MAS_USER_TOKEN)
  --hs-url URL            homeserver base URL                        (env HS_URL)
  --hs-token T            server admin's access token               (env HS_ADMIN_TOKEN)
  --hs-user-token T       non-admin access token, for auth checks    (env HS_USER_TOKEN)
  --hs-prefix P           homeserver admin prefix (default ${DEFAULT_HS_PREFIX})
  --client-prefix P       client API prefix (default ${DEFAULT_CLIENT_PREFIX})
  --allow-writes          also run checks that finish, revoke, regenerate, create, set policy
                          data or delete reports (read-only by default; always on for the mock)
  --log-file F            the target's request log, for the log area ('-' for stdin)
  --mock-fault NAME       bundled mock only: inject a named server bug (repeatable)
  --fault-matrix          bundled mock only: run the suites against a clean mock and one mock per
                          fault of the selected areas (default admin,reports); passes when the clean
                          mock passes every check and every fault makes at least one named check fail
                          (the faults that apply at the mock's releases; with --mock-fault, only those)

bundled mock versions (the mock claims the release and behaves as it: routes, filters, error texts,
fields, headers, log format, known deviations):
  --mock-hs-version V     the homeserver release, e.g. 1.67.0 (default: the mock's, its newest)
  --mock-mas-version V    the auth service release, e.g. v1.4.0 (default: the mock's, its newest)

selection and verdict:
  --area A[,B]            areas: ${AREA_NAMES.join(', ')} (default: every area the target has)
  --grep PATTERN          run only the checks whose name matches (a regular expression; /re/i allowed)
  --allow-token-in-url    run the checks that send the admin token in the URL (?access_token=);
                          proxies and load balancers log URLs, so use a throwaway token (off by
                          default: those checks skip; always on for the bundled mock)
  --allow-partial         accept a partial run: an area without a target, a token or a check is
                          skipped with a warning instead of failing the run
  --strict                count deviations (known differences and known defects of a real release)
                          as failures

output:
  --reporter R            report format: ${REPORTERS.join(', ')} (default: none, or from --output's extension)
  --output FILE           write the report to FILE (default: standard output)
  --jobs N                suite workers running files side by side (default: 2 against the bundled
                          mock on two cores or more, each worker with a mock of its own; 1 against
                          a real target, which keeps the run under 256 MiB; each adds ~100 MiB)
  --timeout S             time limit per suite file, in seconds (default 120)
  --request-timeout S     time limit per HTTP request, in seconds, headers and body however slowly it
                          comes (default ${DEFAULT_TIMEOUTS.requestMs / 1000})
  --deadline S            time limit of the whole run, in seconds (default ${DEFAULT_DEADLINE_S} against a real target,
                          none against the bundled mock; 0: none); past it no request is sent, the
                          run says at which file, check and request it stopped, and exits 1

production manners:
  --rate N                at most N requests per second over the whole run (split evenly between
                          the --jobs suite processes; default: no limit)
  --max-requests N        a budget of N requests for the whole run; when it is spent the run stops
                          asking, says at which check and request, and is not a pass (exit 1)
  --max-response-size S   cap on one response's body (default 4MiB; units KiB, MiB, GiB), also on
                          what a compressed body decodes to; a larger answer fails its check,
                          naming the request and the size
  -h, --help              this help

Colour on a terminal; NO_COLOR=1 turns it off, FORCE_COLOR=1 forces it.
Tokens are passed to the suites through the environment only and are redacted from all output.
Prefer the environment variables over the token flags (flags are visible in the process list).

exit codes: 0 every selected area was checked and passed
            1 a check failed, or nothing was proved (no target, token or check for a selected area)
            2 usage error
            3 a target does not answer or rejects its token
            130 interrupted (the results so far are still reported)
`
