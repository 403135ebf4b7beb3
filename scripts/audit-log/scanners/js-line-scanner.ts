// The JavaScript engine: every line read by the base's scanText (the bulk regex for canonical
// request lines, the reference scanner for the rest).

import { BaseLineScanner } from './line-scanner.ts'

export class JsLineScanner extends BaseLineScanner {
  readonly engine = 'js' as const
}
