// The deploy library: `deploy(opts)` and the pieces it is made of, for the CLI and for tests.
export { deploy } from './deploy.ts'
export { DEFAULT_IMAGES, DEFAULT_TIMEOUTS, type DeployOptions, type DeployResult, type KeptAccess, type Timeouts } from './options.ts'
export { serviceSpecs } from './specs.ts'
export {
  configYaml,
  generateFiles,
  homeserverConfig,
  makePlan,
  masConfig,
  planSecrets,
  postgresInitSql,
  type DeployPlan,
  type GeneratedFiles,
} from './config.ts'
export {
  configureTestcontainers,
  engineStatus,
  LABEL_PROJECT,
  LABEL_ROLE,
  LABEL_RUN,
  listProjectContainers,
  NAME_PREFIX,
  removeProjectContainers,
} from './engine.ts'
export { DeployError, EXIT, type FailureKind } from './errors.ts'
export { AREAS, type Area, type SuiteResult } from './suites.ts'
export { delegationMode, homeserverKind, splitImage, type DelegationMode } from './versions.ts'
