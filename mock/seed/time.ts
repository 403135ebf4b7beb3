// Durations, named with their unit: the auth service's store keeps microseconds (Micros), the
// homeserver's milliseconds, so a bare MINUTE would mean either.
export const SECOND_MS = 1_000
export const MINUTE_MS = 60 * SECOND_MS
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS

export const SECOND_US = 1_000_000
export const MINUTE_US = 60 * SECOND_US
export const HOUR_US = 60 * MINUTE_US
export const DAY_US = 24 * HOUR_US
