// Which release the mock's homeserver side claims to be (--hs-version), as the handlers ask it: every
// versioned behaviour reads the feature rows of lib/data/synapse-features.json through here, so the
// data and the mock cannot disagree. A version that does not parse counts as the newest release (the
// suites assume the same): features with `since` are there, features with `until` are gone.
import { SYNAPSE_FEATURES, synapseHas, type SynapseFeature } from '../../../lib/versions.ts'
import type { MockOptions } from '../../core/options.ts'
import type { EventJsonShape } from '../../store/homeserver/index.ts'

const cache = new Map<string, boolean>()

export function hsHas(options: Pick<MockOptions, 'hsVersion'>, feature: SynapseFeature): boolean {
  const key = `${options.hsVersion}\u0000${feature}`
  let has = cache.get(key)
  if (has === undefined) {
    const v = synapseHas(options.hsVersion, feature)
    has = v === 'unknown' ? SYNAPSE_FEATURES[feature].until === null : v
    if (cache.size > 1000) cache.clear()
    cache.set(key, has)
  }
  return has
}

/** The stored-event shape of the claimed release (lib/data/synapse-features.json). */
export function eventJsonShape(o: Pick<MockOptions, 'hsVersion'>): EventJsonShape {
  const roomVersion = hsHas(o, 'default-room-version-11')
    ? '11'
    : hsHas(o, 'default-room-version-10')
      ? '10'
      : hsHas(o, 'default-room-version-9')
        ? '9'
        : '6'
  return {
    roomVersion,
    prevState: hsHas(o, 'event-json-prev-state'),
    origin: hsHas(o, 'event-json-origin'),
    rustKeyOrder: hsHas(o, 'event-json-rust-key-order'),
  }
}
